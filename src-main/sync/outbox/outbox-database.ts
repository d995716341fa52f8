import type Database from 'better-sqlite3'
import type { Migration } from '../../store/migrations.ts'
import { openDatabase } from '../../store/sqlite.ts'

/**
 * The outbox lives in its own file, apart from the connections' caches, so that a damaged cache
 * can be rebuilt without touching queued work. What the UI shows at once (the pending overlay of
 * each item) is a column of the item itself: the change and its queued operation are one row,
 * written in one transaction. Released steps are never edited; a change is a new step.
 */
export const outboxMigrations: readonly Migration[] = [
  (db) =>
    db.exec(`
      CREATE TABLE items (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        connection_id TEXT NOT NULL,
        vault_id INTEGER NOT NULL,
        operation TEXT NOT NULL,
        payload TEXT NOT NULL,
        record_kind TEXT NOT NULL,
        record_id INTEGER,
        record_item INTEGER,
        order_key TEXT NOT NULL,
        overlay TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN
          ('queued', 'sending', 'sent', 'needs_attention', 'conflict', 'uncertain', 'cancelled')),
        in_doubt INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        attempt_started_at INTEGER,
        last_error TEXT,
        last_error_kind TEXT,
        base_modified_at TEXT,
        theirs TEXT,
        snapshot TEXT,
        server_id INTEGER,
        result TEXT,
        following INTEGER NOT NULL DEFAULT 0,
        attachment_path TEXT,
        attachment_name TEXT,
        attachment_size INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX items_by_state ON items (state, next_attempt_at);
      -- The sender's order per connection: items in doubt first, then as queued.
      CREATE INDEX items_by_turn ON items (state, connection_id, in_doubt DESC, id);
      CREATE INDEX items_by_order ON items (order_key, id);
      CREATE INDEX items_by_record ON items (connection_id, vault_id, record_kind, record_id);
      CREATE INDEX items_by_record_item ON items (record_item);
      CREATE TABLE dependencies (
        item_id INTEGER NOT NULL REFERENCES items (id) ON DELETE CASCADE,
        depends_on INTEGER NOT NULL REFERENCES items (id) ON DELETE CASCADE,
        PRIMARY KEY (item_id, depends_on)
      ) WITHOUT ROWID;
      CREATE INDEX dependencies_by_target ON dependencies (depends_on);
      CREATE TABLE sender_lease (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        holder TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        renewed_at INTEGER NOT NULL
      );
    `),
  // Lanes (`lanes.ts`): items a look-up could not tell apart go one at a time. Items queued
  // before are put in the lanes they would have had then (see lanesOfQueuedItems).
  (db) => {
    db.exec(`
      ALTER TABLE items ADD COLUMN lane TEXT;
      CREATE INDEX items_by_lane ON items (lane, id) WHERE lane IS NOT NULL;
    `)
    lanesOfQueuedItems(db)
  },
  // What a queued file's copy held when it was made (its SHA-256), and the file it was copied
  // from: a copy that no longer matches is never sent, and the person is pointed to the original.
  // Items queued before keep NULL (their copies are checked by size only).
  (db) =>
    db.exec(`
      ALTER TABLE items ADD COLUMN attachment_sha256 TEXT;
      ALTER TABLE items ADD COLUMN attachment_source TEXT;
    `),
  // Repairs of a damaged outbox (`outbox-recovery.ts`), kept until the person has read them: the
  // repair happens before any window listens, and a CLI command may have made it. And what an
  // edit's changed members held as the person saw them when it was queued, for records whose
  // copies carry no modified_at to compare (`Operation.baseValues`).
  (db) =>
    db.exec(`
      CREATE TABLE repairs (
        id INTEGER PRIMARY KEY,
        repaired_at INTEGER NOT NULL,
        moved_to TEXT NOT NULL,
        details TEXT NOT NULL,
        recovered INTEGER NOT NULL,
        unresolved INTEGER NOT NULL,
        unreadable INTEGER NOT NULL,
        seen_at INTEGER
      );
      ALTER TABLE items ADD COLUMN base_values TEXT;
    `),
]

export function openOutboxDatabase(file: string): Database.Database {
  return openDatabase(file, outboxMigrations, 'the outbox')
}

interface QueuedItemRow {
  id: number
  connection_id: string
  vault_id: number
  operation: string
  payload: string
  attachment_name: string | null
}

/**
 * The lanes of the items an outbox held before step 2, frozen as lanes.ts and the operations
 * made them when the step was released: later changes to lanes must not re-file items that an
 * older outbox upgrades. A lane is `<connection>/<vault>/<part>`; a record created offline is
 * named by its server id once its item was sent, else `#<item>`. A payload without what its lane
 * is made of (never queued that way: the operation's schema checks it) gets no lane rather than
 * failing the upgrade, which would keep every queued item from being sent.
 */
function lanesOfQueuedItems(db: Database.Database): void {
  const rows = db
    .prepare('SELECT id, connection_id, vault_id, operation, payload, attachment_name FROM items')
    .all() as QueuedItemRow[]
  const serverId = db.prepare('SELECT server_id FROM items WHERE id = ?').pluck()
  const setLane = db.prepare('UPDATE items SET lane = ? WHERE id = ?')
  const recordRef = (ref: unknown): string | null => {
    if (!isObject(ref)) return null
    if ('id' in ref) return String(ref.id)
    if (typeof ref.item !== 'number') return null
    const sent = serverId.get(ref.item) as number | null | undefined
    return String(sent ?? `#${ref.item}`)
  }
  const alike = (what: string, key: unknown) =>
    `new/${what}/${encodeURIComponent(String(key).trim().toLowerCase())}`
  for (const row of rows) {
    const payload = parsedPayload(row.payload)
    if (!isObject(payload)) continue
    let part: string | null = null
    switch (row.operation) {
      case 'file.attach': {
        const target = payload.target
        const ref = isObject(target) ? recordRef(target.ref) : null
        if (isObject(target) && ref !== null) {
          const name = encodeURIComponent(row.attachment_name ?? '')
          part = `file/${String(target.kind)}/${ref}/${name}`
        }
        break
      }
      case 'slurp.create':
        part = alike('import_of_file', row.attachment_name ?? '')
        break
      case 'eln.create':
        part = alike('eln_entry', payload.title)
        break
      case 'collection.create':
        part = alike('collection', payload.name)
        break
      case 'plate.create':
        part = alike('plate', payload.name)
        break
      case 'sample.create':
        part = alike('sample_of_batch', payload.batch_id)
        break
    }
    if (part !== null) {
      setLane.run(`${encodeURIComponent(row.connection_id)}/${row.vault_id}/${part}`, row.id)
    }
  }
}

function parsedPayload(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return null
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
