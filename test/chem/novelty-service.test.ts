/**
 * The novelty check end to end: the simulator's demo molecules (and a few drugs made through its
 * API) synced over loopback into a real SQLite cache, their structure index built in real RDKit
 * workers, molecules registered offline queued in the real outbox, and the check asked through the
 * contract as the registration dialog asks it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NoveltyReport } from '../../src-common/registration/novelty.ts'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type { CachedRecordPage } from '../../src-main/ipc/contract.ts'
import type { Services } from '../../src-main/services/index.ts'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { nextEvent, testServices } from '../services/support.ts'

const nicotine = 'CN1CCC[C@H]1c1cccnc1'
const sertraline = 'CN[C@H]1CC[C@@H](c2ccc(Cl)c(Cl)c2)c2ccccc21'

let sim: VaultSim
let services: Services
let dispose: () => Promise<void>
let dispatch: Dispatch
let connectionId: string
let main: number
const created = new Map<string, number>()
let demo: { id: number; name: string; smiles: string }[]
/** Nicotine as a molfile, written by the app's RDKit with 2D coordinates and wedges. */
let nicotineMolfile: string

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${sim.baseUrl}${path}`, {
    method,
    headers: { 'X-SVC-Token': sim.cast.users.admin.tokens[0]!, 'Content-Type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  const answer = (await response.json()) as Record<string, unknown>
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`)
  return answer
}

