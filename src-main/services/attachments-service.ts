import { randomUUID } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import Papa from 'papaparse'
import { ApiError, type ApiErrorKind } from '../api/errors.ts'
import type { Priority } from '../api/limiter.ts'
import { AppError } from '../shared/app-error.ts'
import { createPrivateFolderAsync } from '../shared/private-files.ts'
import type { EventBus } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import {
  AttachmentRegister,
  attachmentCandidates,
  type AttachmentCandidate,
  type AttachmentEntry,
  type AttachmentState,
} from '../store/attachment-register.ts'
import { cacheFile } from '../store/cache-files.ts'
import type { SettingsRepository } from '../store/settings-repository.ts'
import {
  defaultAttachmentBudgetBytes,
  planRoom,
  type BudgetedFile,
} from '../sync/attachments/budget.ts'
import {
  attachmentFolders,
  clearPartial,
  fetchAttachment,
  type AttachmentFolders,
} from '../sync/attachments/fetcher.ts'
import { readEntryFiles } from '../sync/attachments/entry-files.ts'
import { ServerClock } from '../sync/server-clock.ts'
import type { ConnectionRuntime } from './connection-runtime.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'

/**
 * Attachments offline: the contents of the files the cached records list, fetched by sync in the
 * background after each completed pass (after the records, at the transport's background
 * priority, one file at a time per connection) within the person's budget, or at once on request.
 * Each connection keeps its contents and their register in `<dataDir>/attachments/<connection>/`
 * (store/attachment-register.ts). Opening goes through the host's shell (the system's default
 * application); previews are served to the window over IPC within size caps: images as data: URLs
 * (the CSP allows data: images, nothing more), text and CSV as text, PDF as its bytes, which the
 * window hands to Chromium's own PDF viewer as a blob: frame (the CSP's one frame source).
 */

/** What a window is told about one file. */
export type AttachmentStatus =
  'fetched' | 'not_fetched' | 'fetching' | Exclude<AttachmentState, 'fetched'>

export interface AttachmentView {
  fileId: number
  name: string | null
  mimeType: string | null
  /** Bytes: the vault's figure before fetching, the fetched figure after; null when unknown. */
  size: number | null
  state: AttachmentStatus
  /** Why it failed, was set aside or left out. */
  reason: string | null
  sha256: string | null
  fetchedAt: string | null
  lastOpenedAt: string | null
  /** Whether a preview can be shown in the window for its type (once fetched). */
  previewable: boolean
}

export type AttachmentPreview =
  | { kind: 'image'; mimeType: string; dataUrl: string }
  | { kind: 'text'; text: string; truncated: boolean }
  | { kind: 'table'; rows: string[][]; truncated: boolean }
  /** The whole document, base64: the window shows it in Chromium's PDF viewer. */
  | { kind: 'pdf'; mimeType: 'application/pdf'; base64: string }

export interface AttachmentBudget {
  budgetBytes: number
  usedBytes: number
  fetchedFiles: number
}

export interface AttachmentsServiceOptions {
  /** Root of every connection's attachments (`<dataDir>/attachments`). */
  root: string
  runtimes: ConnectionRuntimes
  settings: SettingsRepository
  events: EventBus
  log: Logger
  /** The budget of a connection without a setting of its own. */
  defaultBudgetBytes?: number
  /** Fetch in the background after each completed sync (hosts that stay up). */
  background?: boolean
}

/** Images Chromium shows in an img element; SVG there can run nothing. */
const imageTypes = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/bmp',
  'image/svg+xml',
])
const textTypes = new Set([
  'application/json',
  'chemical/x-mdl-sdfile',
  'chemical/x-mdl-molfile',
  'application/x-ndjson',
])
/** Caps of what crosses to the window: an image whole, text and tables from their beginning. */
export const previewCaps = {
  imageBytes: 16 * 1024 * 1024,
  pdfBytes: 32 * 1024 * 1024,
  textBytes: 512 * 1024,
  tableRows: 500,
  tableColumns: 60,
}

const budgetKey = (connectionId: string) => `attachments.budgetBytes.${connectionId}`

