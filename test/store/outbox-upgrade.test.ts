import path from 'node:path'
import type Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openOutboxDatabase, outboxMigrations } from '../../src-main/sync/outbox/outbox-database.ts'
import { OutboxStore } from '../../src-main/sync/outbox/outbox-store.ts'
import {
  databaseAtStep,
  recordedSchema,
  releasedSchemaChanges,
  schemaChanges,
  schemaOf,
} from './fixtures/schema-steps.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

/**
 * Queued work must survive every upgrade of the outbox: an outbox an earlier release left opens
 * at the current step with every item as it was, and with what later steps added (step 2: the
 * lanes of the items already queued, as lanes were made when the step was released; step 3: no
 * digest or original path for the copies of files queued before it).
 */

const currentStep = outboxMigrations.length

interface QueuedItem {
  id: number
  connection: string
  vault: number
  operation: string
  payload: unknown
  state: string
  serverId?: number
  attachmentName?: string
  /** The lane step 2 gives it, written out by hand from lanes.ts as released. */
  lane: string | null
}

const items: QueuedItem[] = [
  {
    id: 1,
    connection: 'c-1',
    vault: 1,
    operation: 'eln.create',
    payload: { title: ' Notes ', project: { id: 3 } },
    state: 'sent',
    serverId: 50,
    lane: 'c-1/1/new/eln_entry/notes',
  },
  {
    id: 2,
    connection: 'c-1',
    vault: 1,
    operation: 'eln.create',
    payload: { title: 'NOTES', project: { id: 3 } },
    state: 'queued',
    lane: 'c-1/1/new/eln_entry/notes',
  },
  {
    id: 3,
    connection: 'c-1',
    vault: 1,
    operation: 'file.attach',
    payload: { target: { kind: 'eln_entry', ref: { item: 1 } } },
    state: 'sending',
    attachmentName: 'a b.csv',
    lane: 'c-1/1/file/eln_entry/50/a%20b.csv',
  },
  {
    id: 4,
    connection: 'c-1',
    vault: 1,
    operation: 'file.attach',
    payload: { target: { kind: 'eln_entry', ref: { item: 2 } } },
    state: 'queued',
    attachmentName: 'a.csv',
    lane: 'c-1/1/file/eln_entry/#2/a.csv',
  },
  {
    id: 5,
    connection: 'c-1',
    vault: 1,
    operation: 'file.attach',
    payload: { target: { kind: 'molecule', ref: { id: 7 } } },
    state: 'sent',
    serverId: 70,
    attachmentName: 'a.csv',
    lane: 'c-1/1/file/molecule/7/a.csv',
  },
  {
    id: 6,
    connection: 'c-1',
    vault: 1,
    operation: 'slurp.create',
    payload: { project_id: 3, mapping_template_id: 9 },
    state: 'queued',
    attachmentName: 'Plate 7.CSV ',
    lane: 'c-1/1/new/import_of_file/plate%207.csv',
  },
  {
    id: 7,
    connection: 'c-1',
    vault: 1,
    operation: 'collection.create',
    payload: { name: 'Hits Ω', molecules: [101, 102] },
    state: 'queued',
    lane: 'c-1/1/new/collection/hits%20%CF%89',
  },
  {
    id: 8,
    connection: 'c-1',
    vault: 1,
    operation: 'plate.create',
    payload: { name: 'P-001', rows: 8, columns: 12 },
    state: 'queued',
    lane: 'c-1/1/new/plate/p-001',
  },
  {
    id: 9,
    connection: 'c-1',
    vault: 1,
    operation: 'sample.create',
    payload: { batch_id: 1001, location_id: 4, units: 'mg', current_amount: 12.5 },
    state: 'queued',
    lane: 'c-1/1/new/sample_of_batch/1001',
  },
  {
    id: 10,
    connection: 'c-1',
    vault: 1,
    operation: 'molecule.update',
    payload: { ref: { id: 101 }, changes: { name: 'Aspirin' } },
    state: 'queued',
    lane: null,
  },
  {
    id: 11,
    connection: 'c-1',
    vault: 1,
    operation: 'readout.update',
    payload: { ref: { id: 500 }, changes: { outlier: true } },
    state: 'needs_attention',
    lane: null,
  },
  {
    id: 12,
    connection: 'Lab Ω',
    vault: 2,
    operation: 'eln.create',
    payload: { title: 'X' },
    state: 'queued',
    lane: 'Lab%20%CE%A9/2/new/eln_entry/x',
  },
  {
    // Never queued like this (the schema checks payloads), but it must not stop the upgrade.
    id: 13,
    connection: 'c-1',
    vault: 1,
    operation: 'file.attach',
    payload: { target: null },
    state: 'needs_attention',
    attachmentName: 'c.csv',
    lane: null,
  },
  {
    id: 14,
    connection: 'c-1',
    vault: 1,
    operation: 'eln.create',
    payload: { title: 'notes ' },
    state: 'queued',
    lane: 'c-1/1/new/eln_entry/notes',
  },
]

