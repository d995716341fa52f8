/**
 * A search by results is evaluated once for a list's pages, its count and the structure search
 * within it, and kept while nothing it reads changes; what changes its answer drops it: a readout
 * correction queued in the outbox (for a criterion on aggregates), readout rows a sync stores
 * through the cache writer, a batch moved to another molecule. A commit that touches none of
 * these (a backfill, another kind's page) keeps it. Real services on the demo vault synced from
 * the simulator over HTTP; each answer is checked against a search on a fresh connection to the
 * same file, which keeps nothing.
 */
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ResultsLevel } from '../../src-common/analysis/readouts/results-table.ts'
import { utcDay } from '../../src-common/analysis/readouts/criteria.ts'
import type { CachedRecordPage } from '../../src-main/ipc/contract.ts'
import type { Services } from '../../src-main/services/index.ts'
import type { StructurePage } from '../../src-main/services/chem-results.ts'
import { ReadoutQueries } from '../../src-main/store/readout-queries.ts'
import type { VaultCache } from '../../src-main/store/vault-cache.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { syncedDemoServices, type Call } from './support.ts'

let sim: VaultSim
let services: Services
let dispose: () => Promise<void>
let call: Call
let vaultId: number
let connectionId: string
let cache: VaultCache

const kinase = 'Kinase IC50 (ADP-Glo)'
const potent = [`${kinase}: IC50 < 10 uM`]
const inhibiting = [`${kinase}: aggregate % Inhibition > 20`]
const strongest = [`${kinase}: % Inhibition > 100`]

beforeAll(async () => {
  ;({ sim, services, dispose, call, vaultId, connectionId, cache } = await syncedDemoServices())
  await sim.stop()
  cache.readoutIndex().complete()
  await services.chem.buildIndex(connectionId, vaultId)
}, 240_000)

afterAll(async () => {
  await dispose?.()
})

const evaluations = () => cache.results().evaluations
const matching = (texts: readonly string[], level: ResultsLevel = 'molecule') =>
  services.results.matching(connectionId, vaultId, texts, level)

/** The same search on a connection of its own, which has kept nothing, with the same outbox. */
function freshAnswer(
  texts: readonly string[],
  level: ResultsLevel = 'molecule',
): readonly number[] {
  const criteria = services.results.criteria(connectionId, vaultId, texts)
  const pending = services.outbox
    .pendingList(connectionId, vaultId, 'readout_rows')
    .flatMap(({ id, record, state, itemIds }) =>
      id === null ? [] : [{ rowId: id, record, state, itemIds }],
    )
  const db = new Database(cache.file, { readonly: true })
  try {
    return new ReadoutQueries(db).matching(vaultId, criteria, level, utcDay(Date.now()), pending)
  } finally {
    db.close()
  }
}

function kinaseReadouts() {
  const catalogue = services.results.catalogue(connectionId, vaultId).protocols
  const protocol = catalogue.find((entry) => entry.name === kinase)!
  const inhibition = protocol.readouts.find((readout) => readout.name === '% Inhibition')!
  return { protocol, inhibition }
}

function readOnly<T>(read: (db: Database.Database) => T): T {
  const db = new Database(cache.file, { readonly: true })
  try {
    return read(db)
  } finally {
    db.close()
  }
}

