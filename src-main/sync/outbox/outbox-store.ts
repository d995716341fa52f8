import { safeErrorText } from '../../shared/error-text.ts'
import Database from 'better-sqlite3'
import { AppError } from '../../shared/app-error.ts'
import type { RecordKindName } from '../../store/record-kinds.ts'
import type { JsonObject } from '../../../src-common/values.ts'
import type { OperationName } from '../../../src-common/outbox/operations.ts'
import {
  canDiscard,
  endOf,
  isSettled,
  outboxStates,
  needsDoubt,
  startsOf,
  unresolvedStates,
  type OutboxEvent,
  type OutboxState,
} from '../../../src-common/outbox/states.ts'
import type { Sent } from './operations/operation.ts'
import type { Attachment, OutboxItem, Snapshot } from './outbox-item.ts'
import type { Overlay } from './overlay.ts'
import { laneKey, offlineLaneRef } from './lanes.ts'
import { WalSync } from './wal-sync.ts'
import {
  identityOf,
  rebuildHolder,
  sameFile,
  type BoundConnection,
  type FileIdentity,
} from './outbox-file.ts'

/** An item as the outbox queues it; the store gives it its id and its place. */
export interface NewItem {
  connectionId: string
  vaultId: number
  operation: OperationName
  payload: JsonObject
  recordKind: RecordKindName
  /** The server id of the record, when it has one. */
  recordId: number | null
  /** The record is created offline: by this new item (`'self'`), or by an earlier item. */
  recordItem: number | 'self' | null
  overlay: Overlay
  baseModifiedAt: string | null
  baseValues?: JsonObject | null
  attachment: Attachment | null
  /** Items that must be sent first. */
  dependsOn: number[]
  /** The operation's part of the item's lane (`lanes.ts`), when it has one. */
  lane?: string | null
}

interface ItemFilter {
  connectionId?: string
  states?: readonly OutboxState[]
  ids?: readonly number[]
  limit?: number
}

type OutboxCounts = Record<OutboxState, number>

interface FailureRecord {
  message: string
  kind: string
}

interface ItemRow {
  id: number
  connection_id: string
  vault_id: number
  operation: OperationName
  payload: string
  record_kind: RecordKindName
  record_id: number | null
  record_item: number | null
  order_key: string
  lane: string | null
  overlay: string
  state: OutboxState
  in_doubt: number
  attempts: number
  next_attempt_at: number
  attempt_started_at: number | null
  last_error: string | null
  last_error_kind: string | null
  base_modified_at: string | null
  base_values: string | null
  theirs: string | null
  snapshot: string | null
  server_id: number | null
  result: string | null
  following: number
  attachment_path: string | null
  attachment_name: string | null
  attachment_size: number | null
  attachment_sha256: string | null
  attachment_source: string | null
  created_at: number
  updated_at: number
}

const sqlList = (states: readonly OutboxState[]) => states.map((state) => `'${state}'`).join(', ')
const unresolvedList = sqlList(unresolvedStates)
const settledList = sqlList(outboxStates.filter(isSettled))

/**
 * The condition of an update that moves an item by one of `events`: it is in a state the
 * transition table lets the move start from (and in doubt, where the move asks for it).
 */
export function moveGuard(events: readonly OutboxEvent[]): string {
  const clauses = events.map((event) => {
    const from = `state IN (${sqlList(startsOf(event))})`
    return needsDoubt(event) ? `(${from} AND in_doubt = 1)` : from
  })
  return clauses.length === 1 ? clauses[0]! : `(${clauses.join(' OR ')})`
}

/** The sender's moves that end an item as stopped for the person, by the state they end in. */
const stoppedBy = {
  needs_attention: 'refused',
  conflict: 'changedOnServer',
  uncertain: 'cannotTell',
} as const satisfies Record<string, OutboxEvent>

/** The person's decisions that queue an item again. */
type Requeue = Extract<OutboxEvent, 'retry' | 'edit' | 'keepMine' | 'itDidNotArrive'>

/**
 * A move the transition table does not allow from the state the item is in: someone (the person,
 * another process) moved it meanwhile, or it never could make that move.
 */
export class MoveRefused extends AppError {
  constructor(id: number, state: OutboxState) {
    super('conflict', `Item ${id} changed meanwhile; it is ${state.replace('_', ' ')}.`)
  }
}

/**
 * The outbox's database refused a write or a sync: a full disk, a read-only data folder, a disk
 * error, a file held by another program or found damaged. What is queued stays as it was (the
 * write that failed was rolled back); the sender waits and tries again.
 */
export class OutboxUnwritable extends AppError {
  constructor(file: string, reason: string, options?: { cause?: unknown }) {
    super(
      'storage',
      `The outbox cannot save changes to ${file}: ${reason}. Nothing queued is lost; sending waits until the outbox can be saved again.`,
      options,
    )
    this.name = 'OutboxUnwritable'
  }
}