interface ConnectionAttachments {
  register: AttachmentRegister
  folders: AttachmentFolders
  /** Cancels the background pass (stop, removal, close). */
  background: AbortController | null
  fetching: Map<string, Promise<AttachmentView>>
  /** Vaults whose notebook entries export this key may not run (not an administrator there). */
  entriesRefused: Set<number>
}

export class AttachmentsService {
  readonly #options: AttachmentsServiceOptions
  readonly #connections = new Map<string, ConnectionAttachments>()
  readonly #stopListening: () => void
  #closed = false

  constructor(options: AttachmentsServiceOptions) {
    this.#options = options
    const stopFetching = options.background
      ? options.events.on('sync.changed', (state) => {
          if (!state.running && state.lastOutcome === 'completed') {
            void this.fetchInBackground(state.connectionId)
          }
        })
      : () => {}
    const stopForgetting = options.events.on('connections.changed', ({ connectionIds }) => {
      for (const connectionId of connectionIds) void this.#forgetIfRemoved(connectionId)
    })
    this.#stopListening = () => {
      stopFetching()
      stopForgetting()
    }
  }

  /**
   * A removed connection's attachments go with its cache (`<dataDir>/caches`, beside this root):
   * its contents, register and budget.
   */
  async #forgetIfRemoved(connectionId: string): Promise<void> {
    const attachments = this.#connections.get(connectionId)
    if (!attachments || this.#closed) return
    try {
      this.#options.runtimes.get(connectionId)
      return
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'not_found')) return
    }
    // Removed with its cache kept (the person did not confirm deleting it): keep these too.
    if (await exists(cacheFile(path.dirname(this.#options.root), connectionId))) return
    this.#connections.delete(connectionId)
    attachments.background?.abort()
    await Promise.allSettled(attachments.fetching.values())
    attachments.register.close()
    this.#options.settings.delete(budgetKey(connectionId))
    const root = path.dirname(attachments.folders.contents)
    await fs.rm(root, { recursive: true, force: true }).catch((error: unknown) => {
      this.#options.log.warn('cannot remove the attachments of a removed connection', {
        connectionId,
        error,
      })
    })
  }

  budget(connectionId: string): AttachmentBudget {
    const register = this.#of(connectionId).register
    return {
      budgetBytes: this.budgetBytes(connectionId),
      usedBytes: register.fetchedBytes(),
      fetchedFiles: register.fetched().length,
    }
  }

  budgetBytes(connectionId: string): number {
    const saved = Number(this.#options.settings.get(budgetKey(connectionId)))
    return Number.isSafeInteger(saved) &&
      saved >= 0 &&
      this.#options.settings.get(budgetKey(connectionId)) !== null
      ? saved
      : (this.#options.defaultBudgetBytes ?? defaultAttachmentBudgetBytes)
  }

  /** Sets a connection's budget; files beyond a smaller one are removed now, largest and oldest first. */
  async setBudget(connectionId: string, budgetBytes: number): Promise<AttachmentBudget> {
    if (!Number.isSafeInteger(budgetBytes) || budgetBytes < 0) {
      throw new AppError(
        'invalid_argument',
        `An attachment budget is a number of bytes, not ${budgetBytes}.`,
      )
    }
    this.#options.runtimes.get(connectionId) // Refuses an unknown connection.
    this.#options.settings.set(budgetKey(connectionId), String(budgetBytes))
    await this.#makeRoom(connectionId, 0)
    return this.budget(connectionId)
  }

  /** The state of these files of a vault (a record's files), in the order asked. */
  states(connectionId: string, vaultId: number, fileIds: readonly number[]): AttachmentView[] {
    const attachments = this.#of(connectionId)
    const entries = new Map(attachments.register.many(vaultId, fileIds).map((e) => [e.fileId, e]))
    const known = new Map(
      this.#candidates(connectionId, vaultId).map((candidate) => [candidate.fileId, candidate]),
    )
    return fileIds.map((fileId) =>
      viewOf(
        fileId,
        entries.get(fileId) ?? null,
        known.get(fileId) ?? null,
        attachments.fetching.has(`${vaultId} ${fileId}`),
      ),
    )
  }

  /**
   * The files of one record and their state, for its page: those its cached record and the
   * cache's file records name, and (online, for a molecule, whose files attached since it synced
   * leave its modified_at as it was) those the vault lists now, remembered for the background's
   * next pass.
   */
  async forRecord(
    connectionId: string,
    vaultId: number,
    kind: string,
    recordId: number,
  ): Promise<AttachmentView[]> {
    const runtime = this.#options.runtimes.get(connectionId)
    const { register } = this.#of(connectionId)
    const resourceClass = resourceClasses[kind]
    if (!resourceClass) {
      throw new AppError('invalid_argument', `Records of kind ${kind} cannot hold files.`)
    }
    if (kind === 'molecules' && runtime.monitor.state.online) {
      try {
        const molecule = await runtime.client.molecules.get(
          vaultId,
          recordId,
          { no_structures: true },
          { timeoutMs: listingTimeoutMs },
        )
        const listed = Array.isArray(molecule.source_files) ? molecule.source_files : []
        register.learn(
          vaultId,
          resourceClass,
          recordId,
          listed.flatMap((file) =>
            typeof file.id === 'number' ? [{ id: file.id, name: file.name ?? null }] : [],
          ),
        )
      } catch (error) {
        // Offline or refused: what is known already is shown.
        this.#options.log.debug('cannot read the files a molecule lists', {
          connectionId,
          vaultId,
          recordId,
          error,
        })
      }
    }
    const ids = new Set<number>()
    for (const candidate of register.known(vaultId, { resourceClass, resourceId: recordId })) {
      ids.add(candidate.fileId)
    }
    const linked = runtime.cache.linked(kind, vaultId, recordId)
    for (const row of linked?.links.files ?? []) if (typeof row.id === 'number') ids.add(row.id)
    const own = linked?.record.json.source_files
    if (Array.isArray(own)) {
      for (const file of own) {
        const id = (file as { id?: unknown } | null)?.id
        if (typeof id === 'number') ids.add(id)
      }
    }
    return this.states(
      connectionId,
      vaultId,
      [...ids].sort((a, b) => a - b),
    )
  }

  /**
   * Fetches one file now, before the background's order, at interactive priority. Within the budget
   * (older files make room as the budget says) unless `beyondBudget`: then it is kept whatever the
   * budget, until the person removes it or lowers the budget.
   */
  fetchNow(
    connectionId: string,
    vaultId: number,
    fileId: number,
    options: { beyondBudget?: boolean; signal?: AbortSignal } = {},
  ): Promise<AttachmentView> {
    const runtime = this.#options.runtimes.get(connectionId)
    const { online, lastContactAt } = runtime.monitor.state
    if (!online && lastContactAt !== null) {
      throw new AppError(
        'offline',
        `${runtime.name} is offline: the file can be fetched once it answers again.`,
      )
    }
    return this.#fetch(connectionId, vaultId, fileId, {
      priority: 'interactive',
      beyondBudget: options.beyondBudget === true,
      ...(options.signal ? { signal: options.signal } : {}),
    })
  }

  /**
   * Fetches, one at a time, the files of every synced vault's cached records not fetched yet
   * (never those left out, failed or set aside: the person asks for those). Resolves when done or
   * cancelled; a second call while one runs does nothing.
   */
  fetchInBackground(connectionId: string): Promise<void> {
    if (this.#closed) return Promise.resolve()
    const attachments = this.#of(connectionId)
    if (attachments.background) return Promise.resolve()
    const controller = new AbortController()
    attachments.background = controller
    const log = this.#options.log.child({ connectionId })
    return (async () => {
      const runtime = this.#options.runtimes.get(connectionId)
      for (const { vaultId } of runtime.cache.lastSyncs()) {
        if (controller.signal.aborted || !runtime.monitor.state.online) return
        await this.discoverEntryFiles(connectionId, vaultId, controller.signal).catch(
          (error: unknown) => {
            if (!isCancel(error)) {
              log.warn('could not read the files of notebook entries', { vaultId, error })
            }
          },
        )
        const candidates = this.#candidates(connectionId, vaultId)
        const entries = new Map(
          attachments.register
            .many(
              vaultId,
              candidates.map((c) => c.fileId),
            )
            .map((e) => [e.fileId, e]),
        )
        // Newest files first: the most likely to be wanted next.
        const missing = candidates
          .filter((candidate) => !entries.has(candidate.fileId))
          .sort((a, b) => b.fileId - a.fileId)
        for (const candidate of missing) {
          if (controller.signal.aborted) return
          if (!runtime.monitor.state.online) return
          await this.#fetch(connectionId, vaultId, candidate.fileId, {
            priority: 'background',
            beyondBudget: false,
            signal: controller.signal,
            expectedSize: candidate.size,
          }).catch((error: unknown) => {
            if (!isCancel(error))
              log.warn('could not fetch an attachment', {
                vaultId,
                fileId: candidate.fileId,
                error,
              })
          })
        }
      }
    })()
      .catch((error: unknown) => log.warn('the background fetch of attachments stopped', { error }))
      .finally(() => {
        if (attachments.background === controller) attachments.background = null
      })
  }

  /**
   * Learns which files notebook entries hold, from the vault's entries export (the only listing
   * of an entry's files the specification gives; administrators only): the first time every
   * entry, then those changed since the last reading began (server time). A key the
   * vault refuses is not asked again in this process. Answers how many entries were read, or
   * null when the export was refused.
   */
  async discoverEntryFiles(
    connectionId: string,
    vaultId: number,
    signal?: AbortSignal,
  ): Promise<number | null> {
    const attachments = this.#of(connectionId)
    if (attachments.entriesRefused.has(vaultId)) return null
    const { register, folders } = attachments
    const runtime = this.#options.runtimes.get(connectionId)
    const since = register.listingReadSince(vaultId, entriesListing.name)
    // The next reading starts where this one did, in the server's time (which stamps
    // modified_at), learned from the Date of the export's own answers.
    const clock = new ServerClock(runtime.client, this.#options.log)
    const startedAt = clock.moment()
    const options = { priority: 'background' as const, ...(signal ? { signal } : {}) }
    const archive = path.join(folders.partial, `${vaultId}-entries-${randomUUID()}.zip`)
    try {
      let exported
      try {
        exported = await runtime.client.elnEntries.export(
          vaultId,
          since === null ? {} : { modified_after: since },
          options,
        )
      } catch (error) {
        if (error instanceof ApiError && refusalKinds.has(error.kind)) {
          attachments.entriesRefused.add(vaultId)
          this.#options.log.debug('the notebook entries export is not available to this key', {
            connectionId,
            vaultId,
            error,
          })
          return null
        }
        throw error
      }
      await createPrivateFolderAsync(folders.partial)
      await exported.saveTo(archive, options)
      const entries = await readEntryFiles(archive)
      const readSince = await clock.at(startedAt, vaultId, options)
      register.learnListing(vaultId, { ...entriesListing, readSince }, entries)
      return entries.size
    } finally {
      clock.stop()
      await fs.rm(archive, { force: true })
    }
  }

  /** Stops a connection's background fetching (its sync stopped, it is being removed). */
  stop(connectionId: string): void {
    this.#connections.get(connectionId)?.background?.abort()
  }

  /** The fetched file's path, for the host's shell to open; counts as a use for the budget. */
  async pathToOpen(connectionId: string, vaultId: number, fileId: number): Promise<string> {
    const { register } = this.#of(connectionId)
    const file = this.#storedFile(connectionId, register.get(vaultId, fileId))
    if (file === null || !(await exists(file))) {
      throw new AppError('not_found', `File ${fileId} is not on this computer: fetch it first.`)
    }
    register.touch(vaultId, fileId)
    return file
  }

  /**
   * The fetched file's path for the system's default application: refused for a program or
   * script, which the person may run from the file manager if they trust it, never from a click.
   */
  async pathToLaunch(connectionId: string, vaultId: number, fileId: number): Promise<string> {
    const file = await this.pathToOpen(connectionId, vaultId, fileId)
    const ending = path.extname(file).toLowerCase()
    if (runnableEndings.has(ending)) {
      throw new AppError(
        'forbidden',
        `Vault Desk does not open ${ending} files, which could run a program: find it in ${path.dirname(file)} if you trust it.`,
      )
    }
    return file
  }

  #storedFile(connectionId: string, entry: AttachmentEntry | null): string | null {
    if (entry?.state !== 'fetched' || !entry.storedAs) return null
    return path.join(this.#of(connectionId).folders.contents, entry.storedAs)
  }

  /**
   * A preview for the window: images, PDF, text and CSV within the caps; others are refused,
   * saying why.
   */
  async preview(connectionId: string, vaultId: number, fileId: number): Promise<AttachmentPreview> {
    const { register } = this.#of(connectionId)
    const file = await this.pathToOpen(connectionId, vaultId, fileId)
    const entry = register.get(vaultId, fileId)!
    const mimeType = previewType(entry.mimeType, entry.name)
    if (mimeType !== null && imageTypes.has(mimeType)) {
      if ((entry.size ?? 0) > previewCaps.imageBytes) {
        throw new AppError(
          'invalid_argument',
          `${entry.name ?? 'This image'} is too large to preview: open it instead.`,
        )
      }
      const bytes = await fs.readFile(file)
      return {
        kind: 'image',
        mimeType,
        dataUrl: `data:${mimeType};base64,${bytes.toString('base64')}`,
      }
    }
    if (mimeType === pdfType) return await pdfPreview(file, entry)
    if (mimeType === null || !(mimeType.startsWith('text/') || textTypes.has(mimeType))) {
      throw new AppError(
        'invalid_argument',
        `${entry.name ?? 'This file'} (${entry.mimeType ?? 'of an unknown type'}) cannot be previewed in the window: open it instead.`,
      )
    }
    const { text, truncated } = await readTextStart(file, previewCaps.textBytes)
    if (text === null) {
      throw new AppError(
        'invalid_argument',
        `${entry.name ?? 'This file'} is not UTF-8 text: open it instead.`,
      )
    }
    if (mimeType !== 'text/csv' && mimeType !== 'text/tab-separated-values') {
      return { kind: 'text', text, truncated }
    }
    const parsed = Papa.parse<string[]>(text, {
      delimiter: mimeType === 'text/tab-separated-values' ? '\t' : '',
      skipEmptyLines: true,
      preview: previewCaps.tableRows + 1,
    })
    // The last row of a cut text may be cut too.
    const rows = parsed.data.slice(0, truncated ? -1 : previewCaps.tableRows)
    return {
      kind: 'table',
      rows: rows
        .slice(0, previewCaps.tableRows)
        .map((row) => row.slice(0, previewCaps.tableColumns)),
      truncated: truncated || parsed.data.length > previewCaps.tableRows,
    }
  }

  /** Removes a fetched file's contents (it stays listed, to be fetched again on request). */
  async remove(connectionId: string, vaultId: number, fileId: number): Promise<AttachmentView> {
    const { register } = this.#of(connectionId)
    const entry = register.get(vaultId, fileId)
    const file = this.#storedFile(connectionId, entry)
    if (file !== null) await fs.rm(file, { force: true })
    if (entry) register.markEvicted(vaultId, fileId, 'Removed on request.')
    this.#changed(connectionId, vaultId, [fileId])
    return this.states(connectionId, vaultId, [fileId])[0]!
  }

  async close(): Promise<void> {
    this.#closed = true
    this.#stopListening()
    for (const attachments of this.#connections.values()) attachments.background?.abort()
    await Promise.allSettled(
      [...this.#connections.values()].flatMap((attachments) => [...attachments.fetching.values()]),
    )
    for (const attachments of this.#connections.values()) attachments.register.close()
    this.#connections.clear()
  }

  #of(connectionId: string): ConnectionAttachments {
    if (this.#closed) throw new AppError('internal', 'The attachments service is closed.')
    let attachments = this.#connections.get(connectionId)
    if (attachments) return attachments
    this.#options.runtimes.get(connectionId) // Refuses an unknown connection.
    const root = path.join(this.#options.root, safeFolderName(connectionId))
    const folders = attachmentFolders(root)
    attachments = {
      register: new AttachmentRegister(path.join(root, 'register.db')),
      folders,
      background: null,
      fetching: new Map(),
      entriesRefused: new Set(),
    }
    // What an earlier process left half written is of no use.
    clearPartial(folders)
    this.#connections.set(connectionId, attachments)
    return attachments
  }

  #candidates(connectionId: string, vaultId: number): AttachmentCandidate[] {
    const runtime: ConnectionRuntime = this.#options.runtimes.get(connectionId)
    let cached: AttachmentCandidate[] = []
    try {
      cached = attachmentCandidates(runtime.cache.file, vaultId)
    } catch (error) {
      this.#options.log.warn('cannot list the files of cached records', {
        connectionId,
        vaultId,
        error,
      })
    }
    const seen = new Set(cached.map((candidate) => candidate.fileId))
    const known = this.#of(connectionId).register.known(vaultId)
    return [...cached, ...known.filter((candidate) => !seen.has(candidate.fileId))]
  }

  #fetch(
    connectionId: string,
    vaultId: number,
    fileId: number,
    options: {
      priority: Priority
      beyondBudget: boolean
      signal?: AbortSignal
      expectedSize?: number | null
    },
  ): Promise<AttachmentView> {
    const attachments = this.#of(connectionId)
    const key = `${vaultId} ${fileId}`
    const running = attachments.fetching.get(key)
    if (running) return running
    const work = this.#fetchOnce(connectionId, attachments, vaultId, fileId, options)
      .finally(() => {
        attachments.fetching.delete(key)
        this.#changed(connectionId, vaultId, [fileId])
      })
      .then(() => this.states(connectionId, vaultId, [fileId])[0]!)
    attachments.fetching.set(key, work)
    this.#changed(connectionId, vaultId, [fileId])
    return work
  }

  /** Tells the windows that these files' states changed (fetching, fetched, removed...). */
  #changed(connectionId: string, vaultId: number, fileIds: number[]): void {
    this.#options.events.emit('attachments.changed', { connectionId, vaultId, fileIds })
  }

  async #fetchOnce(
    connectionId: string,
    attachments: ConnectionAttachments,
    vaultId: number,
    fileId: number,
    options: {
      priority: Priority
      beyondBudget: boolean
      signal?: AbortSignal
      expectedSize?: number | null
    },
  ): Promise<void> {
    const { register, folders } = attachments
    const runtime = this.#options.runtimes.get(connectionId)
    const known = this.#candidates(connectionId, vaultId).find((c) => c.fileId === fileId) ?? null
    const expected = options.expectedSize ?? known?.size ?? null
    const base = {
      vaultId,
      fileId,
      name: known?.name ?? null,
      mimeType: known?.mimeType ?? null,
      sha256: null,
      storedAs: null,
      kept: false,
      fetchedAt: null,
    }
    // A size known beforehand is checked against the budget before a byte is fetched.
    if (expected !== null && !options.beyondBudget) {
      const plan = planRoom(
        this.#budgeted(register, vaultId, fileId),
        expected,
        this.budgetBytes(connectionId),
      )
      if (!plan.fits) {
        register.record({
          ...base,
          size: expected,
          state: 'over_budget',
          reason: `Not fetched: ${plan.reason}.`,
        })
        return
      }
    }
    let outcome
    try {
      outcome = await fetchAttachment({
        files: runtime.client.files,
        folders,
        vaultId,
        fileId,
        priority: options.priority,
        ...(options.signal ? { signal: options.signal } : {}),
      })
    } catch (error) {
      if (isCancel(error)) throw error
      const reason = error instanceof Error ? error.message : String(error)
      // A network failure is tried again at the next pass; a refusal (gone, no access) waits for a request.
      if (!(error instanceof ApiError && transientKinds.has(error.kind))) {
        register.record({ ...base, size: expected, state: 'failed', reason })
      }
      throw error
    }
    const details = {
      ...base,
      name: outcome.name ?? base.name,
      mimeType: outcome.mimeType ?? base.mimeType,
    }
    if (outcome.state === 'quarantined') {
      register.record({
        ...details,
        size: outcome.declaredSize ?? outcome.size,
        state: 'quarantined',
        reason: `Set aside in ${outcome.path}: ${outcome.reason}.`,
      })
      this.#options.log.warn('an attachment failed its checks and was set aside', {
        connectionId,
        vaultId,
        fileId,
        reason: outcome.reason,
      })
      return
    }
    const plan = options.beyondBudget
      ? ({ fits: true, evict: [] } as const)
      : planRoom(
          this.#budgeted(register, vaultId, fileId),
          outcome.size,
          this.budgetBytes(connectionId),
        )
    if (!plan.fits) {
      await fs.rm(outcome.path, { force: true })
      register.record({
        ...details,
        size: outcome.size,
        state: 'over_budget',
        reason: `Not kept: ${plan.reason}.`,
      })
      return
    }
    await this.#evict(connectionId, plan.evict)
    register.record({
      ...details,
      size: outcome.size,
      sha256: outcome.sha256,
      storedAs: outcome.storedAs,
      state: 'fetched',
      reason: null,
      kept: options.beyondBudget,
      fetchedAt: new Date().toISOString(),
    })
    return
  }

  /** The fetched files that count against the budget, but for the one being fetched. */
  #budgeted(register: AttachmentRegister, vaultId: number, fileId: number): BudgetedFile[] {
    return register
      .fetched()
      .filter((entry) => !(entry.vaultId === vaultId && entry.fileId === fileId))
      .map((entry) => ({
        vaultId: entry.vaultId,
        fileId: entry.fileId,
        size: entry.size ?? 0,
        lastUsedAt: entry.lastOpenedAt ?? entry.fetchedAt ?? entry.updatedAt,
        kept: entry.kept,
      }))
  }

  async #makeRoom(connectionId: string, incoming: number): Promise<void> {
    const { register } = this.#of(connectionId)
    const budget = this.budgetBytes(connectionId)
    const fetched = this.#budgeted(register, -1, -1).map((file) => ({ ...file, kept: false }))
    const plan = planRoom(fetched, incoming, budget)
    if (plan.fits) await this.#evict(connectionId, plan.evict)
  }

  async #evict(connectionId: string, files: readonly BudgetedFile[]): Promise<void> {
    const { register } = this.#of(connectionId)
    for (const file of files) {
      const stored = this.#storedFile(connectionId, register.get(file.vaultId, file.fileId))
      if (stored !== null) await fs.rm(stored, { force: true })
      register.markEvicted(
        file.vaultId,
        file.fileId,
        'Removed to keep within the attachment budget.',
      )
    }
    for (const vaultId of new Set(files.map((file) => file.vaultId))) {
      const fileIds = files.filter((file) => file.vaultId === vaultId).map((file) => file.fileId)
      this.#changed(connectionId, vaultId, fileIds)
    }
  }
}

