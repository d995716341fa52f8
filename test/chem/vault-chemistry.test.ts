/**
 * Ingest of a vault's cached molecules into its structure index (services/vault-chemistry.ts), on
 * a real cache and real workers: molecules become searchable first, their InChIKeys and properties
 * follow, and new molecules go ahead of the details still to compute.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ChemWorkerPool } from '../../src-main/chem/worker-pool.ts'
import { silentLogger } from '../../src-main/shared/logger.ts'
import { VaultChemistry, type IndexProgress } from '../../src-main/services/vault-chemistry.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'

let pool: ChemWorkerPool
let directory: string
let cache: VaultCache
let vault: VaultChemistry | undefined

/** Alkyl amines and alcohols (no properties from the vault): heavy atoms are the SMILES length. */
function molecules(from: number, count: number) {
  return Array.from({ length: count }, (_, n) => ({
    id: from + n,
    name: `Molecule ${from + n}`,
    smiles: `${'C'.repeat(((from + n) % 15) + 1)}${n % 2 ? 'N' : 'O'}`,
  }))
}

beforeAll(() => {
  pool = new ChemWorkerPool({ size: 2 })
})
afterAll(() => pool.close())

beforeEach(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-vault-chemistry-'))
  cache = VaultCache.open(path.join(directory, 'cache.db')).cache
  cache.applyPage('molecules', 1, molecules(1, 200))
})
afterEach(async () => {
  vault?.close()
  vault = undefined
  await cache.close()
  fs.rmSync(directory, { recursive: true, force: true })
})

function openVault(onProgress: (progress: IndexProgress) => void): VaultChemistry {
  vault = new VaultChemistry({
    connectionId: 'c1',
    vaultId: 1,
    cache,
    pool,
    log: silentLogger,
    onProgress,
  })
  return vault
}