/** Result codes of SQLite that say the file or the disk refused, not that a statement is wrong. */
const storageResults: readonly [prefix: string, reason: string][] = [
  ['SQLITE_FULL', 'the disk is full'],
  ['SQLITE_READONLY', 'the data folder or the file is read-only'],
  ['SQLITE_PERM', 'the data folder or the file is not writable'],
  ['SQLITE_CANTOPEN', 'a file of the outbox cannot be opened (is the data folder writable?)'],
  ['SQLITE_IOERR', 'the disk reported an error'],
  ['SQLITE_NOLFS', 'the disk cannot hold a file this large'],
  ['SQLITE_BUSY', 'another program holds the outbox'],
  ['SQLITE_LOCKED', 'another program holds the outbox'],
  ['SQLITE_CORRUPT', 'the outbox file is damaged (it is repaired at the next start)'],
  ['SQLITE_NOTADB', 'the outbox file is damaged (it is repaired at the next start)'],
]

/**
 * The error as an `OutboxUnwritable` when it is one of the file or the disk (a SQLite result
 * above, a failed sync of the WAL), else null: an error of a statement is a bug, not a storage
 * fault.
 */
export function unwritable(error: unknown, file: string): OutboxUnwritable | null {
  if (error instanceof OutboxUnwritable) return error
  if (!(error instanceof Database.SqliteError)) return null
  const match = storageResults.find(([prefix]) => error.code.startsWith(prefix))
  if (!match) return null
  return new OutboxUnwritable(file, `${match[1]} (${error.message})`, { cause: error })
}

/** The item's lane holds an earlier item waiting its turn or under way: it waits. */
const laneBusy = `i.lane IS NOT NULL AND EXISTS (SELECT 1 FROM items AS l INDEXED BY items_by_lane
  WHERE l.lane = i.lane AND l.id < i.id AND l.state IN ('queued', 'sending'))`

/** Items of one record are sent in the order they were queued: this is that record. */
function orderKey(
  connectionId: string,
  vaultId: number,
  kind: string,
  recordId: number | null,
  recordItem: number | null,
): string {
  const record = recordId !== null ? String(recordId) : `#${recordItem}`
  return `${connectionId}/${vaultId}/${kind}/${record}`
}

/**
 * The file an outbox store is on, for a store that must notice when another process replaces it
 * (outbox-file.ts): a store without one (in memory) never looks.
 */
export interface OutboxFileBinding {
  file: string
  /** The file the store's connection is on. */
  identity: FileIdentity
  /** Opens the file now at `file`. */
  reopen(): BoundConnection
  /** The store now reads and writes the file another process put in the old one's place. */
  onFollowed?(): void
}

/** A write transaction found its connection's file replaced: it is made again on the new one. */
class FileReplaced extends Error {}

/** Replacements followed by one write before it gives up (another process rebuilding in a loop). */
const followsPerWrite = 3

/**
 * Every read and write of the outbox database; each method is one transaction. Writes take the
 * write lock first (BEGIN IMMEDIATE) and then make sure the connection's file is still the one
 * at the path: once another process has put a rebuilt file there, a write to the old one would
 * be lost with it, so the store opens the new file and writes there (`OutboxFileBinding`).
 */
export class OutboxStore {
  #db: Database.Database
  readonly #statements = new Map<string, Database.Statement>()
  /** Syncs of the WAL off the event loop; null where commits must wait for their own (FULL). */
  #walSync: WalSync | null
  readonly #binding: OutboxFileBinding | null

  constructor(db: Database.Database, binding?: OutboxFileBinding) {
    this.#db = db
    this.#walSync = WalSync.of(db)
    this.#binding = binding ?? null
  }

  /**
   * Goes over to the file now at the outbox's path when it is not the connection's (another
   * process replaced it): true when it did. Not inside a transaction, which stays on its file.
   * One stat; writes do it themselves, readers that must not show a replaced file's items ask.
   */
  followIfReplaced(): boolean {
    if (this.#db.inTransaction || !this.#replaced()) return false
    this.#follow()
    return true
  }

  /**
   * Who is repairing the outbox's file in another process now (null when nobody is, or the store
   * is in memory). Such a repair holds SQLite's write lock on the file until the repaired one is
   * in place: a write started meanwhile stands its thread still until then (up to the busy
   * timeout), so background work asks first and comes back later. One stat when nobody repairs.
   */
  repairHolder(): string | null {
    return this.#binding ? rebuildHolder(this.#binding.file) : null
  }

  /** Whether the path names another file than the connection's (not: no file at all). */
  #replaced(): boolean {
    const binding = this.#binding
    if (!binding) return false
    const now = identityOf(binding.file)
    return now !== null && !sameFile(now, binding.identity)
  }