async function call<T>(channel: string, args: unknown): Promise<T> {
  const result = await dispatch(channel, args)
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`)
  return result.value as T
}

async function check(
  text: string,
  format: 'smiles' | 'cxsmiles' | 'molfile' = 'smiles',
): Promise<NoveltyReport> {
  return call<NoveltyReport>('chem.novelty', {
    connectionId,
    vaultId: main,
    structure: { format, text },
  })
}

async function found(text: string, format?: 'smiles' | 'molfile') {
  const report = await check(text, format)
  if (!report.ok) throw new Error(`${text}: ${report.error}`)
  return report
}

async function refused(text: string, format?: 'smiles' | 'molfile'): Promise<string> {
  const report = await check(text, format)
  if (report.ok) throw new Error(`${text} was read: ${JSON.stringify(report.input)}`)
  return report.error
}

beforeAll(async () => {
  sim = await startVaultSim({ port: 0, seed: 40 })
  main = sim.cast.vaults.main.id
  for (const [name, smiles] of [
    ['Nicotine', nicotine],
    ['Sertraline hydrochloride', `${sertraline}.Cl`],
  ] as const) {
    const molecule = await api('POST', `/vaults/${main}/molecules`, {
      name,
      smiles,
      projects: [sim.cast.projects.kinase.id],
    })
    created.set(name, Number(molecule.id))
  }
  ;({ services, dispose } = testServices({ chemWorkers: 1 }))
  dispatch = createDispatcher(createHandlers(services), services.log)
  const added = await call<{ connection: { id: string } }>('connections.add', {
    name: 'Lab',
    baseUrl: sim.baseUrl,
    token: sim.cast.users.admin.tokens[0]!,
    sessionOnly: true,
  })
  connectionId = added.connection.id
  const synced = nextEvent(
    services,
    'sync.changed',
    (state) => state.connectionId === connectionId && !state.running,
  )
  await call('sync.start', { connectionId })
  expect(await synced).toMatchObject({ lastOutcome: 'completed' })
  const page = await call<CachedRecordPage>('records.list', {
    connectionId,
    vaultId: main,
    kind: 'molecules',
    limit: 200,
  })
  const [molblock] = await services.chem.molblocks([nicotine])
  if (!molblock || !('molblock' in molblock)) throw new Error('No molfile of nicotine.')
  nicotineMolfile = molblock.molblock
  demo = page.rows
    .filter((row) => !created.has(String(row.json.name)))
    .map((row) => ({
      id: Number(row.id),
      name: String(row.json.name),
      smiles: String(row.json.smiles),
    }))
}, 120_000)

afterAll(async () => {
  await dispose?.()
  await sim?.stop()
})

describe('the novelty check', () => {
  it('says how many cached molecules it could not compare until their index is built', async () => {
    const before = await found('c1ccc2c(c1)oc1ccccc12')
    expect(before.unchecked).toBe(demo.length + created.size)
    // The check asked for the index; building it to the end lets every molecule be compared.
    await services.chem.buildIndex(connectionId, main)
    const after = await found('c1ccc2c(c1)oc1ccccc12')
    expect(after).toMatchObject({
      matches: [],
      counts: { 'same-structure': 0, 'other-stereo': 0, 'same-parent': 0 },
      unchecked: 0,
    })
    expect(after.input).toMatchObject({
      canonicalSmiles: 'c1ccc2c(c1)oc1ccccc12',
      inchiKey: 'TXCDCPKCNAJMEE-UHFFFAOYSA-N',
      skeletonKey: 'TXCDCPKCNAJMEE',
      parentSmiles: 'c1ccc2c(c1)oc1ccccc12',
      removedFragments: [],
      formula: 'C12H8O',
    })
  }, 120_000)

  it('finds a demo molecule drawn again, and its salt forms by their parent', async () => {
    expect(demo.length).toBeGreaterThanOrEqual(40)
    for (const molecule of demo.slice(0, 3)) {
      const same = await found(molecule.smiles)
      expect(same.matches).toContainEqual({
        relation: 'same-structure',
        id: molecule.id,
        pendingItem: null,
        name: molecule.name,
        smiles: same.input.canonicalSmiles,
      })
      expect(same.counts['same-structure']).toBe(1)
      for (const salt of ['.Cl', '.O', '.OC(=O)C(F)(F)F', '.CS(=O)(=O)O.O']) {
        const report = await found(molecule.smiles + salt)
        expect(report.matches).toEqual([
          expect.objectContaining({
            relation: 'same-parent',
            id: molecule.id,
            name: molecule.name,
          }),
        ])
        expect(report.input.parentSmiles).toBe(same.input.canonicalSmiles)
        expect(report.input.removedFragments.length).toBeGreaterThan(0)
      }
    }
  })

  it('finds stereoisomers by their skeleton, and a free base by the parent of its cached salt', async () => {
    const nicotineId = created.get('Nicotine')!
    expect((await found(nicotine)).matches).toEqual([
      expect.objectContaining({ relation: 'same-structure', id: nicotineId }),
    ])
    for (const stereoisomer of ['CN1CCC[C@@H]1c1cccnc1', 'CN1CCCC1c1cccnc1']) {
      expect((await found(stereoisomer)).matches).toEqual([
        expect.objectContaining({ relation: 'other-stereo', id: nicotineId, name: 'Nicotine' }),
      ])
    }
    // A salt form of the other enantiomer: its parent is not the cached nicotine's.
    expect((await found('CN1CCC[C@@H]1c1cccnc1.Cl')).matches).toEqual([])
    const sertralineId = created.get('Sertraline hydrochloride')!
    expect((await found(sertraline)).matches).toEqual([
      expect.objectContaining({ relation: 'same-parent', id: sertralineId }),
    ])
    expect((await found(`${sertraline}.Br`)).matches).toEqual([
      expect.objectContaining({ relation: 'same-parent', id: sertralineId }),
    ])
    expect((await found(nicotineMolfile, 'molfile')).matches).toEqual([
      expect.objectContaining({ relation: 'same-structure', id: nicotineId }),
    ])
  })

  it('finds molecules registered offline and still in the outbox', async () => {
    const [item] = await services.outbox.queue({
      connectionId,
      vaultId: main,
      operation: 'molecule.create',
      payload: {
        name: 'Anabasine (offline)',
        smiles: 'C1CCNC(C1)c1cccnc1',
        projects: [sim.cast.projects.kinase.id],
      },
    })
    const report = await found('Cl.C1CCNC(C1)c1cccnc1')
    expect(report.matches).toEqual([
      {
        relation: 'same-parent',
        id: null,
        pendingItem: item!.id,
        name: 'Anabasine (offline)',
        smiles: 'c1cncc(C2CCCCN2)c1',
      },
    ])
    expect((await found('c1cncc(C2CCCCN2)c1')).matches).toEqual([
      expect.objectContaining({ relation: 'same-structure', pendingItem: item!.id }),
    ])
    expect((await found('C1CCN[C@H](C1)c1cccnc1')).matches).toEqual([
      expect.objectContaining({ relation: 'other-stereo', pendingItem: item!.id }),
    ])
  })

  it('names what is wrong with a structure it cannot read, and refuses an unknown vault', async () => {
    expect(await refused('')).toBe('The structure is empty: draw one or paste its text.')
    expect(await refused('C(C)(C)(C)(C)C')).toMatch(
      /^Invalid SMILES: Explicit valence for atom # 0 C, 5, is greater than permitted/,
    )
    expect(await refused('c1ccccc1C(')).toMatch(/^Invalid SMILES: /)
    expect(await refused('CCO', 'molfile')).toMatch(/given as a molfile/)
    expect(await refused(nicotineMolfile, 'smiles')).toMatch(/its text is a molfile/)
    const unknown = await dispatch('chem.novelty', {
      connectionId,
      vaultId: 999_999,
      structure: { format: 'smiles', text: 'CCO' },
    })
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not_found' } })
    const malformed = await dispatch('chem.novelty', {
      connectionId,
      vaultId: main,
      structure: { format: 'inchi', text: 'InChI=1S/CH4/h1H4' },
    })
    expect(malformed).toMatchObject({ ok: false, error: { code: 'invalid_argument' } })
  })
})
