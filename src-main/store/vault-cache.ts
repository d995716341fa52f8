import type Database from 'better-sqlite3'
import { AppError } from '../shared/app-error.ts'
import { openCacheDatabase, type CacheRecovery } from './cache-database.ts'
import { RecordLinks, type LinkedRecord } from './record-links.ts'
import { recordKind, vaultIdOf, type RecordKindName } from './record-kinds.ts'
import { RecordQueries, type ListOptions, type RecordPage } from './record-queries.ts'
import { toId, type JsonObject } from './record-values.ts'
import { RecordWriter, type RejectedRecord } from './record-writer.ts'
import { SearchIndex, type SearchOptions, type SearchResult } from './search-index.ts'
import { SearchQueryPlanner } from './search-query.ts'
import { SyncState, type VaultSync } from './sync-state.ts'

export interface ApplyPageOptions {
  /**
   * Where sync stands after this page (any JSON value sync chooses), saved in the same
   * transaction as the records: either both are committed or neither.
   */
  cursor?: unknown
  /** Distinguishes cursors of sub-listings of a kind (one protocol's readout rows, say). */
  scope?: string
  /**
   * For listings nested under a parent that the records may not name: the protocol of
   * dose_response_calculations, the calculation of dose_response_series, the field of
   * pick_list_values.
   */
  parentId?: number | string
}

export interface AppliedPage {
  kind: RecordKindName
  vaultId: number
  /** Records written (inserted or replaced; a record seen again is replaced, never duplicated). */
  stored: number
  /** Records that could not be read, with the reason; the rest of the page is stored. */
  rejected: RejectedRecord[]
}

/** Vaults themselves are kept under this vault id: every kind then has the same key. */
export const connectionVaultId = 0

/**
 * The cache of one connection: every record kind of every vault the person can reach, the search
 * index and the sync position. Sync writes through `applyPage`, `retainOnly` and `replaceVaults`;
 * the UI and the CLI read through `list`, `get`, `linked`, `search`, `counts` and `lastSyncs`.
 */
export class VaultCache {
  readonly file: string
  readonly #db: Database.Database
  readonly #writer: RecordWriter
  readonly #state: SyncState
  readonly #planner: SearchQueryPlanner
  readonly #queries: RecordQueries
  readonly #links: RecordLinks
  readonly #search: SearchIndex

  /**
   * Opens the cache at `file`. One that is not a database, or was written by a newer Vault Desk,
   * is set aside and started afresh (`recovery` says so); the full check of every page runs
   * later, in a worker (ConnectionCaches.verify).
   */
  static open(file: string): { cache: VaultCache; recovery: CacheRecovery | null } {
    const { db, recovery } = openCacheDatabase(file)
    return { cache: new VaultCache(file, db), recovery }
  }

  private constructor(file: string, db: Database.Database) {
    this.file = file
    this.#db = db
    this.#writer = new RecordWriter(db)
    this.#state = new SyncState(db)
    this.#planner = new SearchQueryPlanner(db)
    this.#queries = new RecordQueries(db, this.#planner)
    this.#links = new RecordLinks(this.#queries)
    this.#search = new SearchIndex(db, this.#planner)
  }

  /** Runs `work` in one transaction (nested calls become savepoints). */
  transaction<T>(work: () => T): T {
    return this.#db.transaction(work)()
  }

