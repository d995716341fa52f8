/**
 * A search by results combined with a substructure search scans only the molecules the criteria
 * find (their slots, screened by fingerprint in the workers): its answer must be exactly the
 * unnarrowed search's hits filtered by the criteria, in the same order, first page and count alike.
 *
 * - On the demo vault synced from the simulator over real HTTP, through the contract
 *   (`records.list` with `results` and `structure`), against `records.list` asked the two halves
 *   apart.
 * - On a cache of 3,000 molecules with thousands of matches (readout rows made as the readout
 *   benchmark makes them), through `listStructurePage` with real workers, against the unnarrowed
 *   search filtered by hand, and against Debian's RDKit answering the substructure question for
 *   every molecule (another build and version than the app's WebAssembly).
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  assayTests,
  benchVaultId,
  protocolRecords,
  ReadoutRowMaker,
  readoutPages,
} from '../../bench/readout-vault.ts'
import { parseCriteria } from '../../src-common/analysis/readouts/criteria-text.ts'
import { ChemWorkerPool } from '../../src-main/chem/worker-pool.ts'
import type { CachedRecordPage } from '../../src-main/ipc/contract.ts'
import type { StructurePage } from '../../src-main/services/chem-results.ts'
import type { Services } from '../../src-main/services/index.ts'
import { listStructurePage } from '../../src-main/services/structure-list.ts'
import { VaultChemistry } from '../../src-main/services/vault-chemistry.ts'
import { silentLogger } from '../../src-main/shared/logger.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { requirement } from '../support/environment.ts'
import { moleculeRecord } from '../store/fixtures/molecule-records.ts'
import { syncedDemoServices, type Call } from '../services/support.ts'

const substructures = ['c1ccccc1', 'C(=O)N', 'c1ccncc1', 'CCO', 'C1CCCCC1', 'Cl']

type Ask = (options: { offset: number; limit: number }) => Promise<{
  total: number
  ids: number[]
  complete: boolean
}>

/**
 * Every hit of a list, paged: the first answer (which may come before counting ends) must be
 * the start of the whole, and asking again gives the count.
 */
async function everyHit(ask: Ask): Promise<{ first: number[]; all: number[] }> {
  const first = await ask({ offset: 0, limit: 50 })
  const all: number[] = []
  for (let offset = 0; ; offset += 1000) {
    const page = await ask({ offset, limit: 1000 })
    expect(page.complete).toBe(true)
    all.push(...page.ids)
    if (all.length >= page.total) {
      expect(all).toHaveLength(page.total)
      return { first: first.ids, all }
    }
  }
}

describe('a search by results with a substructure search, on the demo vault', () => {
  let services: Services
  let dispose: () => Promise<void>
  let call: Call
  let vaultId: number
  let connectionId: string

  beforeAll(async () => {
    const demo = await syncedDemoServices()
    ;({ services, dispose, call, vaultId, connectionId } = demo)
    await demo.sim.stop()
    demo.cache.readoutIndex().complete()
    await services.chem.buildIndex(connectionId, vaultId)
  }, 240_000)

  afterAll(async () => {
    await dispose?.()
  })

  const list = (question: Record<string, unknown>): Ask => {
    return async ({ offset, limit }) => {
      const page = await call<CachedRecordPage & Partial<StructurePage>>('records.list', {
        connectionId,
        vaultId,
        kind: 'molecules',
        ...question,
        offset,
        limit,
      })
      return {
        total: page.total,
        ids: page.rows.map((row) => row.id!),
        complete: page.structure?.complete ?? true,
      }
    }
  }

  it('finds exactly the structure hits the criteria keep, in the same order', async () => {
    const criteria = [
      ['Kinase IC50 (ADP-Glo): % Inhibition > 50'],
      ['Kinase IC50 (ADP-Glo): IC50 < 10 uM'],
      ['not Kinase IC50 (ADP-Glo): IC50 < 10 uM'],
    ]
    let compared = 0
    for (const results of criteria) {
      const met = await everyHit(list({ results, sort: 'id' }))
      expect(met.all.length).toBeGreaterThan(0)
      const kept = new Set(met.all)
      for (const query of substructures) {
        const structure = { kind: 'substructure', query, language: 'smiles' }
        const alone = await everyHit(list({ structure }))
        const combined = await everyHit(list({ structure, results }))
        const expected = alone.all.filter((id) => kept.has(id))
        expect(combined.all, `${query} with ${results.join(' and ')}`).toEqual(expected)
        expect(combined.first).toEqual(expected.slice(0, combined.first.length))
        compared += expected.length
      }
    }
    // Not an empty comparison: the demo's molecules meet these criteria and hold these parts.
    expect(compared).toBeGreaterThan(100)
  }, 240_000)
})

