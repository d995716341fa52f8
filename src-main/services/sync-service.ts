import fs from 'node:fs'
import { ApiError } from '../api/index.ts'
import { AppError, toErrorValue, type ErrorValue } from '../shared/app-error.ts'
import type { EventBus } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import type { ConnectionSyncState, SyncOutcome } from '../shared/sync-status.ts'
import { pullConnection, type ConnectionPullResult } from '../sync/connection-pull.ts'
import { SyncScheduler, type SyncReason } from '../sync/sync-scheduler.ts'
import type { ConnectionRegistry } from '../store/connection-registry.ts'
import { NewerSchemaError } from '../store/migrations.ts'
import { databaseFiles } from '../store/sqlite.ts'
import type { SettingsRepository } from '../store/settings-repository.ts'
import type { ConnectionRuntime } from './connection-runtime.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'
import type { StatusService } from './status-service.ts'
import type { StructureIngest } from './structure-ingest.ts'

/** How a sync run ended, with what it pulled: what `vault-desk sync` prints. */
export interface SyncRunResult {
  connectionId: string
  outcome: SyncOutcome
  error: ErrorValue | null
  vaults: ConnectionPullResult['vaults']
  /** HTTP requests the run sent, retries included. */
  requests: number
  durationMs: number
}

export interface SyncRunOptions {
  /** Only these vaults. */
  vaultIds?: readonly number[]
  /**
   * Read the vault list and reference data and check deletions now, whether due or not. True by
   * default: a run asked for (the CLI, "Sync now") wants everything; scheduled runs refresh only
   * what is due.
   */
  refreshAll?: boolean
}

export interface PullTuning {
  exportThreshold?: number
  refusalRetryMs?: number
}

export interface SyncServiceOptions {
  runtimes: ConnectionRuntimes
  registry: ConnectionRegistry
  settings: SettingsRepository
  events: EventBus
  status: StatusService
  log: Logger
  pull: PullTuning
  /** Told of committed molecules, to index their structures (none: sync only). */
  ingest?: StructureIngest
}

const intervalKey = 'sync.intervalMinutes'
const defaultIntervalMinutes = 15
/**
 * How often scheduled syncs also read reference data whole (fields, projects, users, protocols,
 * plates, templates...) and check every kind for deletions; in between they ask only what
 * changed. "Sync now" always does all of it.
 */
const referenceRefreshKey = 'sync.referenceRefreshMinutes'
const defaultReferenceRefreshMinutes = 60
/** A long pass tells the UI its lists changed at most this often. */
const changedEveryMs = 2000

interface Running {
  controller: AbortController
  done: Promise<SyncRunResult>
}

/**
 * Runs pull syncs: on demand, and (once `startScheduling` is called, by hosts that stay up) at
 * start, every interval, and when a connection's API answers again. One run per connection at a
 * time; a connection whose token the server refused is not synced until it gets a new one.
 */
export class SyncService {
  readonly #options: SyncServiceOptions
  readonly #scheduler: SyncScheduler
  readonly #running = new Map<string, Running>()
  readonly #states = new Map<string, ConnectionSyncState>()
  /**
   * Connections whose cache a newer Vault Desk wrote, with its files as they were when refused:
   * scheduled syncs leave them alone until the files change (the newer build synced, or the copy
   * was replaced), the person asks, the connection changes, or the app starts again.
   */
  readonly #refusedCopies = new Map<string, { file: string; found: string }>()
  #scheduling = false

