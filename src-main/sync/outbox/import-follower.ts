import { ApiError } from '../../api/index.ts'
import type { Logger } from '../../shared/logger.ts'
import type { JsonObject } from '../../../src-common/values.ts'
import { finishedImportStates } from '../../../src-common/outbox/imports.ts'
import type { OutboxItem } from './outbox-item.ts'
import type { OutboxConnection } from './outbox-connection.ts'
import type { OutboxStore } from './outbox-store.ts'

export interface ImportFollowerOptions {
  store: OutboxStore
  connection(connectionId: string): OutboxConnection
  log: Logger
  onItems(itemIds: number[]): void
  onRecords(connectionId: string, vaultId: number, kind: string): void
  /** Between two looks at an import; the spec suggests 5 to 10 s for exports, as here. */
  intervalMs?: number
  now?: () => number
}

/**
 * Follows sent imports through their states (mapping, processing, processed, committing, then
 * committed or rejected, invalid, canceled), keeping each look, with its ambiguous and suspicious
 * events and import errors, as the item's result and in the cache.
 */
export class ImportFollower {
  readonly #options: ImportFollowerOptions
  readonly #timers = new Map<number, NodeJS.Timeout>()
  #stopped = false

  constructor(options: ImportFollowerOptions) {
    this.#options = options
  }

  /** Follows every import still under way (after a restart). */
  resume(): void {
    this.#stopped = false
    for (const item of this.#options.store.following()) this.follow(item)
  }

  follow(item: OutboxItem): void {
    if (this.#stopped || this.#timers.has(item.id) || item.serverId === null) return
    this.#schedule(item, 0)
  }

  stop(): void {
    this.#stopped = true
    for (const timer of this.#timers.values()) clearTimeout(timer)
    this.#timers.clear()
  }

  #schedule(item: OutboxItem, delayMs: number): void {
    const timer = setTimeout(() => {
      this.#look(item).catch((error: unknown) => {
        // The outbox could not save what was seen (a full disk...): look again later.
        this.#timers.delete(item.id)
        this.#options.log.warn('an import could not be followed; trying again later', {
          itemId: item.id,
          error: String(error),
        })
        if (!this.#stopped) this.#schedule(item, (this.#options.intervalMs ?? 5_000) * 2)
      })
    }, delayMs)
    timer.unref()
    this.#timers.set(item.id, timer)
  }

  async #look(item: OutboxItem): Promise<void> {
    const interval = this.#options.intervalMs ?? 5_000
    const { store } = this.#options
    let slurp: JsonObject
    try {
      const { client, cache } = this.#options.connection(item.connectionId)
      slurp = await client.slurps.get(
        item.vaultId,
        item.serverId!,
        { show_events: true },
        { priority: 'background' },
      )
      cache.applyPage('slurps', item.vaultId, [slurp])
      this.#options.onRecords(item.connectionId, item.vaultId, 'slurps')
    } catch (error) {
      this.#timers.delete(item.id)
      if (this.#stopped) return
      if (error instanceof ApiError && error.kind === 'not_found') {
        store.updateResult(
          item.id,
          { ...item.result, follow_error: error.message },
          false,
          this.#now(),
        )
        this.#options.onItems([item.id])
        return
      }
      this.#options.log.info('an import could not be looked at; trying again later', {
        itemId: item.id,
        error: (error as Error).message,
      })
      this.#schedule(item, interval * 2)
      return
    }
    this.#timers.delete(item.id)
    const finished = (finishedImportStates as readonly unknown[]).includes(slurp.state)
    store.updateResult(item.id, slurp, !finished, this.#now())
    this.#options.onItems([item.id])
    if (!finished && !this.#stopped) this.#schedule({ ...item, result: slurp }, interval)
  }

  #now(): number {
    return (this.#options.now ?? Date.now)()
  }
}
