/**
 * Watched instrument folders: their settings (per saved connection and vault, in the app
 * database), a watcher for each enabled one while the app runs, the register of what each took,
 * and the person's decisions on held files. The CLI's `watch` runs one folder the same way
 * without saving it (`watch`). Everything it does is told as `watch.activity` events.
 */
import path from 'node:path'
import type { ImportDecision } from '../../src-common/intake/import-check.ts'
import type { ImportChecker } from '../intake/import-checker.ts'
import { FolderWatcher, type WatcherNotice } from '../intake/watcher.ts'
import { WatcherIntake, type IntakeFolder, type IntakeOutbox } from '../intake/watcher-intake.ts'
import { AppError } from '../shared/app-error.ts'
import type { EventBus, WatchActivity } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import type {
  TakenFile,
  WatchedFolder,
  WatchedFolderView,
  WatchPlace,
  WatchRepository,
  WatchSettings,
} from '../store/watch-repository.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'

export interface WatchServiceOptions {
  repository: WatchRepository
  outbox: IntakeOutbox
  checker: ImportChecker
  runtimes: ConnectionRuntimes
  events: EventBus
  log: Logger
  /** Where copies of taken files wait until queued or decided. */
  copiesDir: string
  /** Settle time and scan period (tests use short ones). */
  settleMs?: number
  scanMs?: number
}

/** How long a file must stay unchanged before it is taken, and how often a folder is scanned. */
export interface WatchTiming {
  settleMs?: number
  scanMs?: number
}

/** A folder being watched, and how to stop it. */
export interface RunningWatch {
  readonly folder: IntakeFolder
  readonly watcher: FolderWatcher
  stop(): Promise<void>
}

export class WatchService {
  readonly #options: WatchServiceOptions
  readonly #intake: WatcherIntake
  /** Watchers of saved folders, by folder id. */
  readonly #running = new Map<number, RunningWatch>()
  /** Folders being decided on or taken by id, so that a held file is decided once at a time. */
  readonly #deciding = new Set<number>()
  #started = false
  #closed = false