/** Item 3 uploads to the entry item 1 created, item 4 to the one item 2 will create. */
const dependencies = [
  { item_id: 3, depends_on: 1 },
  { item_id: 4, depends_on: 2 },
]

function fillStep1(db: Database.Database): void {
  const insert = db.prepare(
    `INSERT INTO items (id, connection_id, vault_id, operation, payload, record_kind, record_id,
       record_item, order_key, overlay, state, in_doubt, attempts, next_attempt_at,
       attempt_started_at, last_error, last_error_kind, base_modified_at, server_id, result,
       attachment_path, attachment_name, attachment_size, created_at, updated_at)
     VALUES (@id, @connection, @vault, @operation, @payload, 'eln_entries', @serverId, @id,
       @orderKey, '{"create":{}}', @state, @inDoubt, @attempts, 0, NULL, @lastError, @lastErrorKind,
       NULL, @serverId, NULL, @attachmentPath, @attachmentName, @attachmentSize, @id, @id)`,
  )
  for (const item of items) {
    insert.run({
      id: item.id,
      connection: item.connection,
      vault: item.vault,
      operation: item.operation,
      payload: JSON.stringify(item.payload),
      state: item.state,
      serverId: item.serverId ?? null,
      orderKey: `record-${item.id}`,
      inDoubt: item.state === 'sending' ? 1 : 0,
      attempts: item.state === 'queued' ? 0 : 1,
      lastError: item.state === 'needs_attention' ? 'The vault refused it: 422' : null,
      lastErrorKind: item.state === 'needs_attention' ? 'validation' : null,
      attachmentPath: item.attachmentName ? `attachments/${item.id}` : null,
      attachmentName: item.attachmentName ?? null,
      attachmentSize: item.attachmentName ? 1024 : null,
    })
  }
  const depend = db.prepare('INSERT INTO dependencies (item_id, depends_on) VALUES (?, ?)')
  for (const { item_id, depends_on } of dependencies) depend.run(item_id, depends_on)
  db.prepare(
    "INSERT INTO sender_lease (id, holder, pid, host, renewed_at) VALUES (1, 'main', 4242, 'lab-pc', 99)",
  ).run()
}

const everything = (db: Database.Database) => ({
  items: db.prepare('SELECT * FROM items ORDER BY id').all() as Record<string, unknown>[],
  dependencies: db.prepare('SELECT * FROM dependencies ORDER BY item_id').all(),
  lease: db.prepare('SELECT * FROM sender_lease').all(),
})

describe('the released steps of the outbox schema', () => {
  const temporaryDirectory = useTemporaryDirectory('vd-outbox-upgrade-')

  it('each leave the schema they left when released', () => {
    expect(schemaChanges(outboxMigrations)).toBe(releasedSchemaChanges('outbox'))
  })

  it('make, in a fresh outbox, the schema that all the recorded changes add up to', () => {
    const db = openOutboxDatabase(path.join(temporaryDirectory(), 'outbox.db'))
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(currentStep)
      expect(schemaOf(db)).toEqual(recordedSchema('outbox'))
    } finally {
      db.close()
    }
  })

  it('upgrade an outbox of step 1 with every item intact, in the lanes lanes.ts gave then', () => {
    const file = path.join(temporaryDirectory(), 'outbox.db')
    const old = databaseAtStep(file, outboxMigrations, 1)
    fillStep1(old)
    const before = everything(old)
    old.close()

    const db = openOutboxDatabase(file)
    try {
      const after = everything(db)
      expect(after.items.map(({ id, lane }) => ({ id, lane }))).toEqual(
        items.map(({ id, lane }) => ({ id, lane })),
      )
      // Step 3 records nothing of copies made before it: they are checked by size alone. Step 4
      // records no base values of edits queued before it: they are checked by modified_at.
      expect(
        after.items.map(
          ({
            lane: _lane,
            attachment_sha256: sha256,
            attachment_source: source,
            base_values: baseValues,
            ...rest
          }) => {
            expect([sha256, source, baseValues]).toEqual([null, null, null])
            return rest
          },
        ),
      ).toEqual(before.items)
      expect(db.prepare('SELECT COUNT(*) FROM repairs').pluck().get()).toBe(0)
      expect(after.dependencies).toEqual(before.dependencies)
      expect(after.lease).toEqual(before.lease)
      expect(db.pragma('user_version', { simple: true })).toBe(currentStep)
      expect(schemaOf(db)).toEqual(recordedSchema('outbox'))

      // The sender reads them: item 14 waits behind item 2 in its lane, item 4 for item 2 itself.
      const store = new OutboxStore(db)
      for (const item of items) expect(store.require(item.id).lane).toBe(item.lane)
      const ready = (connection: string) => store.ready(connection, 1e12, 100).map((i) => i.id)
      expect(ready('c-1')).toEqual([2, 6, 7, 8, 9, 10])
      expect(ready('Lab Ω')).toEqual([12])
    } finally {
      db.close()
    }
  })
})
