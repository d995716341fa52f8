/**
 * What a watched folder does with a file that has settled: takes a private copy (so that what is
 * checked is exactly what is queued, whatever the instrument does to the file next), knows it by
 * its SHA-256 so that a copy or a renamed file is never taken twice, checks it locally, and then
 * queues it as an import at once when clean, or holds it for the person when its report has
 * errors. The original is never moved or deleted.
 *
 * Nothing is half queued: the register row is written before the import is queued and keeps the
 * copy until the item's id is recorded, so a crash between the two is finished at the next start
 * (`recover`), found in the outbox by the copy's name and size rather than queued twice.
 */
import { createHash, randomUUID } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { ImportCheckReport, ImportDecision } from '../../src-common/intake/import-check.ts'
import type { OutboxItemView } from '../../src-common/outbox/item-view.ts'
import { outboxStates } from '../../src-common/outbox/states.ts'
import type { ImportSettings } from '../../src-common/outbox/payloads/imports.ts'
import { AppError } from '../shared/app-error.ts'
import type { WatchActivity } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import { createPrivateFolderAsync, makeFilesPrivateAsync } from '../shared/private-files.ts'
import type {
  TakenFile,
  WatchPlace,
  WatchRepository,
  WatchSettings,
} from '../store/watch-repository.ts'
import type { QueueRequest } from '../sync/outbox/queue-request.ts'
import type { ImportChecker } from './import-checker.ts'
import type { FileHandling, SettledFile } from './watcher.ts'

/** The outbox as the intake uses it. */
export interface IntakeOutbox {
  queue(request: QueueRequest): Promise<OutboxItemView[]>
  list(filter: {
    connectionId?: string
    states?: readonly OutboxItemView['state'][]
    limit?: number
  }): OutboxItemView[]
}

export interface IntakeOptions {
  repository: WatchRepository
  outbox: IntakeOutbox
  checker: ImportChecker
  /** Where copies of taken files are kept until queued or decided (a private folder). */
  copiesDir: string
  /** The project of a folder set to none: the protocol's own, when it has exactly one. */
  defaultProject: (place: WatchPlace, protocolId: number) => number | string
  /** Every activity worth telling the person (the app's event, the CLI's lines). */
  report: (activity: WatchActivity) => void
  log: Logger
  now?: () => Date
}

/** Larger files are reported and left in the folder: an import of them would not go through. */
export const largestWatchedFile = 1024 ** 3

/** A watched folder's place and settings: what `take` needs to know of it. */
export interface IntakeFolder extends WatchPlace, WatchSettings {
  /** The folder's id in the app database; null for one the CLI watches without saving it. */
  folderId: number | null
}

export class WatcherIntake {
  readonly #options: IntakeOptions
  readonly #now: () => Date
  /** Files reported as waiting (locked or changing), so that the person hears it once. */
  readonly #waiting = new Set<string>()

  constructor(options: IntakeOptions) {
    this.#options = options
    this.#now = options.now ?? (() => new Date())
  }

