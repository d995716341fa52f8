import type Database from 'better-sqlite3'
import { AppError } from '../shared/app-error.ts'
import { recordKind, vaultIdOf, type RecordKindName } from './record-kinds.ts'
import { toId } from '../../src-common/values.ts'
import { PageBuilder, type PreparedPage } from './record-rows.ts'
import { RecordWriter, type RejectedRecord } from './record-writer.ts'
import { SyncState } from './sync-state.ts'

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
  /**
   * Members a record that lacks them takes over from the cached record it replaces: a listing
   * may give less than the single-record answer did (runs are listed without plate statistics).
   */
  keep?: readonly string[]
  /**
   * The JSON text of each record as the server sent it (`texts[i]` is `records[i]`'s), where the
   * record is exactly what its text says; undefined elsewhere. Such a text is stored as it is,
   * which spares serializing the record again.
   */
  texts?: readonly (string | undefined)[]
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
 * The writes of a cache on one SQLite connection, run inside the caller's transaction: by
 * VaultCache on the main thread for single records (the outbox stores the server's answers), and
 * by the cache writer's worker for sync.
 */
export class CacheWrites {
  readonly #writer: RecordWriter
  readonly #state: SyncState

  constructor(db: Database.Database) {
    this.#writer = new RecordWriter(db)
    this.#state = new SyncState(db)
  }

  /** Stores a page of records, made ready on this thread (see applyPrepared). */
  applyPage(
    kindName: string,
    vaultId: number | string,
    records: readonly unknown[],
    options: ApplyPageOptions = {},
  ): AppliedPage {
    const builder = pageBuilder(kindName, vaultId, options)
    const { texts } = options
    records.forEach((record, index) => builder.add(record, texts?.[index]))
    return this.applyPrepared(builder.finish(), options)
  }

  /** Stores a page made ready by pageBuilder, and the cursor when given. */
  applyPrepared(page: PreparedPage, options: ApplyPageOptions = {}): AppliedPage {
    const written = this.#writer.write(page, options.keep)
    if (options.cursor !== undefined) {
      this.#state.saveCursor(page.vaultId, page.kind, options.scope ?? '', options.cursor)
    }
    return { kind: page.kind, vaultId: page.vaultId, ...written }
  }

  /**
   * Deletes the cached records of a kind whose ids are not in `ids` (the server's complete
   * listing), under one parent when `parentId` is given. Answers how many were deleted.
   */
  retainOnly(
    kindName: string,
    vaultId: number | string,
    ids: readonly unknown[],
    options: { parentId?: number | string } = {},
  ): number {
    const kind = recordKind(kindName)
    const vault = kind.name === 'vaults' ? connectionVaultId : vaultIdOf(vaultId)
    return this.#writer.retainOnly(kind, vault, ids, parentIdOf(kind.name, options.parentId)).length
  }

  /**
   * Stores the vault list (GET /vaults) and forgets the vaults no longer in it, with everything
   * cached of them: records, search documents, cursors and last sync.
   */
  replaceVaults(records: readonly unknown[]): AppliedPage {
    const builder = pageBuilder('vaults', connectionVaultId)
    for (const record of records) builder.add(record)
    return this.replacePreparedVaults(builder.finish())
  }

  /** replaceVaults with the vault list made ready by pageBuilder('vaults', connectionVaultId). */
  replacePreparedVaults(page: PreparedPage): AppliedPage {
    if (page.kind !== 'vaults') {
      throw new AppError('invalid_argument', `A vault list cannot hold ${page.kind}.`)
    }
    const applied = this.applyPrepared(page)
    const vaults = recordKind('vaults')
    for (const dropped of this.#writer.retainOnly(vaults, connectionVaultId, page.rows.ids, null)) {
      this.#writer.dropVault(dropped)
      this.#state.forgetVault(dropped)
    }
    return applied
  }

  saveCursor(kindName: string, vaultId: number | string, cursor: unknown, scope = ''): void {
    this.#state.saveCursor(vaultIdOf(vaultId), recordKind(kindName).name, scope, cursor)
  }

  clearCursor(kindName: string, vaultId: number | string, scope = ''): void {
    this.#state.clearCursor(vaultIdOf(vaultId), recordKind(kindName).name, scope)
  }

  recordSync(vaultId: number | string, at: string): void {
    this.#state.recordSync(vaultIdOf(vaultId), at)
  }
}

/**
 * A builder of a page of records of a kind for a vault (options.parentId, for listings nested
 * under a parent), checked here: an unknown kind, a bad vault id or a parent where none applies
 * throw before anything is made ready.
 */
export function pageBuilder(
  kindName: string,
  vaultId: number | string,
  options: Pick<ApplyPageOptions, 'parentId'> = {},
  firstIndex = 0,
): PageBuilder {
  const kind = recordKind(kindName)
  const vault = kind.name === 'vaults' ? connectionVaultId : vaultIdOf(vaultId)
  return new PageBuilder(kind, vault, parentIdOf(kind.name, options.parentId), firstIndex)
}

function parentIdOf(kind: RecordKindName, parentId: number | string | undefined): number | null {
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
