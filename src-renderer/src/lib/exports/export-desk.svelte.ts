/**
 * The window's exports: where each goes (the save dialog in Electron, a download in the browser
 * preview), how far each is (`exports.progress`), and how each ended. One per window, shared by
 * every screen that saves a view, so that an export started on one screen is still followed, and
 * can be cancelled, after the person has moved on.
 */
import type { ExportProgress } from '../../../../src-main/ipc/contract.ts'
import { formatCount } from '../../../../src-common/format/numbers.ts'
import type { VaultDeskBridge } from '../bridge.ts'
import type { Session } from '../state/session.svelte.ts'
import type { ExportFormat } from './export-formats.ts'
import type { ListExportQuestion, ResultsExportQuestion } from './export-questions.ts'

export interface ExportJob {
  /** Names the export in `exports.progress` and `exports.cancel`. */
  exportId: string
  /** The file's name, as the person chose it or as it downloads. */
  name: string
  path: string
  /** The browser preview: where the page downloads the file once complete. */
  download: string | null
  /** What the rows are, in words: `molecules`, `rows`. */
  noun: string
  state: ExportProgress['state']
  written: number
  total: number
  /** Once completed: what the person should know about the file. */
  notes: string[]
  /** Why it failed, or why showing or cancelling it did not work. */
  error: string | null
  cancelling: boolean
}

interface SaveCommon {
  format: ExportFormat
  /** CSV: a byte order mark first, for Excel. */
  bom: boolean
  /** The name the save dialog offers (the view's). */
  suggestedName: string
  noun: string
}

export type SaveRequest = SaveCommon &
  (
    | { source: 'list'; question: ListExportQuestion; columns: 'view' | 'all' }
    | { source: 'results'; question: ResultsExportQuestion }
  )

export type SaveOutcome =
  | { kind: 'started'; exportId: string }
  /** The person closed the save dialog: nothing happened. */
  | { kind: 'dismissed' }
  | { kind: 'refused'; message: string }

export interface ExportDeskOptions {
  /** Starts the browser's download of a file the preview serves at `href`. */
  download: (href: string, name: string) => void
}

/** Progress of exports this window has not heard the start of yet (the answer comes after). */
const earlyLimit = 64

export class ExportDesk {
  jobs = $state<ExportJob[]>([])
  readonly #bridge: VaultDeskBridge
  readonly #options: ExportDeskOptions
  // Bookkeeping nothing renders: progress that came before the answer that names its export.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #early = new Map<string, ExportProgress>()

  constructor(bridge: VaultDeskBridge, options: ExportDeskOptions) {
    this.#bridge = bridge
    this.#options = options
  }

  start(): () => void {
    return this.#bridge.on('exports.progress', (progress) => this.#progress(progress))
  }

  /** Asks where to save, then starts the export; answers once it is running or did not start. */
  async save(request: SaveRequest): Promise<SaveOutcome> {
    const { format, bom, suggestedName, noun } = request
    const chosen = await this.#bridge.invoke('app.chooseSavePath', { format, suggestedName })
    if (!chosen.ok) return { kind: 'refused', message: chosen.error.message }
    if (chosen.value === null) return { kind: 'dismissed' }
    const { path, name, download } = chosen.value
    const csv = format === 'csv' ? { bom } : {}
    const started =
      request.source === 'list'
        ? await this.#bridge.invoke('exports.start', {
            ...request.question,
            format,
            columns: request.columns,
            ...csv,
            path,
          })
        : await this.#bridge.invoke('exports.startResults', {
            ...request.question,
            format,
            ...csv,
            path,
          })
    if (!started.ok) return { kind: 'refused', message: started.error.message }
    const { exportId } = started.value
    this.jobs.push({
      exportId,
      name,
      path,
      download: download ?? null,
      noun,
      state: 'running',
      written: 0,
      total: 0,
      notes: [],
      error: null,
      cancelling: false,
    })
    const early = this.#early.get(exportId)
    this.#early.delete(exportId)
    if (early) this.#progress(early)
    return { kind: 'started', exportId }
  }

  async cancel(exportId: string): Promise<void> {
    const job = this.#job(exportId)
    if (!job || job.state !== 'running') return
    job.cancelling = true
    const answer = await this.#bridge.invoke('exports.cancel', { exportId })
    // The export's last progress says it was cancelled; an error says why it was not.
    if (!answer.ok) {
      job.cancelling = false
      job.error = answer.error.message
    }
  }

  /** Shows a saved file in the system's file manager (Electron). */
  async showInFolder(exportId: string): Promise<void> {
    const job = this.#job(exportId)
    if (!job) return
    const answer = await this.#bridge.invoke('app.showInFolder', { path: job.path })
    job.error = answer.ok ? null : answer.error.message
  }

  /** Forgets an export that has ended. */
  dismiss(exportId: string): void {
    this.jobs = this.jobs.filter((job) => job.exportId !== exportId || job.state === 'running')
  }

  #job(exportId: string): ExportJob | undefined {
    return this.jobs.find((job) => job.exportId === exportId)
  }

  #progress(progress: ExportProgress): void {
    const job = this.#job(progress.exportId)
    if (!job) {
      this.#early.set(progress.exportId, progress)
      for (const key of this.#early.keys()) {
        if (this.#early.size <= earlyLimit) break
        this.#early.delete(key)
      }
      return
    }
    if (job.state !== 'running') return
    job.written = progress.written
    job.total = progress.total
    job.state = progress.state
    if (progress.state === 'running') return
    job.cancelling = false
    job.notes = progress.notes ?? []
    job.error = progress.error?.message ?? null
    if (progress.state === 'completed' && job.download !== null) {
      this.#options.download(job.download, job.name)
    }
  }
}

/** How far an export is, in words: `1,200 of 2,000 molecules`. */
export function progressText(job: Pick<ExportJob, 'written' | 'total' | 'noun'>): string {
  return `${formatCount(job.written)} of ${formatCount(Math.max(job.total, job.written))} ${job.noun}`
}

/** Downloads through a link, as a person's click on one would. */
export function browserDownload(href: string, name: string): void {
  const link = document.createElement('a')
  link.href = href
  link.download = name
  link.hidden = true
  document.body.append(link)
  link.click()
  link.remove()
}

const desks = new WeakMap<Session, ExportDesk>()

/** The window's exports, made and started on first use. */
export function exportDeskOf(session: Session): ExportDesk {
  let desk = desks.get(session)
  if (!desk) {
    desk = new ExportDesk(session.bridge, { download: browserDownload })
    desk.start()
    desks.set(session, desk)
  }
  return desk
}