  /** Takes a settled file of `folder`: see the file's opening comment. */
  async take(folder: IntakeFolder, file: SettledFile, signal: AbortSignal): Promise<FileHandling> {
    const say = (
      type: WatchActivity['type'],
      message: string,
      extra: Partial<WatchActivity> = {},
    ) => this.#say(folder, type, file.name, message, extra)
    if (file.size > largestWatchedFile) {
      say(
        'ignored',
        `${file.name} is ${gigabytes(file.size)}, larger than an import takes (${gigabytes(largestWatchedFile)}): left in the folder.`,
      )
      return 'done'
    }
    let project: number | string
    try {
      project = folder.project ?? this.#options.defaultProject(folder, folder.protocolId)
    } catch (error) {
      this.#sayOnce(folder, file.name, 'failed', (error as Error).message)
      return 'retry'
    }
    const copy = await this.#copy(folder, file)
    if (copy === 'vanished') return 'done'
    if (copy === 'locked' || copy === 'unreadable' || copy === 'changed') {
      this.#sayOnce(folder, file.name, 'waiting', waitingMessages[copy](file.name))
      return 'retry'
    }
    this.#waiting.delete(`${folder.folder}\u0000${file.name}`)
    try {
      const earlier = this.#options.repository.taken(folder, copy.sha256)
      if (earlier) {
        // The same file seen again (after a restart, or a folder that came back): nothing new.
        if (earlier.fileName === file.name) {
          this.#options.log.debug('a watched file was taken before', {
            folder: folder.folder,
            file: file.name,
          })
          return 'done'
        }
        say(
          'already-taken',
          `${file.name} has the same contents as ${earlier.fileName}, ${describeOutcome(earlier)}: not taken again.`,
          { takenFileId: earlier.id },
        )
        return 'done'
      }
      const report = await this.#checkUnlessStopped(folder, copy.path, signal)
      // Stopped while checking: nothing was recorded or queued; the next start takes it.
      if (report === null) return 'retry'
      if (report.errors > 0) {
        const held = this.#options.repository.record({
          ...placeOf(folder),
          sha256: copy.sha256,
          fileName: file.name,
          size: copy.size,
          takenAt: this.#now().toISOString(),
          outcome: 'held',
          outboxItemId: null,
          report,
          heldCopy: copy.path,
        })
        if (!held) return this.#takenElsewhere(folder, file)
        copy.keep = true
        say('held', `${file.name} is held: ${describeProblems(report)}. Decide in Vault Desk.`, {
          takenFileId: held.id,
          report,
        })
        return 'done'
      }
      const taken = this.#options.repository.record({
        ...placeOf(folder),
        sha256: copy.sha256,
        fileName: file.name,
        size: copy.size,
        takenAt: this.#now().toISOString(),
        outcome: 'queued',
        outboxItemId: null,
        report,
        heldCopy: copy.path,
      })
      if (!taken) return this.#takenElsewhere(folder, file)
      copy.keep = true
      const item = await this.#queue(folder, taken, copy.path, project)
      say(
        'queued',
        `${file.name} queued as an import (outbox item ${item.id})${report.warnings > 0 ? ` with ${plural(report.warnings, 'warning')}` : ''}.`,
        { takenFileId: taken.id, outboxItemId: item.id, report },
      )
      return 'done'
    } finally {
      if (!copy.keep) await removeCopy(copy.path)
    }
  }

  /**
   * The person's decision on a held file: queue it if a new check finds it clean, queue it
   * anyway, or discard it (its copy goes; the file stays in the folder, and is not taken again).
   */
  async decide(
    folder: IntakeFolder,
    takenFileId: number,
    decision: ImportDecision,
  ): Promise<TakenFile> {
    const repository = this.#options.repository
    const file = repository.takenFile(takenFileId)
    if (file.outcome !== 'held' || file.heldCopy === null) {
      throw new AppError('conflict', `${file.fileName} is not held: it was ${file.outcome}.`)
    }
    if (decision === 'discard') {
      const decided = repository.decide(file.id, 'discarded', null, this.#now().toISOString())
      await removeCopy(file.heldCopy)
      this.#say(folder, 'discarded', file.fileName, `${file.fileName} discarded: not imported.`, {
        takenFileId: file.id,
      })
      return decided
    }
    if (decision === 'queue') {
      const report = await this.#options.checker.check({
        connectionId: folder.connectionId,
        vaultId: folder.vaultId,
        filePath: file.heldCopy,
        protocolId: folder.protocolId,
        mappingTemplate: folder.mappingTemplate,
      })
      if (report.errors > 0) {
        const kept = repository.updateReport(file.id, report)
        this.#say(
          folder,
          'held',
          file.fileName,
          `${file.fileName} is still held: ${describeProblems(report)}.`,
          { takenFileId: file.id, report },
        )
        return kept
      }
    }
    const project = folder.project ?? this.#options.defaultProject(folder, folder.protocolId)
    const queuing = repository.startQueuing(file.id)
    const item = await this.#queue(folder, queuing, file.heldCopy, project)
    this.#say(
      folder,
      'queued',
      file.fileName,
      `${file.fileName} queued as an import (outbox item ${item.id})${decision === 'queue-anyway' ? ', despite its problems' : ''}.`,
      { takenFileId: file.id, outboxItemId: item.id },
    )
    return repository.takenFile(file.id)
  }

  /**
   * Finishes what a crash interrupted: a file recorded for queueing whose item's id was not
   * recorded is matched to the outbox item made from its copy, or queued now.
   */
  async recover(folder: IntakeFolder): Promise<void> {
    const repository = this.#options.repository
    const unfinished = repository
      .takenFiles(placeOf(folder), 10_000)
      .filter((file) => file.outcome === 'queued' && file.outboxItemId === null)
    if (unfinished.length === 0) return
    const linked = new Set(
      repository
        .takenFiles({ connectionId: folder.connectionId, vaultId: folder.vaultId }, 10_000)
        .map((file) => file.outboxItemId),
    )
    const items = this.#options.outbox
      .list({ connectionId: folder.connectionId, states: outboxStates, limit: 10_000 })
      .filter((item) => item.operation === 'slurp.create' && item.vaultId === folder.vaultId)
    for (const file of unfinished) {
      const match = items.find(
        (item) =>
          !linked.has(item.id) &&
          item.file?.name === file.fileName &&
          item.file.size === file.size &&
          item.createdAt >= file.takenAt,
      )
      if (match) {
        linked.add(match.id)
        repository.setOutboxItem(file.id, match.id)
        if (file.heldCopy) await removeCopy(file.heldCopy)
        this.#options.log.info('a watched file queued before a crash was found in the outbox', {
          file: file.fileName,
          item: match.id,
        })
        continue
      }
      if (file.heldCopy === null || !fs.existsSync(file.heldCopy)) {
        this.#options.log.error('a watched file recorded for queueing has lost its copy', {
          file: file.fileName,
          folder: folder.folder,
        })
        continue
      }
      const project = folder.project ?? this.#options.defaultProject(folder, folder.protocolId)
      const item = await this.#queue(folder, file, file.heldCopy, project)
      linked.add(item.id)
      this.#say(
        folder,
        'queued',
        file.fileName,
        `${file.fileName} queued as an import (outbox item ${item.id}), after an interruption.`,
        { takenFileId: file.id, outboxItemId: item.id },
      )
    }
  }

  async #queue(
    folder: IntakeFolder,
    file: TakenFile,
    copyPath: string,
    project: number | string,
  ): Promise<OutboxItemView> {
    const stat = await fs.promises.stat(copyPath)
    const [item] = await this.#options.outbox.queue({
      connectionId: folder.connectionId,
      vaultId: folder.vaultId,
      operation: 'slurp.create',
      file: copyPath,
      payload: payloadOf(folder, project, stat.mtime),
    })
    if (!item) throw new AppError('internal', `The outbox queued nothing for ${file.fileName}.`)
    this.#options.repository.setOutboxItem(file.id, item.id)
    await removeCopy(copyPath)
    return item
  }

  /** The check's report, or null when the watcher was stopped before it ended. */
  async #checkUnlessStopped(
    folder: IntakeFolder,
    filePath: string,
    signal: AbortSignal,
  ): Promise<ImportCheckReport | null> {
    try {
      const report = await this.#options.checker.check(
        {
          connectionId: folder.connectionId,
          vaultId: folder.vaultId,
          filePath,
          protocolId: folder.protocolId,
          mappingTemplate: folder.mappingTemplate,
        },
        signal,
      )
      return signal.aborted ? null : report
    } catch (error) {
      if (signal.aborted) return null
      throw error
    }
  }

  #sayOnce(folder: IntakeFolder, fileName: string, type: WatchActivity['type'], message: string) {
    const key = `${folder.folder}\u0000${fileName}`
    if (this.#waiting.has(key)) return
    this.#waiting.add(key)
    this.#say(folder, type, fileName, message)
  }

  #takenElsewhere(folder: IntakeFolder, file: SettledFile): FileHandling {
    this.#say(
      folder,
      'already-taken',
      file.name,
      `${file.name} was taken at the same moment by another Vault Desk process: not taken again.`,
    )
    return 'done'
  }

  async #copy(
    folder: IntakeFolder,
    file: SettledFile,
  ): Promise<
    | { path: string; size: number; sha256: string; keep: boolean }
    | 'vanished'
    | 'locked'
    | 'unreadable'
    | 'changed'
  > {
    const dir = path.join(this.#options.copiesDir, randomUUID())
    const copyPath = path.join(dir, file.name)
    try {
      await createPrivateFolderAsync(this.#options.copiesDir)
      await createPrivateFolderAsync(dir)
      await fs.promises.copyFile(file.path, copyPath, fs.constants.COPYFILE_FICLONE)
      await makeFilesPrivateAsync([copyPath])
      // The import's run date is the file's: the copy keeps its time.
      await fs.promises.utimes(copyPath, new Date(), new Date(file.mtimeMs))
      const after = await fs.promises.stat(file.path)
      const { size, sha256 } = await digest(copyPath)
      if (after.size !== file.size || after.mtimeMs !== file.mtimeMs || size !== file.size) {
        await removeCopy(copyPath)
        return 'changed'
      }
      return { path: copyPath, size, sha256, keep: false }
    } catch (error) {
      await removeCopy(copyPath)
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT') {
        this.#options.log.info('a watched file vanished before it was read: skipped', {
          folder: folder.folder,
          file: file.name,
        })
        return 'vanished'
      }
      // Windows answers a file another program holds open exclusively with EBUSY (a sharing
      // violation), sometimes EPERM or EACCES, which also mean no permission: both are tried again.
      if (code === 'EBUSY' || code === 'EPERM' || code === 'EACCES' || code === 'ETXTBSY') {
        this.#options.log.info('a watched file cannot be read yet', {
          folder: folder.folder,
          file: file.name,
          code,
        })
        return code === 'EBUSY' || code === 'ETXTBSY' ? 'locked' : 'unreadable'
      }
      throw error
    }
  }

  #say(
    folder: IntakeFolder,
    type: WatchActivity['type'],
    fileName: string | null,
    message: string,
    extra: Partial<WatchActivity> = {},
  ): void {
    const activity: WatchActivity = {
      at: this.#now().toISOString(),
      folderId: folder.folderId,
      connectionId: folder.connectionId,
      vaultId: folder.vaultId,
      folder: folder.folder,
      type,
      fileName,
      message,
      ...extra,
    }
    const level = type === 'held' || type === 'waiting' ? 'warn' : 'info'
    this.#options.log[level](message, { folder: folder.folder, type })
    this.#options.report(activity)
  }
}