  constructor(options: WatchServiceOptions) {
    this.#options = options
    this.#intake = new WatcherIntake({
      repository: options.repository,
      outbox: options.outbox,
      checker: options.checker,
      copiesDir: options.copiesDir,
      defaultProject: (place, protocolId) => this.#protocolProject(place, protocolId),
      report: (activity) => options.events.emit('watch.activity', activity),
      log: options.log,
    })
  }

  /** Starts a watcher for every enabled folder (the hosts that stay up, once they hold the data). */
  start(): void {
    if (this.#started || this.#closed) return
    this.#started = true
    for (const folder of this.#options.repository.folders({ enabledOnly: true })) {
      void this.#startSaved(folder)
    }
  }

  list(): WatchedFolderView[] {
    const held = new Map<number, number>()
    const folders = this.#options.repository.folders()
    for (const file of this.#options.repository.takenFiles({ held: true }, 100_000)) {
      const owner = folders.find((folder) => sameFolder(folder, file))
      if (owner) held.set(owner.id, (held.get(owner.id) ?? 0) + 1)
    }
    return folders.map((folder) => this.#view(folder, held.get(folder.id) ?? 0))
  }

  add(place: WatchPlace, settings: WatchSettings, enabled = true): WatchedFolderView {
    const folder = checkedFolder(place.folder)
    this.#checkSettings(place, settings)
    const added = this.#options.repository.addFolder(
      { ...place, folder },
      settings,
      enabled,
      new Date().toISOString(),
    )
    if (added.enabled && this.#started) void this.#startSaved(added)
    return this.#view(added, 0)
  }

  async update(
    id: number,
    change: { folder?: string; settings?: WatchSettings; enabled?: boolean },
  ): Promise<WatchedFolderView> {
    const current = this.#options.repository.folder(id)
    const folder = change.folder === undefined ? undefined : checkedFolder(change.folder)
    if (change.settings) this.#checkSettings(current, change.settings)
    await this.#stopSaved(id)
    const updated = this.#options.repository.updateFolder(id, {
      ...(folder !== undefined ? { folder } : {}),
      ...(change.settings ? { settings: change.settings } : {}),
      ...(change.enabled !== undefined ? { enabled: change.enabled } : {}),
    })
    if (updated.enabled && this.#started) void this.#startSaved(updated)
    return this.#view(updated, this.#heldCount(updated))
  }

  /** Stops watching and forgets the folder's settings; the files it took stay recorded. */
  async remove(id: number): Promise<{ removed: true }> {
    this.#options.repository.folder(id)
    await this.#stopSaved(id)
    this.#options.repository.removeFolder(id)
    return { removed: true }
  }

  /** Files a saved folder took, newest first (`held`: those waiting for a decision). */
  takenFiles(filter: { folderId?: number; held?: boolean; limit?: number } = {}): TakenFile[] {
    const folder =
      filter.folderId === undefined ? undefined : this.#options.repository.folder(filter.folderId)
    return this.#options.repository.takenFiles(
      {
        ...(folder ? { connectionId: folder.connectionId, vaultId: folder.vaultId } : {}),
        ...(folder ? { folder: folder.folder } : {}),
        ...(filter.held ? { held: true } : {}),
      },
      filter.limit ?? 200,
    )
  }

  /** The person's decision on a held file of a saved folder. */
  async decide(takenFileId: number, decision: ImportDecision): Promise<TakenFile> {
    const file = this.#options.repository.takenFile(takenFileId)
    const folder = this.#options.repository
      .folders()
      .find((candidate) => sameFolder(candidate, file))
    const intakeFolder: IntakeFolder = folder
      ? { ...folder, folderId: folder.id }
      : // The folder was removed since: its settings are gone, but a discard needs none.
        { ...file, folderId: null, ...noSettings(decision, file) }
    if (this.#deciding.has(takenFileId)) {
      throw new AppError('conflict', `${file.fileName} is being decided on already.`)
    }
    this.#deciding.add(takenFileId)
    try {
      return await this.#intake.decide(intakeFolder, takenFileId, decision)
    } finally {
      this.#deciding.delete(takenFileId)
    }
  }

  /**
   * Watches a folder that is not saved (the CLI's `watch`): the same intake, with its own
   * watcher; stop it to end. Finishes first what an interruption left of an earlier run.
   */
  async watch(
    folder: Omit<IntakeFolder, 'folderId'>,
    timing: WatchTiming = {},
  ): Promise<RunningWatch> {
    const intakeFolder: IntakeFolder = {
      ...folder,
      folder: checkedFolder(folder.folder),
      folderId: null,
    }
    this.#checkSettings(intakeFolder, intakeFolder)
    return this.#run(intakeFolder, timing)
  }

  async close(): Promise<void> {
    this.#closed = true
    await Promise.all([...this.#running.keys()].map((id) => this.#stopSaved(id)))
  }

  async #startSaved(folder: WatchedFolder): Promise<void> {
    if (this.#running.has(folder.id) || this.#closed) return
    try {
      const running = await this.#run({ ...folder, folderId: folder.id })
      if (this.#closed || this.#running.has(folder.id)) {
        await running.stop()
        return
      }
      this.#running.set(folder.id, running)
    } catch (error) {
      this.#options.log.error('a watched folder could not start', {
        folder: folder.folder,
        error: String(error),
      })
      this.#say({ ...folder, folderId: folder.id }, 'failed', String((error as Error).message))
    }
  }

  async #stopSaved(id: number): Promise<void> {
    const running = this.#running.get(id)
    if (!running) return
    this.#running.delete(id)
    await running.stop()
  }

  async #run(folder: IntakeFolder, timing: WatchTiming = {}): Promise<RunningWatch> {
    await this.#intake.recover(folder)
    const settleMs = timing.settleMs ?? this.#options.settleMs
    const scanMs = timing.scanMs ?? this.#options.scanMs
    const watcher = new FolderWatcher({
      folder: folder.folder,
      ...(settleMs !== undefined ? { settleMs } : {}),
      ...(scanMs !== undefined ? { scanMs } : {}),
      onFile: (file, signal) => this.#intake.take(folder, file, signal),
      onNotice: (notice) => this.#notice(folder, notice),
      log: this.#options.log,
    })
    watcher.start()
    this.#say(folder, 'started', `Watching ${folder.folder} for vault ${folder.vaultId}.`)
    let stopping: Promise<void> | undefined
    return {
      folder,
      watcher,
      stop: () =>
        (stopping ??= watcher.stop().then(() => {
          this.#say(folder, 'stopped', `Stopped watching ${folder.folder}.`)
        })),
    }
  }

  #notice(folder: IntakeFolder, notice: WatcherNotice): void {
    if (notice.type === 'ignored') {
      this.#say(
        folder,
        'ignored',
        notice.reason === 'type'
          ? `${notice.name} is not a CSV, SD file or Excel workbook: left alone.`
          : `${notice.name} is empty: waiting for the instrument to write it.`,
        notice.name,
      )
      return
    }
    this.#say(
      folder,
      notice.type,
      notice.type === 'folder-missing' ? notice.message : `${folder.folder} is back: watching it.`,
    )
  }

  #say(
    folder: IntakeFolder,
    type: WatchActivity['type'],
    message: string,
    fileName: string | null = null,
  ): void {
    this.#options.events.emit('watch.activity', {
      at: new Date().toISOString(),
      folderId: folder.folderId,
      connectionId: folder.connectionId,
      vaultId: folder.vaultId,
      folder: folder.folder,
      type,
      fileName,
      message,
    })
  }

  #view(folder: WatchedFolder, held: number): WatchedFolderView {
    const running = this.#running.get(folder.id)
    const state = !folder.enabled
      ? 'disabled'
      : !running
        ? 'stopped'
        : running.watcher.missing
          ? 'missing'
          : 'watching'
    return { ...folder, state, held, protocolName: this.#protocolName(folder) }
  }

  #protocolName(folder: WatchedFolder): string | null {
    try {
      const protocol = this.#options.runtimes
        .get(folder.connectionId)
        .cache.get('protocols', folder.vaultId, folder.protocolId)
      return typeof protocol?.name === 'string' ? protocol.name : null
    } catch {
      // A connection being removed: its folders go with it.
      return null
    }
  }

  #heldCount(folder: WatchedFolder): number {
    return this.#options.repository.takenFiles({ ...folder, held: true }, 100_000).length
  }

  /** Refuses settings the folder's imports could never go with, naming what is wrong. */
  #checkSettings(place: WatchPlace, settings: WatchSettings): void {
    if (settings.project === null) this.#protocolProject(place, settings.protocolId)
    else this.#protocol(place, settings.protocolId)
  }

  #protocol(place: WatchPlace, protocolId: number): Record<string, unknown> {
    const protocol = this.#options.runtimes
      .get(place.connectionId)
      .cache.get('protocols', place.vaultId, protocolId)
    if (!protocol) {
      throw new AppError(
        'not_found',
        `Protocol ${protocolId} is not in the local copy of vault ${place.vaultId}: sync, or choose another.`,
      )
    }
    return protocol
  }

  /** The project of a protocol that has exactly one, for a folder whose project is not set. */
  #protocolProject(place: WatchPlace, protocolId: number): number {
    const protocol = this.#protocol(place, protocolId)
    const projects = Array.isArray(protocol.projects)
      ? (protocol.projects as { id?: unknown; name?: unknown }[])
      : []
    const [only] = projects
    if (projects.length === 1 && typeof only?.id === 'number') return only.id
    const name = typeof protocol.name === 'string' ? protocol.name : `Protocol ${protocolId}`
    throw new AppError(
      'invalid_argument',
      projects.length === 0
        ? `${name} belongs to no project: choose the project its imports go to.`
        : `${name} belongs to ${projects.length} projects (${projects.map((project) => project.name).join(', ')}): choose the project its imports go to.`,
    )
  }
}

function sameFolder(folder: WatchPlace, file: WatchPlace): boolean {
  return (
    folder.connectionId === file.connectionId &&
    folder.vaultId === file.vaultId &&
    folder.folder === file.folder
  )
}

/** An absolute folder path, normalised: watched folders are named the same way every time. */
function checkedFolder(folder: string): string {
  const trimmed = folder.trim()
  if (trimmed === '' || !path.isAbsolute(trimmed)) {
    throw new AppError(
      'invalid_argument',
      `A watched folder is given by its full path, not ${JSON.stringify(folder)}.`,
    )
  }
  return path.resolve(trimmed)
}

/** A held file whose folder was removed can only be discarded: its import settings are gone. */
function noSettings(decision: ImportDecision, file: TakenFile): WatchSettings {
  if (decision !== 'discard') {
    throw new AppError(
      'conflict',
      `The folder ${file.fileName} was taken from is no longer watched: its import settings are gone, so it can only be discarded.`,
    )
  }
  return { protocolId: 1, mappingTemplate: 1, project: null, run: {} }
}
