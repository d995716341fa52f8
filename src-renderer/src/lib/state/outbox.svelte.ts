import type {
  OutboxChange,
  OutboxItemView,
  RequestArgs,
  Result,
  VaultDeskBridge,
} from '../bridge.ts'
import { queueWithFiles, type HandOverProgress, type QueueArgs } from '../outbox/file-handover.ts'
import { coalesced } from './coalesced.ts'

export type UploadProgress = { sentBytes: number; totalBytes: number }

/** How many sent and discarded items the Outbox view shows. */
const historyLength = 30

/**
 * The outbox as this window shows it: the items not yet settled, the recent history, the
 * progress of uploads under way, and the person's decisions on items. Fed by `outbox.changed`:
 * a change of items reads them again (coalesced); progress alone only moves the bars.
 */
export class OutboxActivity {
  /** Items not yet sent nor discarded, oldest first. */
  items = $state.raw<OutboxItemView[]>([])
  /** Sent and discarded items, newest first. */
  recent = $state.raw<OutboxItemView[]>([])
  counts = $state.raw<OutboxChange['counts'] | null>(null)
  /** Bytes sent of each upload under way, by item id (replaced whole, never changed in place). */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  progress = $state.raw<ReadonlyMap<number, UploadProgress>>(new Map())
  loaded = $state(false)
  readonly #bridge: VaultDeskBridge
  readonly #reportError: (message: string) => void
  readonly #refresh = coalesced(() => this.#read())

  constructor(bridge: VaultDeskBridge, reportError: (message: string) => void) {
    this.#bridge = bridge
    this.#reportError = reportError
  }

  start(): () => void {
    const stop = this.#bridge.on('outbox.changed', ({ counts, itemIds, progress }) => {
      this.counts = counts
      // eslint-disable-next-line svelte/prefer-svelte-reactivity
      this.progress = new Map(
        progress.map(({ itemId, sentBytes, totalBytes }) => [itemId, { sentBytes, totalBytes }]),
      )
      if (itemIds.length > 0) void this.#refresh()
    })
    void this.#refresh()
    return stop
  }

  /** Reads the items again now (after a decision, so that the view follows at once). */
  refresh(): Promise<void> {
    return this.#refresh()
  }

  /** An item of this window's view, unsettled or recent. */
  find(id: number): OutboxItemView | null {
    return (
      this.items.find((item) => item.id === id) ??
      this.recent.find((item) => item.id === id) ??
      null
    )
  }

  /** The bytes an upload has sent: from the latest progress event, else from the item. */
  progressOf(item: OutboxItemView): UploadProgress | null {
    return this.progress.get(item.id) ?? item.progress
  }

  /** Queues a change that carries no files. */
  queue(request: QueueArgs): Promise<Result<OutboxItemView[]>> {
    return this.#after(this.#bridge.invoke('outbox.queue', request))
  }

  /** Queues a change with files (a path each in Electron, else the bytes handed over). */
  queueFiles(
    files: readonly File[],
    build: (references: string[]) => QueueArgs,
    onProgress?: (progress: HandOverProgress) => void,
  ): Promise<Result<OutboxItemView[]>> {
    return this.#after(queueWithFiles(this.#bridge, files, build, onProgress))
  }

  retry(id: number): Promise<Result<OutboxItemView>> {
    return this.#after(this.#bridge.invoke('outbox.retry', { id }))
  }

  discard(id: number): Promise<Result<{ discarded: number[] }>> {
    return this.#after(this.#bridge.invoke('outbox.discard', { id }))
  }

  edit(id: number, payload: RequestArgs<'outbox.edit'>['payload']) {
    return this.#after(this.#bridge.invoke('outbox.edit', { id, payload }))
  }

  resolveConflict(id: number, choice: 'mine' | 'theirs') {
    return this.#after(this.#bridge.invoke('outbox.resolveConflict', { id, choice }))
  }

  resolveUncertain(id: number, choice: 'resend' | 'done') {
    return this.#after(this.#bridge.invoke('outbox.resolveUncertain', { id, choice }))
  }

  async #after<T>(request: Promise<Result<T>>): Promise<Result<T>> {
    const result = await request
    if (result.ok) void this.#refresh()
    return result
  }

  async #read(): Promise<void> {
    const [items, recent, counts] = await Promise.all([
      this.#bridge.invoke('outbox.list', {}),
      this.#bridge.invoke('outbox.history', { limit: historyLength }),
      this.#bridge.invoke('outbox.counts', {}),
    ])
    if (!items.ok) return this.#reportError(`Could not read the outbox: ${items.error.message}`)
    this.items = items.value
    if (recent.ok) this.recent = recent.value
    if (counts.ok) this.counts = counts.value
    this.loaded = true
  }
}