/** What the person is told, once, of a file that is not taken yet. */
const waitingMessages = {
  locked: (name: string) => `${name} is locked by another program: waiting for it to be released.`,
  unreadable: (name: string) =>
    `${name} cannot be opened: another program holds it, or this account may not read it. Trying again.`,
  changed: (name: string) => `${name} changed while it was read: waiting for it to settle.`,
}

function payloadOf(folder: IntakeFolder, project: number | string, fileTime: Date): ImportSettings {
  const run: { run_date: string; place?: string; person?: string; conditions?: string } = {
    run_date: localDate(fileTime),
  }
  for (const key of ['place', 'person', 'conditions'] as const) {
    const value = folder.run[key]?.trim()
    if (value) run[key] = value
  }
  return { project, mapping_template: folder.mappingTemplate, runs: run }
}

function placeOf(folder: WatchPlace): WatchPlace {
  return { connectionId: folder.connectionId, vaultId: folder.vaultId, folder: folder.folder }
}

async function digest(file: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256')
  let size = 0
  for await (const chunk of fs.createReadStream(file)) {
    hash.update(chunk as Buffer)
    size += (chunk as Buffer).length
  }
  return { size, sha256: hash.digest('hex') }
}

/** Removes a copy and the folder made for it. */
async function removeCopy(copyPath: string): Promise<void> {
  await fs.promises.rm(path.dirname(copyPath), { recursive: true, force: true })
}

function localDate(time: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0')
  return `${time.getFullYear()}-${pad(time.getMonth() + 1)}-${pad(time.getDate())}`
}

function gigabytes(bytes: number): string {
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`
}

function describeOutcome(file: TakenFile): string {
  const when = file.takenAt.slice(0, 16).replace('T', ' ')
  if (file.outcome === 'queued') return `queued ${when} UTC`
  if (file.outcome === 'held') return `taken ${when} UTC and held for a decision`
  return `taken ${when} UTC and discarded`
}

/** The report's problems in a few words: "2 errors (a missing column, 1 unknown reference)". */
export function describeProblems(report: ImportCheckReport): string {
  const first = report.problems.find((problem) => problem.severity === 'error')
  const more = report.errors > 1 ? ` and ${plural(report.errors - 1, 'more error')}` : ''
  return first ? `${first.message.replace(/\.$/, '')}${more}` : plural(report.errors, 'error')
}
