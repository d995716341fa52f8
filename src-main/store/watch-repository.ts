import type Database from 'better-sqlite3'
import { z } from 'zod'
import type { ImportCheckReport } from '../../src-common/intake/import-check.ts'
import { projectRef, serverId } from '../../src-common/outbox/payloads/common.ts'
import { AppError } from '../shared/app-error.ts'

/**
 * Watched instrument folders and the register of the files they took, in the app database (step
 * 3 of app-database.ts). The app database rather than the outbox: a folder is a setting of a
 * saved connection (removed with it), and the register must outlive the outbox items it names
 * (sent and pruned, or discarded) and record files that never became items (held, discarded).
 */

/** What a watched folder's files are imported as. */
export const watchSettings = z
  .object({
    /** The protocol whose readouts the files carry (what the local check reads them against). */
    protocolId: serverId,
    /** The mapping template, by id or name, as the import names it. */
    mappingTemplate: z.union([serverId, z.string().trim().min(1)]),
    /** The project the import goes to; null takes the protocol's, when it has only one. */
    project: projectRef.nullable(),
    /** The run each file makes; its date is the file's (last modified, local time). */
    run: z
      .object({
        place: z.string().max(200).optional(),
        person: z.string().max(200).optional(),
        conditions: z.string().max(2000).optional(),
      })
      .strict(),
  })
  .strict()
export type WatchSettings = z.infer<typeof watchSettings>

export interface WatchedFolder extends WatchSettings {
  id: number
  connectionId: string
  vaultId: number
  /** The absolute path watched. */
  folder: string
  enabled: boolean
  createdAt: string
}

/** Where a file was taken: the register is kept per connection, vault and folder. */
export interface WatchPlace {
  connectionId: string
  vaultId: number
  folder: string
}

export type TakenOutcome = 'queued' | 'held' | 'discarded'

export interface TakenFile extends WatchPlace {
  id: number
  sha256: string
  fileName: string
  size: number
  takenAt: string
  outcome: TakenOutcome
  /** The import queued for it (queued, or held then queued). */
  outboxItemId: number | null
  /** The local check's report, kept for a file held or discarded after it. */
  report: ImportCheckReport | null
  /** A held file's private copy, the bytes that were checked and will be queued. */
  heldCopy: string | null
  decidedAt: string | null
}

interface FolderRow {
  id: number
  connection_id: string
  vault_id: number
  folder: string
  settings: string
  enabled: 0 | 1
  created_at: string
}

interface FileRow {
  id: number
  connection_id: string
  vault_id: number
  folder: string
  sha256: string
  file_name: string
  size: number
  taken_at: string
  outcome: TakenOutcome
  outbox_item_id: number | null
  report: string | null
  held_copy: string | null
  decided_at: string | null
}

export class WatchRepository {
  readonly #db: Database.Database

  constructor(db: Database.Database) {
    this.#db = db
  }

  folders(filter: { enabledOnly?: boolean } = {}): WatchedFolder[] {
    const rows = this.#db
      .prepare(
        `SELECT * FROM watched_folders ${filter.enabledOnly ? 'WHERE enabled = 1' : ''} ORDER BY id`,
      )
      .all() as FolderRow[]
    return rows.map(toFolder)
  }

  folder(id: number): WatchedFolder {
    const row = this.#db.prepare('SELECT * FROM watched_folders WHERE id = ?').get(id) as
      FolderRow | undefined
    if (!row) throw new AppError('not_found', `No watched folder has id ${id}.`)
    return toFolder(row)
  }

  addFolder(
    place: WatchPlace,
    settings: WatchSettings,
    enabled: boolean,
    createdAt: string,
  ): WatchedFolder {
    const checked = watchSettings.parse(settings)
    try {
      const { lastInsertRowid } = this.#db
        .prepare(
          `INSERT INTO watched_folders (connection_id, vault_id, folder, settings, enabled, created_at)
           VALUES (?, ?, ?, ?, ?, ?)`,
        )
        .run(
          place.connectionId,
          place.vaultId,
          place.folder,
          JSON.stringify(checked),
          enabled ? 1 : 0,
          createdAt,
        )
      return this.folder(Number(lastInsertRowid))
    } catch (error) {
      throw this.#explained(error, place)
    }
  }

