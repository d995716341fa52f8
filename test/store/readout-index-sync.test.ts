/**
 * The readout value index kept by sync equals the index built from scratch, row for row: after a
 * first sync of the demo vault from the simulator over HTTP, after an incremental sync that
 * changes values, outliers and a row's batch, after a correction queued in the outbox and sent,
 * and after a change of a readout definition's unit that rebuilds a protocol's cells. "From
 * scratch" is a copy of the same cache file with every index table emptied and every readout row
 * queued, indexed by the same code in one go: what the incremental steps leave must be what a
 * fresh build makes of the same rows.
 */
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OutboxItemView } from '../../src-main/ipc/contract.ts'
import type { Services } from '../../src-main/services/index.ts'
import { ReadoutIndexer } from '../../src-main/store/readout-index.ts'
import type { VaultCache } from '../../src-main/store/vault-cache.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { nextEvent, syncedDemoServices, type Call } from '../services/support.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

/** Each index table, every column, in its key's order (counts of no subjects are no rows). */
const indexTables = {
  readout_values: 'SELECT * FROM readout_values ORDER BY vault_id, row_id, definition_id',
  readout_aggregates:
    'SELECT * FROM readout_aggregates ORDER BY vault_id, level, protocol_id, definition_id, subject_id',
  readout_subjects:
    'SELECT * FROM readout_subjects ORDER BY vault_id, level, protocol_id, subject_id',
  readout_subject_counts: `SELECT * FROM readout_subject_counts WHERE subjects <> 0
    ORDER BY vault_id, level, protocol_id`,
} as const

type IndexTables = Record<keyof typeof indexTables, unknown[][]>

function readIndex(db: Database.Database): IndexTables {
  return Object.fromEntries(
    Object.entries(indexTables).map(([table, sql]) => [table, db.prepare(sql).raw().all()]),
  ) as IndexTables
}

let sim: VaultSim
let services: Services
let dispose: () => Promise<void>
let call: Call
let vaultId: number
let connectionId: string
let cache: VaultCache

beforeAll(async () => {
  ;({ sim, services, dispose, call, vaultId, connectionId, cache } = await syncedDemoServices())
}, 240_000)

afterAll(async () => {
  await dispose?.()
})

async function syncAgain(): Promise<void> {
  const synced = nextEvent(
    services,
    'sync.changed',
    (state) => state.connectionId === connectionId && !state.running,
  )
  await call('sync.start', { connectionId })
  expect((await synced).lastOutcome).toBe('completed')
}

