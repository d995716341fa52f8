import type Database from 'better-sqlite3'
import { AppError } from '../shared/app-error.ts'

export interface VaultSync {
  vaultId: number
  lastSyncAt: string
}

/**
 * Where pull sync stands: a cursor per vault, kind and scope (opaque JSON chosen by sync), saved
 * in the transaction that writes the rows it covers, and the time of each vault's last sync.
 */
export class SyncState {
  readonly #save: Database.Statement<[number, string, string, string, string]>
  readonly #read: Database.Statement<[number, string, string], string>
  readonly #clear: Database.Statement<[number, string, string]>
  readonly #recordSync: Database.Statement<[number, string]>
  readonly #lastSyncs: Database.Statement<[], { vault_id: number; last_sync_at: string }>
  readonly #forgetCursors: Database.Statement<[number]>
  readonly #forgetSync: Database.Statement<[number]>

  constructor(db: Database.Database) {
    this.#save = db.prepare(
      `INSERT INTO sync_cursors (vault_id, kind, scope, cursor, saved_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (vault_id, kind, scope) DO UPDATE SET cursor = excluded.cursor, saved_at = excluded.saved_at`,
    )
    this.#read = db
      .prepare<[number, string, string], string>(
        'SELECT cursor FROM sync_cursors WHERE vault_id = ? AND kind = ? AND scope = ?',
      )
      .pluck()
    this.#clear = db.prepare(
      'DELETE FROM sync_cursors WHERE vault_id = ? AND kind = ? AND scope = ?',
    )
    this.#recordSync = db.prepare(
      `INSERT INTO vault_syncs (vault_id, last_sync_at) VALUES (?, ?)
         ON CONFLICT (vault_id) DO UPDATE SET last_sync_at = excluded.last_sync_at`,
    )
    this.#lastSyncs = db.prepare('SELECT vault_id, last_sync_at FROM vault_syncs ORDER BY vault_id')
    this.#forgetCursors = db.prepare('DELETE FROM sync_cursors WHERE vault_id = ?')
    this.#forgetSync = db.prepare('DELETE FROM vault_syncs WHERE vault_id = ?')
  }

  saveCursor(vaultId: number, kind: string, scope: string, cursor: unknown): void {
    const text = JSON.stringify(cursor)
    if (text === undefined) {
      throw new AppError(
        'invalid_argument',
        `The sync cursor of ${kind} is not JSON: ${String(cursor)}.`,
      )
    }
    this.#save.run(vaultId, kind, scope, text, new Date().toISOString())
  }

  cursor(vaultId: number, kind: string, scope: string): unknown {
    const text = this.#read.get(vaultId, kind, scope)
    return text === undefined ? null : (JSON.parse(text) as unknown)
  }

  clearCursor(vaultId: number, kind: string, scope: string): void {
    this.#clear.run(vaultId, kind, scope)
  }

  recordSync(vaultId: number, at: string): void {
    this.#recordSync.run(vaultId, at)
  }

  /** Forgets where sync stood in a vault: its cursors and its last sync. */
  forgetVault(vaultId: number): void {
    this.#forgetCursors.run(vaultId)
    this.#forgetSync.run(vaultId)
  }

  lastSyncs(): VaultSync[] {
    return this.#lastSyncs
      .all()
      .map((row) => ({ vaultId: row.vault_id, lastSyncAt: row.last_sync_at }))
  }
}