  updateFolder(
    id: number,
    change: { folder?: string; settings?: WatchSettings; enabled?: boolean },
  ): WatchedFolder {
    const current = this.folder(id)
    const settings = watchSettings.parse(change.settings ?? settingsOf(current))
    const folder = change.folder ?? current.folder
    try {
      this.#db
        .prepare('UPDATE watched_folders SET folder = ?, settings = ?, enabled = ? WHERE id = ?')
        .run(folder, JSON.stringify(settings), (change.enabled ?? current.enabled) ? 1 : 0, id)
    } catch (error) {
      throw this.#explained(error, { ...current, folder })
    }
    return this.folder(id)
  }

  removeFolder(id: number): void {
    this.folder(id)
    this.#db.prepare('DELETE FROM watched_folders WHERE id = ?').run(id)
  }

  /** The file of these bytes taken from this folder already, if any. */
  taken(place: WatchPlace, sha256: string): TakenFile | null {
    const row = this.#db
      .prepare(
        'SELECT * FROM watched_files WHERE connection_id = ? AND vault_id = ? AND folder = ? AND sha256 = ?',
      )
      .get(place.connectionId, place.vaultId, place.folder, sha256) as FileRow | undefined
    return row ? toTakenFile(row) : null
  }

  takenFile(id: number): TakenFile {
    const row = this.#db.prepare('SELECT * FROM watched_files WHERE id = ?').get(id) as
      FileRow | undefined
    if (!row) throw new AppError('not_found', `No file taken from a watched folder has id ${id}.`)
    return toTakenFile(row)
  }

  /**
   * Records a file as taken; false when a file of the same bytes was recorded first (by another
   * process watching the same folder), in which case nothing changes.
   */
  record(
    entry: Omit<TakenFile, 'id' | 'decidedAt'> & { decidedAt?: string | null },
  ): TakenFile | null {
    const { changes, lastInsertRowid } = this.#db
      .prepare(
        `INSERT INTO watched_files (connection_id, vault_id, folder, sha256, file_name, size, taken_at,
           outcome, outbox_item_id, report, held_copy, decided_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (connection_id, vault_id, folder, sha256) DO NOTHING`,
      )
      .run(
        entry.connectionId,
        entry.vaultId,
        entry.folder,
        entry.sha256,
        entry.fileName,
        entry.size,
        entry.takenAt,
        entry.outcome,
        entry.outboxItemId,
        entry.report ? JSON.stringify(entry.report) : null,
        entry.heldCopy,
        entry.decidedAt ?? null,
      )
    return changes === 0 ? null : this.takenFile(Number(lastInsertRowid))
  }

  /** A held file decided: queued (as this item) or discarded; its copy is no longer kept. */
  decide(
    id: number,
    outcome: 'queued' | 'discarded',
    outboxItemId: number | null,
    at: string,
  ): TakenFile {
    const { changes } = this.#db
      .prepare(
        `UPDATE watched_files SET outcome = ?, outbox_item_id = ?, held_copy = NULL, decided_at = ?
         WHERE id = ? AND outcome = 'held'`,
      )
      .run(outcome, outboxItemId, at, id)
    if (changes === 0) {
      const file = this.takenFile(id)
      throw new AppError(
        'conflict',
        `${file.fileName} is no longer held: it was ${file.outcome} ${file.decidedAt ?? ''}.`.trim(),
      )
    }
    return this.takenFile(id)
  }

  /** A held file's new report, after the person asked to check it again. */
  updateReport(id: number, report: ImportCheckReport): TakenFile {
    this.#db
      .prepare("UPDATE watched_files SET report = ? WHERE id = ? AND outcome = 'held'")
      .run(JSON.stringify(report), id)
    return this.takenFile(id)
  }