describe('VaultChemistry ingest', () => {
  it('makes every molecule searchable before computing InChIKeys and properties', async () => {
    const progress: IndexProgress[] = []
    let searchedEarly: Promise<{ pendingDetails: number; hits: number }> | undefined
    const chemistry = openVault((event) => {
      progress.push(event)
      if (!searchedEarly && event.indexed === 200 && event.detailsPending > 0) {
        const question = {
          structure: null,
          properties: { heavyAtomCount: { min: 1 } },
          within: null,
          firstPageSize: 50,
        }
        searchedEarly = chemistry
          .search(question)
          .then(({ run }) => run.result)
          .then((result) => ({ pendingDetails: result.pendingDetails, hits: result.hits.length }))
      }
    })
    const summary = await chemistry.ingest()
    expect(summary).toMatchObject({ looked: 200, computed: 200, unparseable: 0 })
    expect(progress.find((event) => event.indexed === 200)?.detailsPending).toBe(200)
    expect(progress.at(-1)).toEqual({ indexed: 200, total: 200, detailsPending: 0 })

    // A property search asked before the properties were in said so; asked again, it sees them.
    expect(await searchedEarly).toEqual({ pendingDetails: 200, hits: 0 })
    const { run } = await chemistry.search({
      structure: null,
      properties: { heavyAtomCount: { min: 1 } },
      within: null,
      firstPageSize: 50,
    })
    expect(await run.result).toMatchObject({ pendingDetails: 0 })
    expect((await run.result).hits).toHaveLength(200)
    expect(await chemistry.state()).toMatchObject({ indexed: 200, detailsPending: 0 })
    const engine = await chemistry.engine()
    expect(engine.properties(7)).toMatchObject({ heavyAtomCount: 9 })
  })

  it('indexes molecules a sync adds ahead of the details still to compute', async () => {
    const progress: IndexProgress[] = []
    let added = false
    const chemistry = openVault((event) => {
      progress.push(event)
      if (!added && event.indexed === 200 && event.detailsPending > 0) {
        added = true
        cache.applyPage('molecules', 1, molecules(1001, 40))
        void chemistry.ingest()
      }
    })
    await chemistry.ingest()
    // When the added molecules were searchable, the first ones still waited for details.
    const addedIndexed = progress.find((event) => event.indexed === 240)
    expect(addedIndexed?.detailsPending).toBeGreaterThan(40)
    expect(progress.at(-1)).toEqual({ indexed: 240, total: 240, detailsPending: 0 })
    expect(chemistry.repository.indexedCount()).toBe(240)
  })

  it('recomputes a molecule rewritten under the modified_at it had, the vault stamping whole seconds', async () => {
    const stamp = '2026-11-22T07:00:00Z'
    cache.applyPage('molecules', 1, [
      { id: 5000, name: 'Toluene', smiles: 'Cc1ccccc1', modified_at: stamp },
    ])
    const chemistry = openVault(() => {})
    expect(await chemistry.ingest()).toMatchObject({ computed: 201 })
    const before = chemistry.repository.contentHashes([3, 5000])

    // Corrected within the second it was made (the sync's cursor re-reads that second), and one
    // molecule the vault gave no modified_at at all.
    cache.applyPage('molecules', 1, [
      { id: 5000, name: 'Toluene', smiles: 'CCc1ccccc1', modified_at: stamp },
      { id: 3, name: 'Molecule 3', smiles: 'CCCCN' },
    ])
    // Rewritten unchanged (the cursor's overlap), which is nothing to recompute.
    cache.applyPage('molecules', 1, [molecules(1, 200)[7]!])
    expect(await chemistry.ingest()).toMatchObject({ looked: 2, computed: 2 })
    const after = chemistry.repository.contentHashes([3, 5000])
    expect(after.get(3)).not.toBe(before.get(3))
    expect(after.get(5000)).not.toBe(before.get(5000))
    expect(await chemistry.ingest(), 'nothing left to look at').toMatchObject({ looked: 0 })
  })

  it('looks again at a molecule rewritten under its modified_at while ingest was reading it', async () => {
    const chemistry = openVault(() => {})
    await chemistry.ingest()
    const repository = cache.structureIndex(1)
    const everyId = Number.MAX_SAFE_INTEGER
    cache.applyPage('molecules', 1, [{ id: 7, name: 'Molecule 7', smiles: 'CCCCCCCCF' }])

    const mark = repository.unstampedChangesMark()
    const read = repository.moleculesToIndex(null, everyId, false)
    expect(read.map((molecule) => molecule.id)).toEqual([7])
    cache.applyPage('molecules', 1, [{ id: 7, name: 'Molecule 7', smiles: 'CCCCCCCCN' }])
    repository.markSeen(read)
    repository.forgetUnstampedChanges(mark)

    const again = repository.moleculesToIndex(null, everyId, false)
    expect(again.map((molecule) => [molecule.id, molecule.structure])).toEqual([[7, 'CCCCCCCCN']])
  })

  it('stops once every molecule is searchable when asked to, and computes the rest next time', async () => {
    const chemistry = openVault(() => {})
    expect(await chemistry.ingest({ details: false })).toMatchObject({ computed: 200 })
    expect(await chemistry.state()).toMatchObject({ indexed: 200, detailsPending: 200 })
    await chemistry.ingest()
    expect(await chemistry.state()).toMatchObject({ indexed: 200, detailsPending: 0 })
  })

  it('abandons a running search nobody waits for when another starts, not one still awaited', async () => {
    const chemistry = openVault(() => {})
    await chemistry.ingest()
    const question = (query: string) => ({
      structure: { kind: 'substructure' as const, query },
      properties: {},
      within: null,
      firstPageSize: 50,
    })
    const typedOver = await chemistry.search(question('CC'))
    typedOver.release()
    const awaited = await chemistry.search(question('CO'))
    expect(typedOver.run.done).toBe(false)
    const latest = await chemistry.search(question('CN'))
    await expect(typedOver.run.result).rejects.toMatchObject({ code: 'cancelled' })
    expect((await awaited.run.result).hits.length).toBeGreaterThan(0)
    expect((await latest.run.result).hits.length).toBeGreaterThan(0)
    awaited.release()
    latest.release()
    // Asked again, the abandoned question is searched anew.
    const again = await chemistry.search(question('CC'))
    expect(again.started).toBe(true)
    expect((await again.run.result).hits.length).toBeGreaterThan(100)
    again.release()
  })
})