function viewOf(
  fileId: number,
  entry: AttachmentEntry | null,
  known: AttachmentCandidate | null,
  fetching: boolean,
): AttachmentView {
  const name = entry?.name ?? known?.name ?? null
  const mimeType = entry?.mimeType ?? known?.mimeType ?? null
  const type = previewType(mimeType, name)
  return {
    fileId,
    name,
    mimeType,
    size: entry?.size ?? known?.size ?? null,
    state: fetching ? 'fetching' : (entry?.state ?? 'not_fetched'),
    reason: entry?.reason ?? null,
    sha256: entry?.sha256 ?? null,
    fetchedAt: entry?.fetchedAt ?? null,
    lastOpenedAt: entry?.lastOpenedAt ?? null,
    previewable:
      type !== null &&
      (imageTypes.has(type) || type === pdfType || type.startsWith('text/') || textTypes.has(type)),
  }
}

const typesByExtension: Record<string, string> = {
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.txt': 'text/plain',
  '.json': 'application/json',
  '.sdf': 'chemical/x-mdl-sdfile',
  '.mol': 'chemical/x-mdl-molfile',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
}

/** The type to preview as: the vault's (its parameters dropped), else the name's ending. */
function previewType(mimeType: string | null, name: string | null): string | null {
  const declared = mimeType?.split(';')[0]?.trim().toLowerCase()
  if (declared && declared !== 'application/octet-stream') return declared
  return name ? (typesByExtension[path.extname(name).toLowerCase()] ?? null) : null
}

