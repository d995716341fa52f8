import type { ConnectionSyncState, SyncProgress, SyncSettings, VaultDeskBridge } from '../bridge.ts'

/** Where the sync of one kind of one vault stands in the current (or last) run. */
export interface KindProgress {
  vaultId: number
  kind: string
  done: number
  total: number | null
}

/**
 * The sync of every connection as main reports it: whether it runs, how it last ended, when it
 * runs next, and, per vault and kind, how far the current run has come.
 */
export class SyncActivity {
  states = $state<Record<string, ConnectionSyncState>>({})
  /** By connection: the kinds of the current run, in the order they started. */
  progress = $state<Record<string, KindProgress[]>>({})
  settings = $state<SyncSettings | null>(null)
  readonly #bridge: VaultDeskBridge
  readonly #reportError: (message: string) => void

  constructor(bridge: VaultDeskBridge, reportError: (message: string) => void) {
    this.#bridge = bridge
    this.#reportError = reportError
  }

  /** Listens first and then asks, so that no change is missed; a pushed change beats the answer. */
  start(): () => void {
    const pushed: string[] = []
    const stops = [
      this.#bridge.on('sync.changed', (state) => {
        pushed.push(state.connectionId)
        this.#apply(state)
      }),
      this.#bridge.on('sync.progress', (progress) => this.#record(progress)),
    ]
    void this.#bridge.invoke('sync.state', {}).then((result) => {
      if (!result.ok) {
        this.#reportError(`Could not read the sync state: ${result.error.message}`)
        return
      }
      for (const state of result.value) if (!pushed.includes(state.connectionId)) this.#apply(state)
    })
    void this.#bridge.invoke('sync.settings', {}).then((result) => {
      if (result.ok) this.settings = result.value
    })
    return () => stops.forEach((stop) => stop())
  }

  of(connectionId: string | null): ConnectionSyncState | null {
    return connectionId === null ? null : (this.states[connectionId] ?? null)
  }

  progressOf(connectionId: string | null): KindProgress[] {
    return connectionId === null ? [] : (this.progress[connectionId] ?? [])
  }

  get anyRunning(): boolean {
    return Object.values(this.states).some((state) => state.running)
  }

  async syncNow(connectionId: string): Promise<void> {
    const result = await this.#bridge.invoke('sync.start', { connectionId })
    if (!result.ok) this.#reportError(`Could not start the sync: ${result.error.message}`)
  }

  async cancel(connectionId: string): Promise<void> {
    const result = await this.#bridge.invoke('sync.cancel', { connectionId })
    if (!result.ok) this.#reportError(`Could not stop the sync: ${result.error.message}`)
  }

  async configure(intervalMinutes: number): Promise<void> {
    const result = await this.#bridge.invoke('sync.configure', { intervalMinutes })
    if (result.ok) this.settings = result.value
    else this.#reportError(`Could not change how often to sync: ${result.error.message}`)
  }

  #apply(state: ConnectionSyncState): void {
    const previous = this.states[state.connectionId]
    // A new run starts with nothing done; the last run's figures stay visible until then.
    if (state.running && previous?.startedAt !== state.startedAt) {
      this.progress[state.connectionId] = []
    }
    this.states[state.connectionId] = state
    if (state.progress) this.#record(state.progress)
  }

  #record({ connectionId, vaultId, kind, done, total }: SyncProgress): void {
    const kinds = (this.progress[connectionId] ??= [])
    const existing = kinds.find((entry) => entry.vaultId === vaultId && entry.kind === kind)
    if (existing) {
      existing.done = done
      existing.total = total
    } else {
      kinds.push({ vaultId, kind, done, total })
    }
  }
}