describe('the readout index kept by sync', () => {
  const temporaryDirectory = useTemporaryDirectory()

  /** The cache's index, completed, and the index built from scratch on a copy of the file. */
  async function indexAndScratch(): Promise<{ kept: IndexTables; scratch: IndexTables }> {
    cache.readoutIndex().complete()
    const copy = path.join(temporaryDirectory(), `scratch-${Date.now()}.db`)
    const source = new Database(cache.file, { readonly: true })
    let kept: IndexTables
    try {
      await source.backup(copy)
      kept = readIndex(source)
    } finally {
      source.close()
    }
    const db = new Database(copy)
    try {
      db.exec(`
        DELETE FROM readout_values; DELETE FROM readout_aggregates; DELETE FROM readout_subjects;
        DELETE FROM readout_subject_counts; DELETE FROM readout_group_queue;
        DELETE FROM readout_index_queue;
        INSERT INTO readout_index_queue (vault_id, row_id) SELECT vault_id, id FROM readout_rows;
      `)
      new ReadoutIndexer(db).complete()
      return { kept, scratch: readIndex(db) }
    } finally {
      db.close()
      fs.rmSync(copy, { force: true })
    }
  }

  function expectEqual({ kept, scratch }: { kept: IndexTables; scratch: IndexTables }): void {
    for (const table of Object.keys(indexTables) as (keyof typeof indexTables)[]) {
      expect(kept[table].length, table).toBe(scratch[table].length)
      expect(kept[table], table).toEqual(scratch[table])
    }
    const negative = kept.readout_subject_counts.filter((row) => (row[3] as number) < 0)
    expect(negative).toEqual([])
  }

  const valueOf = (rowId: number) => {
    const db = new Database(cache.file, { readonly: true })
    try {
      return db
        .prepare(
          `SELECT definition_id, number, outlier, batch_id FROM readout_values
             WHERE vault_id = ? AND row_id = ? ORDER BY definition_id`,
        )
        .all(vaultId, rowId) as {
        definition_id: number
        number: number | null
        outlier: number
        batch_id: number | null
      }[]
    } finally {
      db.close()
    }
  }

  /** Detail rows of the demo's kinase protocol with a number, as the simulator holds them. */
  const kinaseRows = () =>
    sim.core.db
      .prepare(
        `SELECT r.id AS rowId, c.definition_id AS definitionId, r.batch_id AS batchId
           FROM readout_rows r JOIN readout_cells c ON c.row_id = r.id
           JOIN protocols p ON p.id = r.protocol_id
          WHERE p.vault_id = ? AND p.name = 'Kinase IC50 (ADP-Glo)' AND r.type = 'detail row'
            AND r.batch_id IS NOT NULL AND c.number_value IS NOT NULL AND c.outlier = 0
          ORDER BY r.id`,
      )
      .all(vaultId) as { rowId: number; definitionId: number; batchId: number }[]

  it('equals the index built from scratch after the first sync', async () => {
    const built = await indexAndScratch()
    expect(built.kept.readout_values.length).toBeGreaterThan(1000)
    expect(built.kept.readout_aggregates.length).toBeGreaterThan(100)
    expectEqual(built)
  }, 120_000)

  it('equals it after an incremental sync changes values, outliers and a batch', async () => {
    const rows = kinaseRows()
    const [changed, outlier, moved] = [rows[0]!, rows[7]!, rows[15]!]
    const otherBatch = rows.find((row) => row.batchId !== moved.batchId)!.batchId
    const now = Math.floor(Date.now() / 1000) + 1
    sim.core.db.transaction(() => {
      sim.core.db
        .prepare(
          'UPDATE readout_cells SET number_value = 123.5 WHERE row_id = ? AND definition_id = ?',
        )
        .run(changed.rowId, changed.definitionId)
      sim.core.db
        .prepare('UPDATE readout_cells SET outlier = 1 WHERE row_id = ? AND definition_id = ?')
        .run(outlier.rowId, outlier.definitionId)
      sim.core.db
        .prepare('UPDATE readout_rows SET batch_id = ? WHERE id = ?')
        .run(otherBatch, moved.rowId)
      sim.core.db
        .prepare('UPDATE readout_rows SET modified_at = ? WHERE id IN (?, ?, ?)')
        .run(now, changed.rowId, outlier.rowId, moved.rowId)
    })()
    await syncAgain()
    const built = await indexAndScratch()
    expectEqual(built)
    // The sync did bring the changes in: the test would see an index that missed them.
    expect(
      valueOf(changed.rowId).find((v) => v.definition_id === changed.definitionId),
    ).toMatchObject({ number: 123.5 })
    expect(
      valueOf(outlier.rowId).find((v) => v.definition_id === outlier.definitionId),
    ).toMatchObject({ outlier: 1 })
    expect(valueOf(moved.rowId)[0]).toMatchObject({ batch_id: otherBatch })
  }, 120_000)

  it('equals it after a correction is queued and sent', async () => {
    const target = kinaseRows()[30]!
    const [item] = await call<OutboxItemView[]>('outbox.queue', {
      connectionId,
      vaultId,
      operation: 'readout.update',
      payload: { row: target.rowId, readouts: { [target.definitionId]: { outlier: true } } },
    })
    services.outbox.start()
    for (let tries = 0; tries < 300 && services.outbox.item(item!.id).state !== 'sent'; tries++) {
      await services.outbox.flush(connectionId)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(services.outbox.item(item!.id).state).toBe('sent')
    await syncAgain()
    const built = await indexAndScratch()
    expectEqual(built)
    expect(
      valueOf(target.rowId).find((v) => v.definition_id === target.definitionId),
    ).toMatchObject({ outlier: 1 })
  }, 120_000)

  it('equals it after a definition changes its unit and the protocol is read again', async () => {
    const target = kinaseRows()[3]!
    const definition = sim.core.db
      .prepare('SELECT id, protocol_id, unit_label FROM readout_definitions WHERE id = ?')
      .get(target.definitionId) as { id: number; protocol_id: number; unit_label: string }
    const before = valueOf(target.rowId).find((v) => v.definition_id === target.definitionId)!
    const now = Math.floor(Date.now() / 1000) + 2
    sim.core.db.transaction(() => {
      sim.core.db
        .prepare("UPDATE readout_definitions SET unit_label = 'nM' WHERE id = ?")
        .run(definition.id)
      sim.core.db
        .prepare('UPDATE protocols SET modified_at = ? WHERE id = ?')
        .run(now, definition.protocol_id)
    })()
    await syncAgain()
    const built = await indexAndScratch()
    expectEqual(built)
    if (definition.unit_label === 'uM') {
      // Numbers given without a unit are taken in the definition's: unchanged, but every cell of
      // the protocol was read again with the new definition.
      expect(valueOf(target.rowId).find((v) => v.definition_id === target.definitionId)).toEqual(
        before,
      )
    }
  }, 180_000)
})