const python = process.env.VAULT_DESK_NATIVE_PYTHON ?? '/usr/bin/python3'
const referenceHere = requirement(
  spawnSync(python, ['-c', 'from rdkit import Chem'], { encoding: 'utf8' }).status === 0,
  `RDKit for Python (${python} with python3-rdkit)`,
)

/** Debian RDKit's answer: which of these structures hold the query (chirality as the app). */
function rdkitMatches(query: string, structures: readonly string[]): boolean[] {
  const script = String.raw`
import json, sys
from rdkit import Chem, RDLogger
RDLogger.DisableLog('rdApp.*')
request = json.load(sys.stdin)
query = Chem.MolFromSmiles(request['query'])
answer = [Chem.MolFromSmiles(smiles).HasSubstructMatch(query, useChirality=True)
          for smiles in request['structures']]
json.dump(answer, sys.stdout)
`
  const run = spawnSync(python, ['-c', script], {
    input: JSON.stringify({ query, structures }),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
  if (run.status !== 0) throw new Error(`Debian RDKit failed: ${run.stderr}`)
  return JSON.parse(run.stdout) as boolean[]
}

/** Ring, linker, tail and an end: 960 structures, most of them aromatic, many amides. */
function fixtureSmiles(index: number): string {
  const rings = ['c1ccccc1', 'c1ccncc1', 'C1CCCCC1', 'c1ccc2ccccc2c1', 'c1ccoc1']
  const linkers = ['', 'C', 'CC', 'C(=O)N', 'OC', 'NC(=O)']
  const tails = ['O', 'N', 'C(=O)O', 'Cl', 'F', 'CCO', 'c1ccccc1', 'N#CC']
  const ends = ['', 'C', 'O', 'Cl']
  const pick = <T>(items: readonly T[], by: number) => items[by % items.length]!
  return `${pick(tails, index)}${pick(linkers, index >> 3)}${pick(rings, Math.floor(index / 48))}${pick(ends, index >> 2)}`
}

describe.runIf(referenceHere)(
  'a search by results with a substructure search, with thousands of matches',
  () => {
    const moleculeCount = 3000
    let directory: string
    let cache: VaultCache
    let pool: ChemWorkerPool
    let vault: VaultChemistry
    const smilesById = new Map<number, string>()

    beforeAll(async () => {
      directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-results-structure-'))
      cache = VaultCache.open(path.join(directory, 'cache.db')).cache
      const molecules = Array.from({ length: moleculeCount }, (_, index) => {
        const id = index + 1
        const smiles = fixtureSmiles(index)
        smilesById.set(id, smiles)
        return moleculeRecord(id, { smiles, sourceId: `CHEMBL${100000 + id}` })
      })
      for (let start = 0; start < molecules.length; start += 500) {
        cache.applyPage('molecules', benchVaultId, molecules.slice(start, start + 500))
      }
      cache.applyPage('protocols', benchVaultId, protocolRecords())
      const maker = new ReadoutRowMaker(11)
      const tests = assayTests(moleculeCount)
      for (const page of readoutPages(maker, tests, { pageSize: 2000, maxRows: 30_000 })) {
        cache.applyPage('readout_rows', benchVaultId, page)
      }
      cache.applyPage('runs', benchVaultId, maker.runs())
      cache.readoutIndex().complete()
      pool = new ChemWorkerPool({ size: 2 })
      const chemistry = () =>
        new VaultChemistry({
          connectionId: 'test',
          vaultId: benchVaultId,
          cache,
          pool,
          log: silentLogger,
          onProgress: () => {},
        })
      // Built by ingest, its slots are in the order the workers computed them: hits come in that
      // order. The same engine answers both questions, so that both have the one order.
      vault = chemistry()
      await vault.ingest({ details: false })
    }, 240_000)

    afterAll(async () => {
      vault?.close()
      await pool?.close()
      await cache?.close()
      if (directory) fs.rmSync(directory, { recursive: true, force: true })
    })

    const matching = (texts: readonly string[]) => {
      const parsed = parseCriteria(texts, cache.results().catalogue(benchVaultId))
      if (!parsed.ok) throw new Error(parsed.errors.map((error) => error.message).join(' '))
      return cache.results().matching(benchVaultId, parsed.criteria, 'molecule')
    }

    const listed =
      (chemistry: VaultChemistry, question: { query: string; ids?: readonly number[] }): Ask =>
      async ({ offset, limit }) => {
        const page = await listStructurePage(chemistry, {
          structure: { kind: 'substructure', query: question.query, language: 'smiles' },
          ...(question.ids ? { ids: question.ids } : {}),
          offset,
          limit,
        })
        return {
          total: page.total,
          ids: page.rows.map((row) => row.id!),
          complete: page.structure.complete,
        }
      }

    it('equals the unnarrowed search filtered by the criteria, and Debian RDKit', async () => {
      const criteria = [
        ['Kinase IC50 (ADP-Glo): IC50 < 10 uM'],
        ['GPCR Radioligand Displacement: Ki < 1 uM'],
        [
          'Kinase IC50 (ADP-Glo): IC50 < 30 uM',
          'or Kinetic Solubility (PBS pH 7.4): Solubility > 10',
        ],
        ['not Kinase IC50 (ADP-Glo): IC50 < 10 uM'],
      ]
      const structures = [...smilesById.values()]
      const ids = [...smilesById.keys()]
      let largest = 0
      for (const query of substructures) {
        const holds = rdkitMatches(query, structures)
        const reference = new Set(ids.filter((_, index) => holds[index]))
        const alone = await everyHit(listed(vault, { query }))
        expect(new Set(alone.all), `${query} over every molecule`).toEqual(reference)
        for (const texts of criteria) {
          const met = matching(texts)
          const kept = new Set(met)
          const expected = alone.all.filter((id) => kept.has(id))
          const combined = await everyHit(listed(vault, { query, ids: met }))
          expect(combined.all, `${query} with ${texts.join(' ')}`).toEqual(expected)
          expect(combined.first).toEqual(expected.slice(0, 50))
          largest = Math.max(largest, expected.length)
        }
      }
      // Many hits: the candidates span several chunks, shared by both workers.
      expect(largest).toBeGreaterThan(1000)
    }, 240_000)

    it('sorts the narrowed hits by name as the cache sorts the filtered ones', async () => {
      const met = matching(['Kinase IC50 (ADP-Glo): IC50 < 10 uM'])
      const structure = { kind: 'substructure', query: 'c1ccccc1', language: 'smiles' } as const
      const byName = await listStructurePage(vault, {
        structure,
        ids: met,
        sort: 'name',
        limit: 200,
      })
      const alone = await everyHit(listed(vault, { query: 'c1ccccc1' }))
      const kept = new Set(met)
      const expected = cache.page('molecules', benchVaultId, {
        ids: alone.all.filter((id) => kept.has(id)),
        sort: 'name',
        limit: 200,
      })
      expect(byName.total).toBe(expected.total)
      expect(byName.rows.map((row) => row.id)).toEqual(expected.rows.map((row) => row.id))
    }, 120_000)

    it('answers nothing for criteria that meet no molecule, and says so at once', async () => {
      const page = await listStructurePage(vault, {
        structure: { kind: 'substructure', query: 'c1ccccc1', language: 'smiles' },
        ids: [],
        limit: 50,
      })
      expect(page).toMatchObject({ total: 0, rows: [], structure: { complete: true } })
    })
  },
)