const pdfType = 'application/pdf'

/**
 * A PDF whole, within the cap, once its header says it is one: a file the vault calls a PDF that
 * is not one is named as such here rather than shown as a viewer's blank error page.
 */
async function pdfPreview(file: string, entry: AttachmentEntry): Promise<AttachmentPreview> {
  const name = entry.name ?? 'This PDF'
  const { size } = await fs.stat(file)
  if (size > previewCaps.pdfBytes) {
    throw new AppError(
      'invalid_argument',
      `${name} is too large to preview (${Math.ceil(size / 1024 ** 2)} MB, the preview takes up to ${previewCaps.pdfBytes / 1024 ** 2} MB): open it instead.`,
    )
  }
  const bytes = await fs.readFile(file)
  // The PDF reference allows the header anywhere in the first 1,024 bytes, as readers accept it.
  if (!bytes.subarray(0, 1024).includes('%PDF-')) {
    throw new AppError(
      'invalid_argument',
      `${name} is not a PDF document (it does not begin with a PDF header), although the vault calls it one: open it with another application if you trust it.`,
    )
  }
  return { kind: 'pdf', mimeType: pdfType, base64: bytes.toString('base64') }
}

/** The beginning of a file as UTF-8 text (null when it is not), cut at a character's end. */
async function readTextStart(
  file: string,
  cap: number,
): Promise<{ text: string | null; truncated: boolean }> {
  const handle = await fs.open(file, 'r')
  try {
    const { size } = await handle.stat()
    const buffer = Buffer.alloc(Math.min(size, cap))
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    let bytes = buffer.subarray(0, bytesRead)
    const truncated = size > bytesRead
    if (truncated) {
      // Drop a character cut in two at the end: find its lead byte, and the length it announces.
      let lead = bytes.length - 1
      while (lead > 0 && bytes.length - lead < 4 && (bytes[lead]! & 0xc0) === 0x80) lead--
      const first = bytes[lead] ?? 0
      const length = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1
      if (bytes.length - lead < length) bytes = bytes.subarray(0, lead)
    }
    try {
      return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), truncated }
    } catch {
      return { text: null, truncated }
    }
  } finally {
    await handle.close()
  }
}

