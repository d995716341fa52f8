/**
 * A vault's saved searches in the window: the list (from the cache, and those waiting in the
 * outbox), read again when sync or the outbox changes them; and the runs on the vault this window
 * started, followed by `searches.vaultRun` until they end (a download in the browser preview).
 */
import type { SavedSearchSummary, SavedSearchVaultRun } from '../../../../src-main/ipc/contract.ts'
import type { VaultDeskBridge } from '../bridge.ts'

/** The formats a run on the vault may be saved in from the window (the save dialog's). */
export const vaultRunChoices = [
  { format: 'csv', label: 'CSV', hint: 'The vault’s columns, one molecule a row' },
  { format: 'sdf', label: 'SD file', hint: 'Structures with the vault’s fields as properties' },
] as const
export type WindowRunFormat = (typeof vaultRunChoices)[number]['format']

export type VaultRunOutcome =
  | { kind: 'started'; runId: string }
  /** The person closed the save dialog: nothing happened. */
  | { kind: 'dismissed' }
  | { kind: 'refused'; message: string }

export interface VaultRunView extends SavedSearchVaultRun {
  /** The file's name, as the person chose it or as it downloads. */
  fileName: string
  /** The browser preview: where the page downloads the file once complete. */
  download: string | null
  cancelling: boolean
}

export interface SavedSearchesOptions {
  /** Starts the browser's download of a file the preview serves at `href`. */
  download: (href: string, name: string) => void
}

const endedStates: ReadonlySet<SavedSearchVaultRun['state']> = new Set([
  'completed',
  'failed',
  'cancelled',
])

export function isEnded(run: Pick<SavedSearchVaultRun, 'state'>): boolean {
  return endedStates.has(run.state)
}

export class SavedSearches {
  readonly connectionId: string
  readonly vaultId: number
  searches = $state.raw<SavedSearchSummary[]>([])
  loaded = $state(false)
  error = $state<string | null>(null)
  runs = $state<VaultRunView[]>([])
  readonly #bridge: VaultDeskBridge
  readonly #options: SavedSearchesOptions
  // Progress that came before the answer naming its run: nothing renders it.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #early = new Map<string, SavedSearchVaultRun>()

  constructor(
    bridge: VaultDeskBridge,
    connectionId: string,
    vaultId: number,
    options: SavedSearchesOptions,
  ) {
    this.#bridge = bridge
    this.connectionId = connectionId
    this.vaultId = vaultId
    this.#options = options
  }

  start(): () => void {
    void this.load()
    const stops = [
      this.#bridge.on('records.changed', ({ connectionId, vaultId, kinds }) => {
        const mine = connectionId === this.connectionId && vaultId === this.vaultId
        if (mine && kinds.some((kind) => ['saved_searches', 'projects', 'fields'].includes(kind))) {
          void this.load()
        }
      }),
      this.#bridge.on('outbox.changed', () => void this.load()),
      this.#bridge.on('searches.vaultRun', (run) => this.#progress(run)),
    ]
    return () => stops.forEach((stop) => stop())
  }

  async load(): Promise<void> {
    const answer = await this.#bridge.invoke('searches.list', {
      connectionId: this.connectionId,
      vaultId: this.vaultId,
    })
    this.loaded = true
    if (!answer.ok) {
      this.error = answer.error.message
      return
    }
    this.error = null
    this.searches = answer.value
  }

  /** Asks where to save, then has the vault run the search; answers once it has started. */
  async runOnVault(search: SavedSearchSummary, format: WindowRunFormat): Promise<VaultRunOutcome> {
    const chosen = await this.#bridge.invoke('app.chooseSavePath', {
      format,
      suggestedName: search.name,
    })
    if (!chosen.ok) return { kind: 'refused', message: chosen.error.message }
    if (chosen.value === null) return { kind: 'dismissed' }
    const { path, name, download } = chosen.value
    const started = await this.#bridge.invoke('searches.runOnVault', {
      connectionId: this.connectionId,
      vaultId: this.vaultId,
      search: search.id ?? search.name,
      format,
      path,
    })
    if (!started.ok) return { kind: 'refused', message: started.error.message }
    const run: VaultRunView = {
      ...started.value,
      fileName: name,
      download: download ?? null,
      cancelling: false,
    }
    this.runs.push(run)
    const early = this.#early.get(run.runId)
    this.#early.delete(run.runId)
    if (early) this.#progress(early)
    return { kind: 'started', runId: run.runId }
  }

  async cancel(runId: string): Promise<void> {
    const run = this.runs.find((candidate) => candidate.runId === runId)
    if (!run || isEnded(run)) return
    run.cancelling = true
    const answer = await this.#bridge.invoke('searches.cancelVaultRun', { runId })
    if (!answer.ok) {
      run.cancelling = false
      run.error = { code: answer.error.code, message: answer.error.message }
    }
  }

  /** Forgets a run that has ended. */
  dismiss(runId: string): void {
    this.runs = this.runs.filter((run) => run.runId !== runId || !isEnded(run))
  }

  #progress(progress: SavedSearchVaultRun): void {
    if (progress.connectionId !== this.connectionId || progress.vaultId !== this.vaultId) return
    const run = this.runs.find((candidate) => candidate.runId === progress.runId)
    if (!run) {
      this.#early.set(progress.runId, progress)
      return
    }
    if (isEnded(run)) return
    Object.assign(run, progress)
    if (!isEnded(progress)) return
    run.cancelling = false
    if (progress.state === 'completed' && run.download !== null) {
      this.#options.download(run.download, run.fileName)
    }
  }
}

/** A run on the vault in words: where it is. */
export function runStateText(run: SavedSearchVaultRun): string {
  switch (run.state) {
    case 'waiting':
      return 'Waiting for an export place (the vault runs 3 at a time)'
    case 'queued':
      return run.queuePosition === null
        ? 'Queued on the vault'
        : `Queued on the vault, position ${run.queuePosition}`
    case 'running':
      return 'Running on the vault'
    case 'downloading':
      return 'Downloading the result'
    case 'completed':
      return 'Saved'
    case 'cancelled':
      return 'Cancelled: no file was kept'
    case 'failed':
      return 'Failed: no file was kept'
  }
}