  constructor(options: SyncServiceOptions) {
    this.#options = options
    this.#scheduler = new SyncScheduler({
      intervalMs: this.settings().intervalMinutes * 60_000,
      run: (connectionId, reason) => this.#scheduled(connectionId, reason),
      onScheduled: (connectionId, at) =>
        this.#update(connectionId, { nextSyncAt: at?.toISOString() ?? null }),
    })
  }

  /** Syncs every saved connection now, then keeps them in sync. */
  startScheduling(): void {
    if (this.#scheduling) return
    this.#scheduling = true
    for (const connection of this.#options.registry.list()) this.#scheduler.add(connection.id)
  }

  /**
   * A connection was added (or got a new token, or moved): when scheduling, it syncs now and on
   * schedule from then on. Hosts that do not schedule (the CLI) sync when told.
   */
  track(connectionId: string): void {
    if (this.#scheduling) this.#scheduler.add(connectionId)
  }

  /** A connection is being removed: stop its sync and its schedule. */
  async untrack(connectionId: string): Promise<void> {
    this.#scheduler.remove(connectionId)
    const running = this.#running.get(connectionId)
    running?.controller.abort()
    await running?.done
    this.#states.delete(connectionId)
  }

  /**
   * Starts syncs now (one connection or all saved ones); answers the connections started. One
   * already syncing, or whose token the server refused, is left as it is.
   */
  startNow(connectionId?: string): string[] {
    const ids = connectionId
      ? [this.#options.registry.get(connectionId).id]
      : this.#options.registry.list().map((connection) => connection.id)
    const started = ids.filter((id) => !this.#running.has(id) && !this.#needsNewToken(id))
    for (const id of started) this.#scheduler.syncNow(id)
    return started
  }

  /**
   * False too when the connection cannot be opened (its cache is damaged beyond opening, or a
   * newer Vault Desk wrote it): its sync is started so that its state records why it cannot run,
   * and the other connections still sync.
   */
  #needsNewToken(connectionId: string): boolean {
    try {
      return this.#options.runtimes.get(connectionId).client.needsNewToken
    } catch {
      return false
    }
  }

  cancel(connectionId?: string): string[] {
    const ids = connectionId ? [connectionId] : [...this.#running.keys()]
    const cancelled = ids.filter((id) => this.#running.has(id))
    for (const id of cancelled) this.#running.get(id)!.controller.abort()
    return cancelled
  }

  states(): ConnectionSyncState[] {
    return this.#options.registry.list().map((connection) => this.#state(connection.id))
  }

  settings(): { intervalMinutes: number } {
    const saved = Number(this.#options.settings.get(intervalKey))
    return {
      intervalMinutes: Number.isInteger(saved) && saved > 0 ? saved : defaultIntervalMinutes,
    }
  }

  configure(settings: { intervalMinutes: number }): { intervalMinutes: number } {
    this.#options.settings.set(intervalKey, String(settings.intervalMinutes))
    this.#scheduler.setInterval(settings.intervalMinutes * 60_000)
    return this.settings()
  }

  /** How often scheduled syncs refresh reference data and check deletions (see above). */
  referenceRefreshMinutes(): number {
    const saved = Number(this.#options.settings.get(referenceRefreshKey))
    return Number.isInteger(saved) && saved > 0 ? saved : defaultReferenceRefreshMinutes
  }

  configureReferenceRefresh(minutes: number): number {
    if (!Number.isInteger(minutes) || minutes < 1) {
      throw new AppError('invalid_argument', 'The reference refresh is a whole number of minutes.')
    }
    this.#options.settings.set(referenceRefreshKey, String(minutes))
    return this.referenceRefreshMinutes()
  }

  /** Called when the server refused a connection's token: its sync stops at once. */
  tokenRefused(connectionId: string): void {
    this.#running.get(connectionId)?.controller.abort()
  }

  reconnected(connectionId: string): void {
    if (this.#scheduling) this.#scheduler.reconnected(connectionId)
  }

  /**
   * Pulls a connection (saved, or headless for the CLI) now and answers how it went; a run
   * already under way for the connection is answered instead of starting another.
   */
  run(runtime: ConnectionRuntime, options: SyncRunOptions = {}): Promise<SyncRunResult> {
    const running = this.#running.get(runtime.id)
    if (running) return running.done
    const controller = new AbortController()
    const done = this.#pull(runtime, controller.signal, options).finally(() => {
      this.#running.delete(runtime.id)
      this.#options.status.update({ syncing: this.#running.size > 0 })
    })
    this.#running.set(runtime.id, { controller, done })
    this.#options.status.update({ syncing: true })
    return done
  }

  /** Stops scheduling and every run, and waits for them to end. */
  async close(): Promise<void> {
    this.#scheduler.stop()
    const runs = [...this.#running.values()]
    for (const run of runs) run.controller.abort()
    await Promise.allSettled(runs.map((run) => run.done))
  }

  #scheduled(connectionId: string, reason: SyncReason): void {
    const refused = this.#refusedCopies.get(connectionId)
    if (refused && (reason === 'interval' || reason === 'reconnect')) {
      if (filesAsFound(refused.file) === refused.found) {
        // Still the newer build's copy, untouched: looked at again an interval later.
        if (this.#scheduling) this.#scheduler.finished(connectionId)
        return
      }
    }
    this.#refusedCopies.delete(connectionId)
    this.#options.log.debug('sync scheduled', { connectionId, reason })
    void this.#start(connectionId, reason === 'demand')
  }

  async #start(connectionId: string, refreshAll: boolean): Promise<void> {
    if (this.#running.has(connectionId)) return
    if (!this.#options.registry.list().some((connection) => connection.id === connectionId)) return
    let runtime: ConnectionRuntime
    try {
      runtime = this.#options.runtimes.get(connectionId)
      await this.#options.runtimes.verifyOnce(connectionId)
    } catch (error) {
      if (error instanceof NewerSchemaError) {
        this.#refusedCopies.set(connectionId, { file: error.file, found: filesAsFound(error.file) })
        this.#options.log.warn(
          'the local copy belongs to a newer Vault Desk: not synced until it changes or a sync is asked for',
          { connectionId, file: error.file, schema: error.version, known: error.known },
        )
      } else {
        this.#options.log.error('cannot open a connection for sync', { connectionId, error })
      }
      this.#update(connectionId, { lastOutcome: 'failed', lastError: toErrorValue(error) })
      // Tried again an interval later (a refused copy only once it has changed).
      if (this.#scheduling) this.#scheduler.finished(connectionId)
      return
    }
    if (runtime.client.needsNewToken) return
    this.#noteLastSync(runtime)
    await this.run(runtime, { refreshAll })
    if (this.#scheduling) this.#scheduler.finished(connectionId)
  }

  async #pull(
    runtime: ConnectionRuntime,
    signal: AbortSignal,
    options: SyncRunOptions,
  ): Promise<SyncRunResult> {
    const { events, log, pull } = this.#options
    const connectionId = runtime.id
    const startedAt = new Date()
    const requestsBefore = runtime.requests
    this.#update(connectionId, {
      running: true,
      startedAt: startedAt.toISOString(),
      progress: null,
    })
    const lastChanged = new Map<string, number>()
    let outcome: SyncOutcome
    let error: ErrorValue | null = null
    let vaults: ConnectionPullResult['vaults'] = []
    try {
      if (runtime.client.needsNewToken || (await runtime.token()) === null) {
        throw new AppError(
          'authentication',
          `The connection "${runtime.name}" needs a new API token.`,
        )
      }
      const result = await pullConnection({
        client: runtime.client,
        cache: runtime.cache,
        log: log.child({ connectionId }),
        signal,
        ...(options.vaultIds ? { vaultIds: options.vaultIds } : {}),
        refreshAll: options.refreshAll ?? true,
        referenceRefreshMs: this.referenceRefreshMinutes() * 60_000,
        ...pull,
        observer: {
          progress: (vaultId, kind, done, total) => {
            const progress = { connectionId, vaultId, kind, done, total }
            this.#update(connectionId, { progress }, false)
            events.emit('sync.progress', progress)
            this.#options.ingest?.committed(connectionId, vaultId, kind)
            const key = `${vaultId} ${kind}`
            if (Date.now() - (lastChanged.get(key) ?? 0) >= changedEveryMs) {
              lastChanged.set(key, Date.now())
              events.emit('records.changed', { connectionId, vaultId, kinds: [kind] })
            }
          },
          changed: (vaultId, kind) => {
            events.emit('records.changed', { connectionId, vaultId, kinds: [kind] })
            this.#options.ingest?.committed(connectionId, vaultId, kind)
          },
        },
      })
      vaults = result.vaults
      const failures = vaults.flatMap((vault) =>
        vault.failures.map(
          (failure) => `vault ${vault.vaultId} ${failure.kind}: ${failure.message}`,
        ),
      )
      outcome = failures.length === 0 ? 'completed' : 'failed'
      if (failures.length > 0) {
        error = {
          code: 'internal',
          message: `Some records could not be pulled: ${failures.join('; ')}`,
        }
      }
    } catch (caught) {
      outcome = outcomeOf(caught, runtime)
      error = toErrorValue(caught)
      if (outcome === 'needs_token' && caught instanceof ApiError) {
        const said = caught.kind === 'authentication' ? ` (${caught.message})` : ''
        error = {
          code: 'authentication',
          message: `The server refused the API token of "${runtime.name}"${said}. Give it a new token.`,
        }
      }
      if (outcome === 'failed') log.error('sync failed', { connectionId, error: caught })
    }
    const finishedAt = new Date()
    this.#update(connectionId, {
      running: false,
      finishedAt: finishedAt.toISOString(),
      progress: null,
      lastOutcome: outcome,
      lastError: error,
    })
    if (outcome === 'completed')
      this.#options.status.update({ lastSyncAt: finishedAt.toISOString() })
    log.info('sync ended', { connectionId, outcome, requests: runtime.requests - requestsBefore })
    return {
      connectionId,
      outcome,
      error,
      vaults,
      requests: runtime.requests - requestsBefore,
      durationMs: finishedAt.getTime() - startedAt.getTime(),
    }
  }

  /** The top bar shows the latest complete sync of any vault, from before this run too. */
  #noteLastSync(runtime: ConnectionRuntime): void {
    const latest = runtime.cache
      .lastSyncs()
      .reduce<string | null>(
        (best, sync) => (best === null || sync.lastSyncAt > best ? sync.lastSyncAt : best),
        null,
      )
    const shown = this.#options.status.current().lastSyncAt
    if (latest !== null && (shown === null || latest > shown)) {
      this.#options.status.update({ lastSyncAt: latest })
    }
  }

  #state(connectionId: string): ConnectionSyncState {
    return (
      this.#states.get(connectionId) ?? {
        connectionId,
        running: false,
        startedAt: null,
        finishedAt: null,
        progress: null,
        lastOutcome: null,
        lastError: null,
        nextSyncAt: this.#scheduler.nextSyncAt(connectionId)?.toISOString() ?? null,
      }
    )
  }

  #update(connectionId: string, change: Partial<ConnectionSyncState>, announce = true): void {
    const next = { ...this.#state(connectionId), ...change }
    this.#states.set(connectionId, next)
    if (announce) this.#options.events.emit('sync.changed', next)
  }
}

/** A database's files as found now (which file, its size and times, its WAL's): one string. */
function filesAsFound(file: string): string {
  return databaseFiles(file)
    .slice(0, 2)
    .map((part) => {
      const stat = fs.statSync(part, { bigint: true, throwIfNoEntry: false })
      return stat ? `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}` : '-'
    })
    .join(' ')
}

function outcomeOf(error: unknown, runtime: ConnectionRuntime): SyncOutcome {
  if (runtime.client.needsNewToken) return 'needs_token'
  if (error instanceof AppError && error.code === 'authentication') return 'needs_token'
  if (error instanceof ApiError && error.kind === 'network') return 'offline'
  if (error instanceof ApiError && error.kind === 'cancelled') return 'cancelled'
  if (error instanceof Error && error.name === 'AbortError') return 'cancelled'
  return 'failed'
}
