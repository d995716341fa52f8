import type Database from 'better-sqlite3'
import { AppError } from '../shared/app-error.ts'
import { openCacheDatabase, type CacheRecovery } from './cache-database.ts'
import { CacheWriter } from './cache-writer.ts'
import { CacheWrites, type ApplyPageOptions, type AppliedPage } from './cache-writes.ts'
import { RecordLinks, type LinkedRecord } from './record-links.ts'
import { recordKind, vaultIdOf } from './record-kinds.ts'
import type { PendingInput } from './pending-rows.ts'
import { ReadoutIndexer } from './readout-index.ts'
import { ReadoutQueries } from './readout-queries.ts'
import {
  RecordQueries,
  type DistinctValue,
  type KeyedPage,
  type ListKey,
  type ListOptions,
  type ListReader,
  type RecordPage,
  type RowPage,
} from './record-queries.ts'
import { toId, type JsonObject } from '../../src-common/values.ts'
import { SearchIndex, type SearchOptions, type SearchResult } from './search-index.ts'
import { SearchQueryPlanner } from './search-query.ts'
import { StructureIndexRepository } from './structure-index-repository.ts'
import { SyncState, type VaultSync } from './sync-state.ts'
import { watchMainWrites } from './wal-checkpoints.ts'

export { connectionVaultId, type ApplyPageOptions, type AppliedPage } from './cache-writes.ts'

/**
 * The cache of one connection: every record kind of every vault the person can reach, the search
 * index and the sync position. Sync writes through `writer` (a worker thread commits its pages);
 * single records (the outbox's answers from the server) are written here with `applyPage`. The UI
 * and the CLI read through `list`, `page`, `read`, `get`, `linked`, `search`, `counts` and `lastSyncs`.
 */
export class VaultCache {
  readonly file: string
  /** Sync's writes, committed off the main thread; search sees them once committed. */
  readonly writer: CacheWriter
  readonly #db: Database.Database
  readonly #writes: CacheWrites
  readonly #state: SyncState
  readonly #planner: SearchQueryPlanner
  readonly #queries: RecordQueries
  readonly #links: RecordLinks
  readonly #search: SearchIndex
  #readoutIndexer: ReadoutIndexer | undefined
  #readoutQueries: ReadoutQueries | undefined
  readonly #stopWatchingWrites: () => void
  readonly #closeListeners = new Set<() => void>()

  /**
   * Opens the cache at `file`. One that is not a database is set aside and started afresh
   * (`recovery` says so); one written by a newer Vault Desk is refused untouched
   * (`NewerSchemaError`). The full check of every page runs later, in a worker
   * (ConnectionCaches.verify).
   */
  static open(file: string): { cache: VaultCache; recovery: CacheRecovery | null } {
    const { db, recovery } = openCacheDatabase(file)
    return { cache: new VaultCache(file, db), recovery }
  }