  /**
   * Reads and writes go to the file now at the path. The connection to the replaced file is
   * closed: SQLite sees it moved, and neither checkpoints into it nor removes the new file's WAL.
   */
  #follow(): void {
    const binding = this.#binding!
    const opened = binding.reopen()
    const old = this.#db
    const walSync = this.#walSync
    this.#db = opened.db
    binding.identity = opened.identity ?? binding.identity
    this.#statements.clear()
    this.#walSync = WalSync.of(opened.db)
    walSync?.close().catch(() => {})
    try {
      old.close()
    } catch {
      // Closed already, or its file is gone: nothing more is read from it.
    }
    binding.onFollowed?.()
  }

  /** Statements are prepared once: preparing costs more than running most of them. */
  #prepare(sql: string): Database.Statement {
    let statement = this.#statements.get(sql)
    if (!statement) {
      statement = this.#db.prepare(sql)
      this.#statements.set(sql, statement)
    }
    return statement
  }

  get database(): Database.Database {
    return this.#db
  }

  /**
   * A write transaction (inside the caller's, when there is one), made on the file now at the
   * outbox's path (see the class).
   */
  transaction<T>(work: () => T): T {
    return this.#write(work, false)
  }

  /**
   * A transaction synced to disk before it returns (PRAGMA synchronous FULL), for the commits
   * whose loss in a power cut would lose queued work (and, where the WAL cannot be synced apart,
   * forget that a request was about to leave: see `markSending`). Other commits only record
   * outcomes: lost, they leave an item in doubt, which is looked up.
   */
  durably<T>(work: () => T): T {
    return this.#write(work, true)
  }

  #write<T>(work: () => T, durable: boolean): T {
    if (this.#db.inTransaction) return this.#db.transaction(work)()
    for (let follows = 0; ; follows++) {
      const db = this.#db
      let replaced = false
      if (durable) db.pragma('synchronous = FULL')
      try {
        return db
          .transaction(() => {
            // Under the write lock: a rebuild that replaces the file holds it until it has.
            if (this.#replaced()) {
              replaced = true
              throw new FileReplaced()
            }
            return work()
          })
          .immediate()
      } catch (error) {
        // A transaction that could not even start on the old file (its damage) may go on the new.
        if (!replaced && !(error instanceof Database.SqliteError && this.#replaced())) throw error
        if (follows >= followsPerWrite) {
          throw new OutboxUnwritable(db.name, 'another process keeps replacing the outbox file')
        }
      } finally {
        if (durable) {
          try {
            db.pragma('synchronous = NORMAL')
          } catch {
            // The connection is being left for the new file.
          }
        }
      }
      this.#follow()
    }
  }

  /**
   * Resolves once every commit made so far is on disk (see `markSending`). Callers waiting at
   * the same time share one sync of the WAL, made off the event loop.
   */
  async synced(): Promise<void> {
    if (!this.#walSync) return // every durable commit was synced as it was made
    try {
      await this.#walSync.synced()
    } catch (error) {
      throw new OutboxUnwritable(
        this.#db.name,
        `the disk did not take it (${(error as Error).message})`,
        { cause: error },
      )
    }
  }

  /** Lets go of the WAL file; the database is closed after. */
  async close(): Promise<void> {
    await this.#walSync?.close()
  }

  /** Queues an item (in the caller's transaction when there is one). */
  insert(item: NewItem, now: number): OutboxItem {
    return this.durably(() => {
      const insert = this.#prepare(
        `INSERT INTO items (connection_id, vault_id, operation, payload, record_kind, record_id,
           record_item, order_key, lane, overlay, state, next_attempt_at, base_modified_at,
           base_values, attachment_path, attachment_name, attachment_size, attachment_sha256,
           attachment_source, created_at, updated_at)
         VALUES (@connectionId, @vaultId, @operation, @payload, @recordKind, @recordId, NULL, '',
           @lane, @overlay, 'queued', @now, @baseModifiedAt, @baseValues, @attachmentPath,
           @attachmentName, @attachmentSize, @attachmentSha256, @attachmentSource, @now, @now)`,
      )
      const depend = this.#prepare(
        'INSERT OR IGNORE INTO dependencies (item_id, depends_on) VALUES (?, ?)',
      )
      const id = Number(
        insert.run({
          connectionId: item.connectionId,
          vaultId: item.vaultId,
          operation: item.operation,
          payload: JSON.stringify(item.payload),
          recordKind: item.recordKind,
          recordId: item.recordId,
          lane: item.lane ? laneKey(item.connectionId, item.vaultId, item.lane) : null,
          overlay: JSON.stringify(item.overlay),
          now,
          baseModifiedAt: item.baseModifiedAt,
          baseValues: item.baseValues ? JSON.stringify(item.baseValues) : null,
          attachmentPath: item.attachment?.path ?? null,
          attachmentName: item.attachment?.name ?? null,
          attachmentSize: item.attachment?.size ?? null,
          attachmentSha256: item.attachment?.sha256 ?? null,
          attachmentSource: item.attachment?.source ?? null,
        }).lastInsertRowid,
      )
      const recordItem = item.recordItem === 'self' ? id : item.recordItem
      this.#prepare('UPDATE items SET record_item = ?, order_key = ? WHERE id = ?').run(
        recordItem,
        orderKey(item.connectionId, item.vaultId, item.recordKind, item.recordId, recordItem),
        id,
      )
      for (const dependency of item.dependsOn) depend.run(id, dependency)
      return this.require(id)
    })
  }

  get(id: number): OutboxItem | null {
    const row = this.#prepare('SELECT * FROM items WHERE id = ?').get(id) as ItemRow | undefined
    return row ? toItem(row) : null
  }

  require(id: number): OutboxItem {
    const item = this.get(id)
    if (!item) throw new AppError('not_found', `The outbox has no item ${id}.`)
    return item
  }

  list(filter: ItemFilter = {}): OutboxItem[] {
    const where: string[] = []
    const args: unknown[] = []
    if (filter.connectionId !== undefined) {
      where.push('connection_id = ?')
      args.push(filter.connectionId)
    }
    if (filter.states) {
      where.push('state IN (SELECT value FROM json_each(?))')
      args.push(JSON.stringify(filter.states))
    }
    if (filter.ids) {
      where.push('id IN (SELECT value FROM json_each(?))')
      args.push(JSON.stringify(filter.ids))
    }
    const sql = `SELECT * FROM items${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
      ORDER BY id${filter.limit !== undefined ? ' LIMIT ?' : ''}`
    if (filter.limit !== undefined) args.push(filter.limit)
    return (this.#prepare(sql).all(...args) as ItemRow[]).map(toItem)
  }

  counts(connectionId?: string): OutboxCounts {
    const rows = this.#prepare(
      `SELECT state, COUNT(*) AS count FROM items WHERE (? IS NULL OR connection_id = ?)
         GROUP BY state`,
    ).all(connectionId ?? null, connectionId ?? null) as { state: OutboxState; count: number }[]
    return countsOf(rows)
  }

  /**
   * The counts of the unresolved states (the others are 0): read through the state index, so
   * that the history of sent items does not make them slower.
   */
  unresolvedCounts(connectionId?: string): OutboxCounts {
    const rows = (
      connectionId === undefined
        ? this.#prepare(
            `SELECT state, COUNT(*) AS count FROM items INDEXED BY items_by_state
               WHERE state IN (${unresolvedList}) GROUP BY state`,
          ).all()
        : this.#prepare(
            `SELECT state, COUNT(*) AS count FROM items INDEXED BY items_by_turn
               WHERE state IN (${unresolvedList}) AND connection_id = ? GROUP BY state`,
          ).all(connectionId)
    ) as { state: OutboxState; count: number }[]
    return countsOf(rows)
  }

  /** The ids of the items in a state (of a connection, or all), in no order. */
  idsIn(state: OutboxState, connectionId?: string): number[] {
    const rows = (
      connectionId === undefined
        ? this.#prepare('SELECT id FROM items INDEXED BY items_by_state WHERE state = ?').all(state)
        : this.#prepare(
            `SELECT id FROM items INDEXED BY items_by_turn
               WHERE state = ? AND connection_id = (SELECT ?)`,
          ).all(state, connectionId)
    ) as { id: number }[]
    return rows.map((row) => row.id)
  }

  /** Items waiting for the person or the network: what the top bar counts. */
  unresolvedCount(): number {
    const row = this.#prepare(
      `SELECT COUNT(*) AS count FROM items WHERE state IN (${unresolvedList})`,
    ).get() as { count: number }
    return row.count
  }

  /**
   * Connections with queued items: one step of the state index per connection, however many
   * items are queued (the sender asks after every item).
   */
  queuedConnections(): string[] {
    const rows = this.#prepare(
      `WITH RECURSIVE queued (connection_id) AS (
         SELECT MIN(connection_id) FROM items INDEXED BY items_by_turn WHERE state = 'queued'
         UNION ALL
         SELECT (SELECT MIN(connection_id) FROM items INDEXED BY items_by_turn
                   WHERE state = 'queued' AND connection_id > queued.connection_id)
           FROM queued WHERE queued.connection_id IS NOT NULL)
       SELECT connection_id FROM queued WHERE connection_id IS NOT NULL`,
    ).all() as { connection_id: string }[]
    return rows.map((row) => row.connection_id)
  }

  /**
   * A connection's items that may be sent now: queued and due, first of their record among the
   * unresolved, first of their lane among those queued or sending, with every dependency sent.
   * Items that may have arrived already come first.
   */
  ready(connectionId: string, now: number, limit: number): OutboxItem[] {
    // The connection and the limit are read through scalar subqueries: a bound value that SQLite
    // sees while planning (its STAT4 build, here `= ?` and `LIMIT ?`) has the statement planned
    // again at every run, which costs far more than the query itself (the sender asks after every
    // item; bench/README.md).
    const rows = this.#prepare(
      `SELECT * FROM items AS i INDEXED BY items_by_turn
         WHERE i.state = 'queued' AND i.connection_id = (SELECT @connectionId)
           AND i.next_attempt_at <= @now
           AND NOT EXISTS (SELECT 1 FROM items AS e WHERE e.order_key = i.order_key
             AND e.id < i.id AND e.state IN (${unresolvedList}))
           AND NOT EXISTS (SELECT 1 FROM dependencies AS d JOIN items AS p ON p.id = d.depends_on
             WHERE d.item_id = i.id AND p.state <> 'sent')
           AND NOT (${laneBusy})
         ORDER BY i.in_doubt DESC, i.id LIMIT (SELECT @limit)`,
    ).all({ connectionId, now, limit }) as ItemRow[]
    return rows.map(toItem)
  }

  /**
   * When the earliest queued item is next due (of those due after `after`, when given), or null
   * when none is.
   */
  nextDueAt(after?: number): number | null {
    const row = (
      after === undefined
        ? this.#prepare(
            `SELECT MIN(next_attempt_at) AS due FROM items WHERE state = 'queued'`,
          ).get()
        : this.#prepare(
            `SELECT MIN(next_attempt_at) AS due FROM items INDEXED BY items_by_state
               WHERE state = 'queued' AND next_attempt_at > ?`,
          ).get(after)
    ) as { due: number | null }
    return row.due
  }

  /**
   * Committed before any request of the attempt that may change the server leaves, and on disk
   * once `synced()` resolves, which the sender awaits before the request: a crash from here on is
   * in doubt. (Where the WAL cannot be synced apart, the commit itself is synced.) The look-ups
   * before it (the snapshot, the conflict check) change nothing; the snapshot they took is saved
   * here, with the state. Refused (`MoveRefused`) when the item changed since it was read
   * (discarded or edited meanwhile).
   */
  markSending(
    id: number,
    now: number,
    seen: { updatedAt: number; snapshot?: Snapshot },
  ): OutboxItem {
    const commit = this.#walSync ? this.transaction.bind(this) : this.durably.bind(this)
    commit(() =>
      this.#move(
        id,
        ['attempt'],
        `attempts = attempts + 1, attempt_started_at = @now,
         snapshot = COALESCE(@snapshot, snapshot), updated_at = @now`,
        {
          now,
          seen: seen.updatedAt,
          snapshot: seen.snapshot ? JSON.stringify(seen.snapshot) : null,
        },
        'updated_at = @seen',
      ),
    )
    return this.require(id)
  }

  /**
   * The server answered the attempt under way: only an item in `sending` (the attempt that is
   * answered committed it so) is moved; one that another process or the person moved meanwhile
   * (in doubt again after a lost lease, discarded) is refused (`MoveRefused`). Its answer is kept, a record it created
   * gets its server id in every item that names it (and in their lanes), and later edits of the
   * record are rebased on the answer's modified_at.
   */
  markSent(id: number, sent: Sent, now: number): OutboxItem {
    return this.#markSent(id, ['answered'], sent, now, undefined)
  }

  /**
   * A look-up found that an earlier attempt of an item in doubt (queued, nothing under way)
   * arrived; kept as `markSent` keeps an answer. With `exclusive` (a record found among those the
   * server lists rather than by an id of its own), refused (AppError 'conflict') when another
   * item already accounts for that record, as recorded since `exclusive.since` (always, when
   * null): one record never accounts for two items. Refused (`MoveRefused`) for an item in any
   * other state: one the person discarded while it was looked up stays discarded.
   */
  markFoundArrived(
    id: number,
    sent: Sent,
    now: number,
    exclusive?: { since: number | null },
  ): OutboxItem {
    return this.#markSent(id, ['foundArrived'], sent, now, exclusive)
  }

  /**
   * The person says that an uncertain item arrived (with the server id, when known); refused as
   * `markSent` refuses, when another item accounts for that record since `since`.
   */
  markArrived(id: number, serverId: number | null, now: number, since: number): OutboxItem {
    return this.#markSent(id, ['itArrived'], { serverId, record: null }, now, { since })
  }

  #markSent(
    id: number,
    events: readonly OutboxEvent[],
    sent: Sent,
    now: number,
    exclusive: { since: number | null } | undefined,
  ): OutboxItem {
    return this.transaction(() => {
      const item = this.require(id)
      if (exclusive && sent.serverId !== null) {
        const holders = this.claimedByOthers(item, [sent.serverId], exclusive.since)
        if (holders.size > 0) {
          throw new AppError(
            'conflict',
            `The ${item.recordKind.replace(/_/g, ' ')} record ${sent.serverId} is already accounted for by another item.`,
          )
        }
      }
      this.#move(
        id,
        events,
        `in_doubt = 0, server_id = @serverId, result = @result,
         following = @following, last_error = NULL, last_error_kind = NULL, theirs = NULL,
         updated_at = @now`,
        {
          serverId: sent.serverId,
          result: sent.record ? JSON.stringify(sent.record) : null,
          following: sent.follow ? 1 : 0,
          now,
        },
      )
      let key = item.orderKey
      if (item.recordItem === id && sent.serverId !== null) {
        key = orderKey(item.connectionId, item.vaultId, item.recordKind, sent.serverId, null)
        this.#prepare('UPDATE items SET record_id = ?, order_key = ? WHERE record_item = ?').run(
          sent.serverId,
          key,
          id,
        )
        this.#prepare(
          `UPDATE items SET lane = replace(lane, @offline, @known) WHERE lane IS NOT NULL
             AND id IN (SELECT item_id FROM dependencies WHERE depends_on = @id)`,
        ).run({ id, offline: `/${offlineLaneRef(id)}/`, known: `/${sent.serverId}/` })
      }
      if (sent.modifiedAt) {
        this.#prepare(
          `UPDATE items SET base_modified_at = ? WHERE order_key = ? AND id > ?
           AND state IN (${unresolvedList}) AND base_modified_at IS ?`,
        ).run(sent.modifiedAt, key, id, item.baseModifiedAt)
      }
      return this.require(id)
    })
  }

  /**
   * Back in the queue for a later attempt, keeping its place among its record's items. An attempt
   * that failed before `markSending` (in its look-ups) is counted here.
   */
  markRetry(
    id: number,
    failure: FailureRecord,
    retry: { nextAttemptAt: number; inDoubt: boolean; countAttempt: boolean },
    now: number,
  ): void {
    this.#move(
      id,
      ['retryLater'],
      `in_doubt = @inDoubt, next_attempt_at = @nextAttemptAt,
       attempts = attempts + @counted, last_error = @message, last_error_kind = @kind,
       updated_at = @now`,
      {
        counted: retry.countAttempt ? 1 : 0,
        inDoubt: retry.inDoubt ? 1 : 0,
        nextAttemptAt: retry.nextAttemptAt,
        message: failure.message,
        kind: failure.kind,
        now,
      },
    )
  }

  /**
   * Stopped until the person decides: refused (needs attention), conflict or uncertain. An item
   * stopped while in doubt stays in doubt: if sent again, it is looked up first.
   */
  markStopped(
    id: number,
    state: 'needs_attention' | 'conflict' | 'uncertain',
    failure: FailureRecord,
    now: number,
    extra: { theirs?: JsonObject; inDoubt?: boolean } = {},
  ): void {
    this.#move(
      id,
      [stoppedBy[state]],
      `in_doubt = @inDoubt, last_error = @message, last_error_kind = @kind, theirs = @theirs,
       updated_at = @now`,
      {
        inDoubt: (extra.inDoubt ?? state === 'uncertain') ? 1 : 0,
        message: failure.message,
        kind: failure.kind,
        theirs: extra.theirs ? JSON.stringify(extra.theirs) : null,
        now,
      },
    )
  }

  /**
   * Queued again, due now, by the person's decision: a retry, an edit, their version kept in a
   * conflict, or an uncertain item sent again (then no longer looked up first: the person saw it
   * did not arrive).
   */
  requeue(
    id: number,
    decision: Requeue,
    now: number,
    changes: {
      payload?: JsonObject
      overlay?: Overlay
      baseModifiedAt?: string | null
      baseValues?: JsonObject | null
      /** The operation's part of the lane (an edited payload may change it). */
      lane?: string | null
    } = {},
  ): OutboxItem {
    const sets = [
      'next_attempt_at = @now',
      'last_error = NULL',
      'last_error_kind = NULL',
      'theirs = NULL',
      'updated_at = @now',
    ]
    if (decision === 'itDidNotArrive') sets.push('in_doubt = 0')
    const values: Record<string, unknown> = { now }
    if (changes.payload) {
      sets.push('payload = @payload')
      values.payload = JSON.stringify(changes.payload)
    }
    if (changes.overlay) {
      sets.push('overlay = @overlay')
      values.overlay = JSON.stringify(changes.overlay)
    }
    if (changes.baseModifiedAt !== undefined) {
      sets.push('base_modified_at = @base')
      values.base = changes.baseModifiedAt
    }
    if (changes.baseValues !== undefined) {
      sets.push('base_values = @baseValues')
      values.baseValues = changes.baseValues ? JSON.stringify(changes.baseValues) : null
    }
    if (changes.lane !== undefined) {
      const item = this.require(id)
      sets.push('lane = @lane')
      values.lane = changes.lane && laneKey(item.connectionId, item.vaultId, changes.lane)
    }
    this.#move(id, [decision], sets.join(', '), values)
    return this.require(id)
  }

  /** Discards an item and every item that depends on it; returns the ids discarded. */
  cancel(id: number, now: number): number[] {
    return this.transaction(() => {
      const cancelled: number[] = []
      const pending = [id]
      while (pending.length > 0) {
        const next = pending.pop()!
        const item = this.require(next)
        if (isSettled(item.state)) continue
        if (!canDiscard(item.state)) {
          throw new AppError(
            'conflict',
            `Item ${next} is being sent; discard it when the attempt is over.`,
          )
        }
        this.#move(next, ['discard'], 'following = 0, updated_at = @now', { now })
        cancelled.push(next)
        const dependents = this.#prepare(
          `SELECT item_id FROM dependencies WHERE depends_on = ?
             UNION SELECT id FROM items WHERE record_item = ? AND id <> ?`,
        ).all(next, next, next) as { item_id: number }[]
        pending.push(...dependents.map((row) => row.item_id))
      }
      return cancelled
    })
  }

  /**
   * Items left in "sending" by a process that died, or by attempts of this one whose outcome
   * could not be written (all but those of `under way`): their attempts may have arrived.
   */
  recoverInterrupted(now: number, underWay: readonly number[] = []): number[] {
    return this.transaction(() => {
      const interrupted = `${moveGuard(['interrupted'])}
        AND id NOT IN (SELECT value FROM json_each(@underWay))`
      const values = { now, underWay: JSON.stringify(underWay) }
      const rows = this.#prepare(`SELECT id FROM items WHERE ${interrupted}`).all(values) as {
        id: number
      }[]
      this.#prepare(
        `UPDATE items SET state = '${endOf('interrupted')}', in_doubt = 1, next_attempt_at = @now,
           updated_at = @now WHERE ${interrupted}`,
      ).run(values)
      return rows.map((row) => row.id)
    })
  }

  /** Sends everything queued of a connection (or all) now, however long its backoff. */
  makeDue(now: number, connectionId?: string): void {
    this.#statement(() =>
      this.#prepare(
        `UPDATE items SET next_attempt_at = ? WHERE state = 'queued' AND next_attempt_at > ?
           AND (? IS NULL OR connection_id = ?)`,
      ).run(now, now, connectionId ?? null, connectionId ?? null),
    )
  }

  following(): OutboxItem[] {
    const rows = this.#prepare(
      `SELECT * FROM items INDEXED BY items_by_state WHERE state = 'sent' AND following = 1
         ORDER BY id`,
    ).all() as ItemRow[]
    return rows.map(toItem)
  }

  updateResult(id: number, result: JsonObject, following: boolean, now: number): void {
    this.#update(id, 'result = @result, following = @following, updated_at = @now', {
      result: JSON.stringify(result),
      following: following ? 1 : 0,
      now,
    })
  }

  /** Unresolved items of one record, oldest first (the record created offline included). */
  itemsOfRecord(
    connectionId: string,
    vaultId: number,
    kind: RecordKindName,
    ref: { id: number } | { item: number },
  ): OutboxItem[] {
    // Values through scalar subqueries, as in `ready`: read paths ask for every record shown.
    const rows = this.#prepare(
      `SELECT * FROM items WHERE connection_id = (SELECT ?) AND vault_id = (SELECT ?)
         AND record_kind = (SELECT ?) AND ${'id' in ref ? 'record_id' : 'record_item'} = (SELECT ?)
         AND state IN (${unresolvedList}) ORDER BY id`,
    ).all(connectionId, vaultId, kind, 'id' in ref ? ref.id : ref.item) as ItemRow[]
    return rows.map(toItem)
  }

  /** Unresolved items of every record of a kind, oldest first. */
  itemsOfKind(connectionId: string, vaultId: number, kind: RecordKindName): OutboxItem[] {
    const rows = this.#prepare(
      `SELECT * FROM items WHERE connection_id = (SELECT ?) AND vault_id = (SELECT ?)
         AND record_kind = (SELECT ?) AND state IN (${unresolvedList}) ORDER BY id`,
    ).all(connectionId, vaultId, kind) as ItemRow[]
    return rows.map(toItem)
  }

  /** Copies of files still needed: those of items not sent or discarded. */
  attachmentPaths(): Set<string> {
    const rows = this.#prepare(
      `SELECT attachment_path FROM items WHERE attachment_path IS NOT NULL
         AND state IN (${unresolvedList})`,
    ).all() as { attachment_path: string }[]
    return new Set(rows.map((row) => row.attachment_path))
  }

  /**
   * Forgets sent and discarded items last changed before `before`, unless an unresolved item
   * still needs one to learn a server id, or shares its lane (what a sent upload accounts for is
   * how a later one of its lane, in doubt, is told apart from it).
   */
  prune(before: number): number {
    const sql = `DELETE FROM items WHERE state IN (${settledList}) AND following = 0
         AND updated_at < ?
         AND NOT EXISTS (SELECT 1 FROM dependencies AS d JOIN items AS o ON o.id = d.item_id
           WHERE d.depends_on = items.id AND o.state IN (${unresolvedList}))
         AND NOT EXISTS (SELECT 1 FROM items AS o WHERE o.record_item = items.id
           AND o.id <> items.id AND o.state IN (${unresolvedList}))
         AND (lane IS NULL OR NOT EXISTS (SELECT 1 FROM items AS o INDEXED BY items_by_lane
           WHERE o.lane = items.lane AND o.state IN (${unresolvedList})))`
    // Prepared inside: a write may go over to a rebuilt file first.
    return this.#statement(() => this.#prepare(sql).run(before).changes)
  }

  /**
   * Of these server ids of records of the item's kind (in its connection and vault), those that
   * other items created or were found to have created: they account for them. Only what was
   * recorded since `since` counts, when given (a server may give a deleted record's id again).
   */
  claimedByOthers(
    item: OutboxItem,
    serverIds: readonly number[],
    since: number | null,
  ): Set<number> {
    if (serverIds.length === 0) return new Set()
    const rows = this.#prepare(
      `SELECT DISTINCT record_id FROM items INDEXED BY items_by_record
         WHERE connection_id = @connectionId AND vault_id = @vaultId AND record_kind = @kind
           AND record_id IN (SELECT value FROM json_each(@ids)) AND record_item = id AND id <> @id
           AND state <> 'cancelled' AND (@since IS NULL OR updated_at >= @since)`,
    ).all({
      connectionId: item.connectionId,
      vaultId: item.vaultId,
      kind: item.recordKind,
      ids: JSON.stringify(serverIds),
      id: item.id,
      since,
    }) as { record_id: number }[]
    return new Set(rows.map((row) => row.record_id))
  }

  /** The other unresolved items of the item's lane whose attempts may have arrived. */
  inDoubtInLane(item: OutboxItem): OutboxItem[] {
    if (item.lane === null) return []
    const rows = this.#prepare(
      `SELECT * FROM items INDEXED BY items_by_lane WHERE lane = ? AND id <> ? AND in_doubt = 1
         AND state IN (${unresolvedList}) ORDER BY id`,
    ).all(item.lane, item.id) as ItemRow[]
    return rows.map(toItem)
  }

  /** Changes an item without moving it (what a followed import answered). */
  #update(id: number, sets: string, values: Record<string, unknown>): void {
    this.#statement(() => {
      const { changes } = this.#prepare(`UPDATE items SET ${sets} WHERE id = @id`).run({
        ...values,
        id,
      })
      if (changes === 0) this.require(id)
    })
  }

  /** A write of its own (see `transaction`), or a part of the caller's transaction. */
  #statement<T>(work: () => T): T {
    return this.#db.inTransaction ? work() : this.#write(work, false)
  }

  /**
   * Moves an item by one of `events` (which end in one state) to the state the transition table
   * gives, only from a state the table starts them from (and only while `also` holds); refused
   * (`MoveRefused`) otherwise.
   */
  #move(
    id: number,
    events: readonly OutboxEvent[],
    sets: string,
    values: Record<string, unknown>,
    also?: string,
  ): void {
    const to = endOf(events[0]!)
    if (events.some((event) => endOf(event) !== to)) {
      throw new Error(`The moves ${events.join(', ')} do not end in one state.`)
    }
    const guard = also ? `${moveGuard(events)} AND ${also}` : moveGuard(events)
    this.#statement(() => {
      const { changes } = this.#prepare(
        `UPDATE items SET state = '${to}', ${sets} WHERE id = @id AND ${guard}`,
      ).run({ ...values, id })
      if (changes === 0) throw new MoveRefused(id, this.require(id).state)
    })
  }
}