  /**
   * A held file the person chose to queue: recorded as queued, keeping its copy, before the
   * import is queued (`setOutboxItem` then ends it), so that a crash in between never loses it.
   */
  startQueuing(id: number): TakenFile {
    const { changes } = this.#db
      .prepare(
        `UPDATE watched_files SET outcome = 'queued', outbox_item_id = NULL
         WHERE id = ? AND outcome = 'held'`,
      )
      .run(id)
    const file = this.takenFile(id)
    if (changes === 0) {
      throw new AppError('conflict', `${file.fileName} is no longer held: it was ${file.outcome}.`)
    }
    return file
  }

  /** The import queued for a file: its copy is no longer needed. */
  setOutboxItem(id: number, outboxItemId: number, at?: string): void {
    this.#db
      .prepare(
        `UPDATE watched_files SET outbox_item_id = ?, held_copy = NULL,
           decided_at = COALESCE(decided_at, ?) WHERE id = ?`,
      )
      .run(outboxItemId, at ?? null, id)
  }

  /** Files taken, newest first; `held` only those waiting for the person. */
  takenFiles(
    filter: { connectionId?: string; vaultId?: number; folder?: string; held?: boolean } = {},
    limit = 200,
  ): TakenFile[] {
    const where: string[] = []
    const values: (string | number)[] = []
    if (filter.connectionId !== undefined) {
      where.push('connection_id = ?')
      values.push(filter.connectionId)
    }
    if (filter.vaultId !== undefined) {
      where.push('vault_id = ?')
      values.push(filter.vaultId)
    }
    if (filter.folder !== undefined) {
      where.push('folder = ?')
      values.push(filter.folder)
    }
    if (filter.held) where.push("outcome = 'held'")
    const rows = this.#db
      .prepare(
        `SELECT * FROM watched_files ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY taken_at DESC, id DESC LIMIT ?`,
      )
      .all(...values, limit) as FileRow[]
    return rows.map(toTakenFile)
  }

  #explained(error: unknown, place: WatchPlace): unknown {
    const message = (error as Error).message ?? ''
    if (message.includes('UNIQUE constraint failed')) {
      return new AppError(
        'conflict',
        `${place.folder} is watched for vault ${place.vaultId} of this connection already.`,
      )
    }
    if (message.includes('FOREIGN KEY constraint failed')) {
      return new AppError('not_found', `No saved connection has id ${place.connectionId}.`)
    }
    return error
  }
}

export function settingsOf(folder: WatchedFolder): WatchSettings {
  return {
    protocolId: folder.protocolId,
    mappingTemplate: folder.mappingTemplate,
    project: folder.project,
    run: folder.run,
  }
}

function toFolder(row: FolderRow): WatchedFolder {
  return {
    id: row.id,
    connectionId: row.connection_id,
    vaultId: row.vault_id,
    folder: row.folder,
    ...watchSettings.parse(JSON.parse(row.settings)),
    enabled: row.enabled === 1,
    createdAt: row.created_at,
  }
}

function toTakenFile(row: FileRow): TakenFile {
  return {
    id: row.id,
    connectionId: row.connection_id,
    vaultId: row.vault_id,
    folder: row.folder,
    sha256: row.sha256,
    fileName: row.file_name,
    size: row.size,
    takenAt: row.taken_at,
    outcome: row.outcome,
    outboxItemId: row.outbox_item_id,
    report: row.report === null ? null : (JSON.parse(row.report) as ImportCheckReport),
    heldCopy: row.held_copy,
    decidedAt: row.decided_at,
  }
}

/** A saved folder with what its watcher sees now. */
export interface WatchedFolderView extends WatchedFolder {
  state: 'watching' | 'missing' | 'disabled' | 'stopped'
  /** Files held for a decision. */
  held: number
  /** The protocol's name in the cache; null when it is not there (not synced, or gone). */
  protocolName: string | null
}
