import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { loadChemistry } from '../../src-sim/chem/chemistry.ts'
import { tanimoto } from '../../src-sim/chem/fingerprint.ts'
import { startVaultSim } from '../../src-sim/index.ts'
import type { VaultSim, VaultSimOptions } from '../../src-sim/index.ts'
import { cast, objectsOf } from './fixtures.ts'
import { record } from './http.ts'

let sim: VaultSim | undefined
afterEach(() => sim?.stop())

async function start(options: VaultSimOptions) {
  sim = await startVaultSim(options)
  return { sim, c: cast(sim) }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 60_000
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`Timed out waiting until ${what}`)
    await sleep(50)
  }
}

/** Every molecule of the main vault as the API shows it. */
async function molecules(c: ReturnType<typeof cast>): Promise<Record<string, unknown>[]> {
  return objectsOf(record(await c.admin.post(`${c.main}/molecules/query`, { page_size: 1000 })))
}

async function ids(c: ReturnType<typeof cast>, body: Record<string, unknown>): Promise<number[]> {
  const answer = await c.admin.post(`${c.main}/molecules/query`, { ...body, only_ids: true })
  expect(answer.status, JSON.stringify(answer.json)).toBe(200)
  return record(answer).objects as number[]
}

describe('the structure index', () => {
  it('identifies bulk-seeded molecules in the background while the API is idle, and searches find what RDKit finds', async () => {
    const { sim, c } = await start({ seed: 120, indexing: { minimumMolecules: 100, idleMs: 100 } })
    await until(
      () => sim.stats.backgroundIdentities.inchi === 120,
      'the background pass has given 120 molecules their InChI',
    )
    expect(sim.stats.backgroundIdentities.searchForms).toBe(120)
    const all = await molecules(c)
    expect(all.every((molecule) => typeof molecule.inchi_key === 'string')).toBe(true)

    const chem = await loadChemistry()
    const [probe] = all
    expect(probe!.inchi_key).toBe(chem.inchiKey(probe!.smiles as string))
    expect(await ids(c, { inchikey: probe!.inchi_key })).toEqual([probe!.id])
    for (const query of ['c1ccncc1', 'C(F)(F)F', 'O=C(N)c1ccccc1']) {
      const matcher = chem.substructureMatcher(query)
      const expected = all
        .filter((molecule) => matcher.matches(molecule.smiles as string))
        .map((molecule) => molecule.id)
      matcher.dispose()
      expect(await ids(c, { structure: query })).toEqual(expected)
    }
    const queryFingerprint = chem.fingerprint('Cc1ccc(NC(=O)c2ccccc2)cc1')
    const similar = all.filter(
      (molecule) => tanimoto(queryFingerprint, chem.fingerprint(molecule.smiles as string)) >= 0.3,
    )
    expect(
      (
        await ids(c, {
          structure: 'Cc1ccc(NC(=O)c2ccccc2)cc1',
          structure_search_type: 'similarity',
          structure_similarity_threshold: 0.3,
        })
      ).sort((a, b) => a - b),
    ).toEqual(similar.map((molecule) => molecule.id))
  })

  it('works on the molecules a structure search waits for even while the API is busy', async () => {
    const { sim, c } = await start({
      seed: 120,
      indexing: { minimumMolecules: 100, idleMs: 3_600_000 },
    })
    await sleep(300)
    expect(sim.stats.backgroundIdentities.searchForms).toBe(0)
    const hits = await ids(c, { structure: 'c1ccccc1' })
    expect(hits.length).toBeGreaterThan(100)
    expect(sim.stats.backgroundIdentities.searchForms).toBe(120)
    expect(sim.stats.backgroundIdentities.inchi).toBe(0)
    const [first] = await molecules(c)
    expect(
      await ids(c, { inchikey: (await loadChemistry()).inchiKey(first!.smiles as string) }),
    ).toEqual([first!.id])
    expect(sim.stats.backgroundIdentities.inchi).toBe(120)
  })

  it('leaves a small vault to the searches themselves', async () => {
    const { sim, c } = await start({ seed: 40, indexing: { idleMs: 100 } })
    await sleep(500)
    expect(await ids(c, { structure: 'C(F)(F)F' })).toEqual(expect.any(Array))
    expect(sim.stats.backgroundIdentities).toEqual({ searchForms: 0, inchi: 0 })
  })
})