  /**
   * Stores one page of records of a kind as the API gave them, replacing records with the same
   * id (so a page fetched twice, or the one-second overlap of an incremental sync, never
   * duplicates anything), and saves the cursor in the same transaction. A molecule's nested
   * batches are stored as batches too.
   */
  applyPage(
    kindName: string,
    vaultId: number | string,
    records: readonly unknown[],
    options: ApplyPageOptions = {},
  ): AppliedPage {
    const kind = recordKind(kindName)
    const vault = kind.name === 'vaults' ? connectionVaultId : vaultIdOf(vaultId)
    if (!Array.isArray(records)) {
      throw new AppError('validation', `A page of ${kind.name} must be an array of records.`)
    }
    const parentId = this.#parentIdOf(kind.name, options.parentId)
    const written = this.#write(() => {
      const result = this.#writer.write(kind, vault, records, parentId)
      if (options.cursor !== undefined) {
        this.#state.saveCursor(vault, kind.name, options.scope ?? '', options.cursor)
      }
      return result
    })
    return { kind: kind.name, vaultId: vault, ...written }
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
    const kind = recordKind(kindName)
    const vault = kind.name === 'vaults' ? connectionVaultId : vaultIdOf(vaultId)
    const parentId = this.#parentIdOf(kind.name, options.parentId)
    return this.#write(() => this.#writer.retainOnly(kind, vault, ids, parentId))
  }

  /** Stores the vault list (GET /vaults) and forgets vaults no longer in it. */
  replaceVaults(records: readonly unknown[]): AppliedPage {
    return this.transaction(() => {
      const applied = this.applyPage('vaults', connectionVaultId, records)
      const ids = records.flatMap((record) =>
        typeof record === 'object' && record !== null ? [(record as JsonObject).id] : [],
      )
      this.retainOnly(
        'vaults',
        connectionVaultId,
        ids.filter((id) => toId(id) !== null),
      )
      return applied
    })
  }

  cursor(kindName: string, vaultId: number | string, scope = ''): unknown {
    return this.#state.cursor(vaultIdOf(vaultId), recordKind(kindName).name, scope)
  }

  /** Forgets a cursor, so that the next sync of that kind starts from the beginning. */
  clearCursor(kindName: string, vaultId: number | string, scope = ''): void {
    this.#state.clearCursor(vaultIdOf(vaultId), recordKind(kindName).name, scope)
  }

  /** Marks a vault as synced at `at` (an ISO timestamp; now by default). */
  recordSync(vaultId: number | string, at: string = new Date().toISOString()): void {
    this.#state.recordSync(vaultIdOf(vaultId), at)
  }

  lastSyncs(): VaultSync[] {
    return this.#state.lastSyncs()
  }

  list(kindName: string, vaultId: number | string, options: ListOptions = {}): RecordPage {
    return this.#queries.list(kindName, vaultIdOf(vaultId), options)
  }

  get(kindName: string, vaultId: number | string, id: number | string): JsonObject | null {
    return this.#queries.get(kindName, vaultIdOf(vaultId), recordIdOf(id))
  }

  /** A record with the records a detail page links to. */
  linked(kindName: string, vaultId: number | string, id: number | string): LinkedRecord | null {
    return this.#links.get(kindName, vaultIdOf(vaultId), recordIdOf(id))
  }

  search(text: string, options: SearchOptions = {}): SearchResult {
    return this.#search.search(text, options)
  }

  counts(): ReturnType<RecordQueries['counts']> {
    return this.#queries.counts()
  }

  /**
   * Merges the search index into one segment. Worth it after a large first sync: queries then
   * read one posting list per term instead of one per segment.
   */
  optimizeSearch(): void {
    this.#db.exec("INSERT INTO search_index (search_index) VALUES ('optimize')")
  }

  close(): void {
    this.#db.close()
  }

  #write<T>(work: () => T): T {
    try {
      return this.transaction(work)
    } finally {
      this.#planner.invalidate()
    }
  }

  #parentIdOf(kind: RecordKindName, parentId: number | string | undefined): number | null {
    if (parentId === undefined) return null
    const id = toId(parentId)
    if (id === null || !recordKind(kind).parentColumn) {
      throw new AppError(
        'invalid_argument',
        id === null
          ? `Not a parent id: ${JSON.stringify(parentId)}.`
          : `${kind} are not listed under a parent; parentId does not apply.`,
      )
    }
    return id
  }
}

function recordIdOf(value: number | string): number {
  const id = toId(value)
  if (id === null)
    throw new AppError('invalid_argument', `Not a record id: ${JSON.stringify(value)}.`)
  return id
}