function countsOf(rows: readonly { state: OutboxState; count: number }[]): OutboxCounts {
  const counts = Object.fromEntries(outboxStates.map((state) => [state, 0])) as OutboxCounts
  for (const row of rows) counts[row.state] = row.count
  return counts
}

function parse<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T)
}

function toItem(row: ItemRow): OutboxItem {
  return {
    id: row.id,
    connectionId: row.connection_id,
    vaultId: row.vault_id,
    operation: row.operation,
    payload: JSON.parse(row.payload) as JsonObject,
    recordKind: row.record_kind,
    recordId: row.record_id,
    recordItem: row.record_item,
    orderKey: row.order_key,
    lane: row.lane,
    overlay: JSON.parse(row.overlay) as Overlay,
    state: row.state,
    inDoubt: row.in_doubt === 1,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    attemptStartedAt: row.attempt_started_at,
    // Stored by an older version, or before this process learnt the token it may hold.
    lastError: row.last_error === null ? null : safeErrorText(row.last_error),
    lastErrorKind: row.last_error_kind,
    baseModifiedAt: row.base_modified_at,
    baseValues: parse<JsonObject>(row.base_values),
    theirs: parse<JsonObject>(row.theirs),
    snapshot: parse<Snapshot>(row.snapshot),
    serverId: row.server_id,
    result: parse<JsonObject>(row.result),
    following: row.following === 1,
    attachment:
      row.attachment_path !== null
        ? {
            path: row.attachment_path,
            name: row.attachment_name ?? '',
            size: row.attachment_size ?? 0,
            sha256: row.attachment_sha256,
            source: row.attachment_source,
          }
        : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}