/** The record kinds that can hold files, and the vault's name for each (`resource_class`). */
const resourceClasses: Record<string, string> = {
  molecules: 'molecule',
  runs: 'run',
  protocols: 'protocol',
  eln_entries: 'eln_entry',
}

/** How long a record page waits for the vault's list of a molecule's files. */
const listingTimeoutMs = 10_000

/** Endings of programs and scripts a double click would run. */
const runnableEndings = new Set(
  [
    'exe',
    'msi',
    'bat',
    'cmd',
    'com',
    'scr',
    'pif',
    'ps1',
    'vbs',
    'vbe',
    'js',
    'jse',
    'wsf',
    'wsh',
    'hta',
    'lnk',
    'reg',
    'jar',
    'sh',
    'bash',
    'zsh',
    'command',
    'app',
    'pkg',
    'dmg',
    'desktop',
    'appimage',
    'run',
    'py',
    'pl',
    'rb',
    'deb',
    'rpm',
    'scpt',
    'workflow',
    'cpl',
    'dll',
  ].map((ending) => `.${ending}`),
)

/** The notebook entries export, as the register remembers where its reading left off. */
const entriesListing = { name: 'eln_entries_export', resourceClass: 'eln_entry' }
/** The vault will not give this key the export: asking again in this process changes nothing. */
const refusalKinds = new Set<ApiErrorKind>(['authentication', 'forbidden', 'not_found'])

/** Failures worth trying again at the next pass without the person asking. */
const transientKinds = new Set<ApiErrorKind>(['network', 'server', 'rate_limited'])

function isCancel(error: unknown): boolean {
  return error instanceof ApiError && error.kind === 'cancelled'
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  )
}

/** Connection ids are UUIDs; anything else is made safe for a folder name. */
function safeFolderName(connectionId: string): string {
  return connectionId.replace(/[^A-Za-z0-9_-]/g, '_')
}