  private constructor(file: string, db: Database.Database) {
    this.file = file
    this.#db = db
    this.#writes = new CacheWrites(db)
    this.#state = new SyncState(db)
    this.#planner = new SearchQueryPlanner(db)
    this.#queries = new RecordQueries(db, this.#planner)
    this.#links = new RecordLinks(this.#queries)
    this.#search = new SearchIndex(db, this.#planner)
    this.writer = new CacheWriter(file, () => this.#planner.invalidate())
    this.#stopWatchingWrites = watchMainWrites(file, () => this.writer.tidy())
  }

  /**
   * Runs `work` in one immediate transaction (nested calls become savepoints). Immediate, because
   * the writer's worker may commit between a read and a write of a deferred one.
   */
  transaction<T>(work: () => T): T {
    return this.#db.transaction(work).immediate()
  }

  /**
   * Stores a page of records of a kind as the API gave them, replacing records with the same
   * id (so a record fetched twice never duplicates anything), and saves the cursor in the same
   * transaction. A molecule's nested batches are stored as batches too. On the main thread: for
   * a few records at a time; sync commits its pages through `writer`. Waits for a batch the
   * writer is committing (one page at most).
   */
  applyPage(
    kindName: string,
    vaultId: number | string,
    records: readonly unknown[],
    options: ApplyPageOptions = {},
  ): AppliedPage {
    if (!Array.isArray(records)) {
      throw new AppError(
        'validation',
        `A page of ${recordKind(kindName).name} must be an array of records.`,
      )
    }
    return this.#write(() => this.#writes.applyPage(kindName, vaultId, records, options))
  }

  /**
   * Deletes the cached records of a kind whose ids are not in `ids` (the server's complete
   * only_ids listing), under one parent when `parentId` is given. Returns how many were deleted.
   */
  retainOnly(
    kindName: string,
    vaultId: number | string,
    ids: readonly unknown[],
    options: { parentId?: number | string } = {},
  ): number {
    return this.#write(() => this.#writes.retainOnly(kindName, vaultId, ids, options))
  }

  /**
   * Stores the vault list (GET /vaults) and forgets vaults no longer in it, with their records,
   * cursors and last sync.
   */
  replaceVaults(records: readonly unknown[]): AppliedPage {
    return this.#write(() => this.#writes.replaceVaults(records))
  }

  cursor(kindName: string, vaultId: number | string, scope = ''): unknown {
    return this.#state.cursor(vaultIdOf(vaultId), recordKind(kindName).name, scope)
  }

  /** Forgets a cursor, so that the next sync of that kind starts from the beginning. */
  clearCursor(kindName: string, vaultId: number | string, scope = ''): void {
    this.#write(() => this.#writes.clearCursor(kindName, vaultId, scope))
  }

  /** Marks a vault as synced at `at` (an ISO timestamp; now by default). */
  recordSync(vaultId: number | string, at: string = new Date().toISOString()): void {
    this.#write(() => this.#writes.recordSync(vaultId, at))
  }

  lastSyncs(): VaultSync[] {
    return this.#state.lastSyncs()
  }

  list(kindName: string, vaultId: number | string, options: ListOptions = {}): RecordPage {
    return this.#queries.list(kindName, vaultIdOf(vaultId), options)
  }

  /** A page of a list as typed rows (column values and JSON). */
  page(
    kindName: string,
    vaultId: number | string,
    options: ListOptions = {},
    pending: readonly PendingInput[] = [],
  ): RowPage {
    return this.#queries.page(kindName, vaultIdOf(vaultId), options, pending)
  }

  /**
   * The page of a list after the row `after` (the first when null), read by key rather than by
   * offset and not counted (RecordQueries.pageAfter).
   */
  pageAfter(
    kindName: string,
    vaultId: number | string,
    options: ListOptions = {},
    after: ListKey | null = null,
    pending: readonly PendingInput[] = [],
  ): KeyedPage {
    return this.#queries.pageAfter(kindName, vaultIdOf(vaultId), options, after, pending)
  }

  /** Reads a whole list in its order a page at a time, for exports (RecordQueries.read). */
  read(
    kindName: string,
    vaultId: number | string,
    options: ListOptions = {},
    pending: readonly PendingInput[] = [],
  ): ListReader {
    return this.#queries.read(kindName, vaultIdOf(vaultId), options, pending)
  }

  /** The distinct values of a filterable column among a list's records, with their counts. */
  distinct(
    kindName: string,
    vaultId: number | string,
    column: string,
    options: ListOptions = {},
  ): DistinctValue[] {
    return this.#queries.distinct(kindName, vaultIdOf(vaultId), column, options)
  }

  /** The ids of every record a list with these options would show (sort and paging aside). */
  ids(kindName: string, vaultId: number | string, options: ListOptions = {}): number[] {
    return this.#queries.ids(kindName, vaultIdOf(vaultId), options)
  }

  /** Whether any record of the kind is cached for the vault. */
  holds(kindName: string, vaultId: number | string): boolean {
    return this.#queries.holds(kindName, vaultIdOf(vaultId))
  }

  /**
   * The readout value index on this connection: the writer keeps it while idle; a host that needs
   * it whole now (a search by results) completes it here.
   */
  readoutIndex(): ReadoutIndexer {
    this.#readoutIndexer ??= new ReadoutIndexer(this.#db)
    return this.#readoutIndexer
  }

  /** Searches by results and results tables, from the readout value index. */
  results(): ReadoutQueries {
    this.#readoutQueries ??= new ReadoutQueries(this.#db)
    return this.#readoutQueries
  }

  /** The structure index of one vault's molecules (fingerprints, properties, depictions). */
  structureIndex(vaultId: number): StructureIndexRepository {
    return new StructureIndexRepository(this.#db, vaultId)
  }

  get(kindName: string, vaultId: number | string, id: number | string): JsonObject | null {
    return this.#queries.get(kindName, vaultIdOf(vaultId), recordIdOf(id))
  }

  /** A record waiting in the outbox as a typed row, its columns read as the cache reads them. */
  pendingRow(kindName: string, input: PendingInput): RowPage['rows'][number] {
    return this.#queries.pendingRow(kindName, input)
  }

  /** One cached record as a typed row, or null. */
  row(
    kindName: string,
    vaultId: number | string,
    id: number | string,
  ): RowPage['rows'][number] | null {
    return this.#queries.row(kindName, vaultIdOf(vaultId), recordIdOf(id))
  }

  /** A record with the records a detail page links to. */
  linked(kindName: string, vaultId: number | string, id: number | string): LinkedRecord | null {
    return this.#links.get(kindName, vaultIdOf(vaultId), recordIdOf(id))
  }

  /** Search as you type; records committed by the writer are found once their commit is told. */
  search(text: string, options: SearchOptions = {}): SearchResult {
    return this.#search.search(text, options)
  }

  counts(): ReturnType<RecordQueries['counts']> {
    return this.#queries.counts()
  }

  /**
   * Calls `listener` as the cache closes, for holders of connections of their own to the file
   * (closed first). Returns what stops it.
   */
  onClose(listener: () => void): () => void {
    this.#closeListeners.add(listener)
    return () => this.#closeListeners.delete(listener)
  }

  /**
   * Stops the writer (a batch it was committing is rolled back) and closes the file; resolves once
   * no connection to it is left open.
   */
  async close(): Promise<void> {
    this.#stopWatchingWrites()
    // Before the file goes (a removed connection's is deleted next): on Windows an open handle
    // would keep it.
    for (const listener of this.#closeListeners) listener()
    this.#closeListeners.clear()
    this.#db.close()
    await this.writer.close()
  }

  #write<T>(work: () => T): T {
    try {
      return this.transaction(work)
    } finally {
      this.#planner.invalidate()
    }
  }
}

function recordIdOf(value: number | string): number {
  const id = toId(value)
  if (id === null)
    throw new AppError('invalid_argument', `Not a record id: ${JSON.stringify(value)}.`)
  return id
}