describe('a search by results kept between questions', () => {
  it('is evaluated once for the pages, the count and the structure search within it', async () => {
    const before = evaluations()
    const list = (question: Record<string, unknown>) =>
      call<CachedRecordPage & Partial<StructurePage>>('records.list', {
        connectionId,
        vaultId,
        kind: 'molecules',
        results: potent,
        ...question,
      })
    const structure = { kind: 'substructure', query: 'c1ccccc1', language: 'smiles' }
    const first = await list({ structure, limit: 10 })
    const counted = await list({ structure, limit: 10 })
    const second = await list({ structure, limit: 10, offset: 10 })
    const plain = await list({ sort: 'id', limit: 1000 })
    expect(evaluations() - before).toBe(1)
    expect(counted.total).toBeGreaterThan(10)
    expect(second.rows.map((row) => row.id)).not.toEqual(first.rows.map((row) => row.id))
    expect(plain.rows.map((row) => row.id)).toEqual(freshAnswer(potent))

    // Another kind's page, committed by the cache writer, changes the file but not the answer.
    const project = cache.list('projects', vaultId, { limit: 1 }).records[0]!
    await cache.writer.applyPage('projects', vaultId, [{ ...project, name: 'Renamed project' }])
    expect(matching(potent)).toEqual(plain.rows.map((row) => row.id))
    expect(evaluations() - before).toBe(1)
  }, 120_000)

  it('is dropped when a correction of a readout row is queued, for criteria on aggregates', async () => {
    const batches = matching(inhibiting, 'batch')
    expect(batches).toEqual(freshAnswer(inhibiting, 'batch'))
    const { protocol, inhibition } = kinaseReadouts()
    // A batch found by its average whose every well is then marked an outlier offline.
    const batchId = batches[0]!
    const rows = readOnly(
      (db) =>
        db
          .prepare(
            `SELECT DISTINCT row_id FROM readout_values WHERE vault_id = ? AND protocol_id = ?
               AND batch_id = ? AND definition_id = ? AND aggregate_row = 0`,
          )
          .pluck()
          .all(vaultId, protocol.id, batchId, inhibition.id) as number[],
    )
    expect(rows.length).toBeGreaterThan(0)
    const anyRow = matching(potent, 'batch')
    const before = evaluations()
    for (const row of rows) {
      await call('outbox.queue', {
        connectionId,
        vaultId,
        operation: 'readout.update',
        payload: { row, readouts: { [inhibition.id]: { outlier: true } } },
      })
    }
    const corrected = matching(inhibiting, 'batch')
    expect(evaluations() - before).toBe(1)
    expect(corrected).not.toContain(batchId)
    expect(corrected).toEqual(batches.filter((id) => id !== batchId))
    expect(corrected).toEqual(freshAnswer(inhibiting, 'batch'))
    // Any one row still meets a criterion on rows, outlier or not, as the vault's criteria mean
    // it: that answer is kept.
    expect(matching(potent, 'batch')).toEqual(anyRow)
    expect(evaluations() - before).toBe(1)
  }, 120_000)

  it('is dropped when sync stores readout rows, and again as the index takes them in', async () => {
    const before = matching(strongest, 'batch')
    const counted = evaluations()
    // A well of a batch the criterion does not find, stored again above every other.
    const { protocol, inhibition } = kinaseReadouts()
    const found = new Set(before)
    const target = readOnly(
      (db) =>
        db
          .prepare(
            `SELECT r.batch_id AS batchId, r.json FROM readout_rows r
               JOIN readout_values v ON v.vault_id = r.vault_id AND v.row_id = r.id
              WHERE r.vault_id = ? AND r.protocol_id = ? AND v.definition_id = ?
                AND v.kind = 'number' AND r.batch_id IS NOT NULL AND v.aggregate_row = 0`,
          )
          .all(vaultId, protocol.id, inhibition.id) as { batchId: number; json: string }[],
    ).find((row) => !found.has(row.batchId))!
    expect(target).toBeDefined()
    const record = JSON.parse(target.json) as Record<string, unknown>
    const readouts = record.readouts as Record<string, Record<string, unknown>>
    const key = String(inhibition.id)
    await cache.writer.applyPage('readout_rows', vaultId, [
      { ...record, readouts: { ...readouts, [key]: { ...readouts[key], value: 250 } } },
    ])
    // Read again once stored (the writer's worker may be indexing it meanwhile), and again once
    // the index has taken it in.
    expect(matching(strongest, 'batch')).toEqual(freshAnswer(strongest, 'batch'))
    expect(evaluations()).toBe(counted + 1)
    cache.readoutIndex().complete()
    const after = matching(strongest, 'batch')
    expect(after).toEqual([...before, target.batchId].sort((a, b) => a - b))
    expect(after).toEqual(freshAnswer(strongest, 'batch'))
  }, 120_000)

  it('maps batches to their molecules again when a batch moves, and only then', async () => {
    const molecules = matching(potent)
    const batchId = matching(potent, 'batch')[0]!
    const batch = cache.get('batches', vaultId, batchId)!
    const home = readOnly(
      (db) =>
        db
          .prepare('SELECT molecule_id FROM batches WHERE vault_id = ? AND id = ?')
          .pluck()
          .get(vaultId, batchId) as number,
    )
    const elsewhere = cache.ids('molecules', vaultId).find((id) => !molecules.includes(id))!
    expect(elsewhere).toBeDefined()
    const counted = evaluations()
    // Stored again as it is: no batch changed, the answer is kept.
    await cache.writer.applyPage('batches', vaultId, [
      { ...batch, molecule: home, molecule_id: home },
    ])
    expect(matching(potent)).toEqual(molecules)
    expect(evaluations()).toBe(counted)
    try {
      await cache.writer.applyPage('batches', vaultId, [
        { ...batch, molecule: elsewhere, molecule_id: elsewhere },
      ])
      const moved = matching(potent)
      expect(evaluations()).toBe(counted + 1)
      expect(moved).toContain(elsewhere)
      expect(moved).toEqual(freshAnswer(potent))
    } finally {
      await cache.writer.applyPage('batches', vaultId, [
        { ...batch, molecule: home, molecule_id: home },
      ])
    }
    expect(matching(potent)).toEqual(molecules)
  }, 120_000)

  it('scans a changed molecule of a kept answer where the index now holds it', async () => {
    const ring = 'C1CCCCCCCCCCC1'
    const list = async () => {
      const page = await call<CachedRecordPage & Partial<StructurePage>>('records.list', {
        connectionId,
        vaultId,
        kind: 'molecules',
        results: potent,
        structure: { kind: 'substructure', query: ring, language: 'smiles' },
        limit: 100,
      })
      return page.rows.map((row) => row.id)
    }
    const kept = matching(potent)
    expect(Object.isFrozen(kept)).toBe(true)
    expect(await list()).toEqual([])
    // One of the kept answer's molecules is drawn again as the ring: the index gives it a new
    // slot, which the kept scope must reach.
    const moleculeId = kept[0]!
    const {
      molfile: _molfile,
      structure: _structure,
      ...record
    } = cache.get('molecules', vaultId, moleculeId)!
    const counted = evaluations()
    await cache.writer.applyPage('molecules', vaultId, [
      { ...record, cxsmiles: ring, smiles: ring },
    ])
    await services.chem.buildIndex(connectionId, vaultId)
    expect(matching(potent)).toBe(kept)
    expect(await list()).toEqual([moleculeId])
    expect(evaluations()).toBe(counted)
  }, 120_000)
})
