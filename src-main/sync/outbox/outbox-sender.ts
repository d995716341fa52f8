import { backoffDelay } from '../../api/backoff.ts'
import type { UploadProgress } from '../../api/index.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Logger } from '../../shared/logger.ts'
import type { AttachmentFolder } from './attachment-folder.ts'
import type { OutboxConnection } from './outbox-connection.ts'
import { noCrash, type CrashHook } from './crash-points.ts'
import { failureVerdict } from './failure-verdict.ts'
import type { ImportFollower } from './import-follower.ts'
import { operations } from './operations/index.ts'
import type { SendContext, Sent } from './operations/operation.ts'
import type { RecordRef } from '../../../src-common/outbox/record-ref.ts'
import type { OutboxItem, Snapshot } from './outbox-item.ts'
import { MoveRefused, type OutboxStore } from './outbox-store.ts'
import type { SenderLease } from './sender-lease.ts'

export interface RetryTiming {
  baseDelayMs: number
  maxDelayMs: number
}

export interface OutboxSenderOptions {
  store: OutboxStore
  lease: SenderLease
  attachments: AttachmentFolder
  follower: ImportFollower
  /** The connection of an item; throws AppError('not_found') for a connection removed. */
  connection(connectionId: string): OutboxConnection
  log: Logger
  /** Items changed state (sent, failed, queued again...). */
  onItems(itemIds: number[]): void
  onProgress(itemId: number, progress: UploadProgress): void
  /** Cached records of a kind changed (an answer was stored). */
  onRecords(connectionId: string, vaultId: number, kind: string): void
  /** The server refused a connection's token: its queue waits for a new one. */
  onTokenRefused(connectionId: string, message: string): void
  /** Items of one connection in flight at once: the service allows 3 requests per user. */
  concurrency?: number
  retry?: Partial<RetryTiming>
  /** How often the database is looked at for work queued by other processes. */
  pollMs?: number
  now?: () => number
  random?: () => number
  /** Called where a test may kill the process (`crash-points.ts`); does nothing by default. */
  crashHook?: CrashHook
}

const defaultRetry: RetryTiming = { baseDelayMs: 2_000, maxDelayMs: 5 * 60_000 }
const leaseRenewalMs = 10_000
/** Sent and discarded items are kept this long for the Outbox view's history. */
const historyMs = 30 * 86_400_000

/**
 * The push loop. Items are sent in order per record and in parallel across records (but one at a
 * time per lane, see `lanes.ts`), at most `concurrency` per connection, through the connection's client (whose limiter keeps every
 * request within the service's limits) at background priority. Each attempt is committed as
 * "sending", and that commit is on disk, before any request leaves (the sync runs off the event
 * loop, shared by the attempts marked meanwhile); its outcome is committed after, unsynced. An
 * item left in "sending" by a process that died is looked up on the server before it is sent
 * again.
 */
export class OutboxSender {
  readonly #options: OutboxSenderOptions
  readonly #store: OutboxStore
  readonly #now: () => number
  readonly #retry: RetryTiming
  readonly #concurrency: number
  readonly #crashHook: CrashHook
  readonly #inFlight = new Map<
    number,
    { connectionId: string; lane: string | null; abort: AbortController; done: Promise<void> }
  >()
  /** Items in flight already marked "sending" (the others are still queued, in their look-ups). */
  readonly #marked = new Set<number>()
  readonly #paused = new Set<string>()
  readonly #idleWaiters: (() => void)[] = []
  #running = false
  #holdsLease = false
  #timer: NodeJS.Timeout | undefined
  #renewal: NodeJS.Timeout | undefined
  #pumpQueued = false

  constructor(options: OutboxSenderOptions) {
    this.#options = options
    this.#store = options.store
    this.#now = options.now ?? Date.now
    this.#retry = { ...defaultRetry, ...options.retry }
    this.#concurrency = options.concurrency ?? 3
    this.#crashHook = options.crashHook ?? noCrash
  }

  /** True while this process holds the lease and sends. */
  get sending(): boolean {
    return this.#holdsLease
  }

  /**
   * Starts sending, once this process holds the lease: items an earlier process left in
   * "sending" become in doubt (looked up first), and sent imports are followed again. While
   * another process sends, tries again now and then.
   */
  start(): boolean {
    if (this.#holdsLease) return true
    this.#running = true
    if (!this.#takeLease()) {
      this.#arm(this.#options.pollMs ?? 5_000)
      return false
    }
    return true
  }

  /** Looks for work now (an item was queued, a connection came back). */
  kick(): void {
    if (!this.#running || this.#pumpQueued) return
    this.#pumpQueued = true
    queueMicrotask(() => {
      this.#pumpQueued = false
      this.#pump()
    })
  }

  /** A new token was given: the connection's queue moves again. */
  resume(connectionId: string): void {
    if (this.#paused.delete(connectionId)) this.kick()
  }

  /** Resolves when nothing is in flight and nothing is due (items waiting to retry are not). */
  idle(): Promise<void> {
    if (!this.#holdsLease) return Promise.resolve()
    return new Promise((resolve) => {
      this.#idleWaiters.push(resolve)
      this.kick()
    })
  }

  /** Stops: attempts under way are cancelled (and so in doubt) and awaited; the lease is freed. */
  async stop(): Promise<void> {
    this.#running = false
    clearTimeout(this.#timer)
    clearInterval(this.#renewal)
    const attempts = [...this.#inFlight.values()]
    for (const { abort } of attempts) abort.abort()
    await Promise.allSettled(attempts.map(({ done }) => done))
    this.#options.follower.stop()
    if (this.#holdsLease) this.#options.lease.release()
    this.#holdsLease = false
    for (const resolve of this.#idleWaiters.splice(0)) resolve()
  }

  #takeLease(): boolean {
    if (!this.#options.lease.acquire()) return false
    this.#holdsLease = true
    const now = this.#now()
    const interrupted = this.#store.recoverInterrupted(now)
    if (interrupted.length > 0) {
      this.#options.log.warn('items were being sent when the outbox last stopped', {
        itemIds: interrupted,
      })
      this.#options.onItems(interrupted)
    }
    this.#store.prune(now - historyMs)
    this.#options.attachments.sweep(this.#store.attachmentPaths(), now)
    this.#renewal = setInterval(() => {
      if (this.#options.lease.acquire()) return
      // Another process took over (this one slept past the lease): it sends from now on.
      this.#options.log.error('the outbox lease was taken by another process')
      this.#holdsLease = false
      clearInterval(this.#renewal)
    }, leaseRenewalMs)
    this.#renewal.unref()
    this.#options.follower.resume()
    this.kick()
    return true
  }

  #pump(): void {
    if (!this.#running) return
    if (!this.#holdsLease) {
      if (!this.#takeLease()) return this.#arm(this.#options.pollMs ?? 5_000)
    }
    const now = this.#now()
    const perConnection = new Map<string, { busy: number; looking: number }>()
    // An item whose lane has one in flight waits (the store knows only those marked "sending").
    const lanes = new Set<string>()
    for (const [id, { connectionId, lane }] of this.#inFlight) {
      if (lane !== null) lanes.add(lane)
      const counts = perConnection.get(connectionId) ?? { busy: 0, looking: 0 }
      perConnection.set(connectionId, counts)
      counts.busy++
      if (!this.#marked.has(id)) counts.looking++
    }
    for (const connectionId of this.#store.queuedConnections()) {
      const { busy, looking } = perConnection.get(connectionId) ?? { busy: 0, looking: 0 }
      if (this.#paused.has(connectionId) || busy >= this.#concurrency) continue
      // Items claimed but still queued (their look-ups run) come back too: ask for enough.
      const ready = this.#store.ready(connectionId, now, this.#concurrency - busy + looking)
      let free = this.#concurrency - busy
      for (const item of ready) {
        if (free === 0) break
        if (this.#inFlight.has(item.id)) continue
        if (item.lane !== null) {
          if (lanes.has(item.lane)) continue
          lanes.add(item.lane)
        }
        free--
        this.#launch(item)
      }
    }
    if (this.#inFlight.size === 0) {
      for (const resolve of this.#idleWaiters.splice(0)) resolve()
    }
    // Items due now that did not go wait for an attempt to end, for the person, or for a token,
    // each of which looks again (kick): only later items set the timer, or the poll for items
    // queued by other processes. (Looking again at once would look after every turn of the event
    // loop while all three slots are busy.)
    const due = this.#store.nextDueAt(now)
    const poll = this.#options.pollMs ?? 5_000
    this.#arm(due === null ? poll : Math.min(poll, Math.max(0, due - now)))
  }

  #arm(delayMs: number): void {
    clearTimeout(this.#timer)
    if (!this.#running) return
    this.#timer = setTimeout(() => this.#pump(), delayMs)
    this.#timer.unref()
  }

  /** Claims an item in memory; the attempt commits "sending" before anything can change. */
  #launch(item: OutboxItem): void {
    const abort = new AbortController()
    const done = this.#attempt(item, abort.signal)
      .catch((error: unknown) => {
        // The person (or another process) moved the item meanwhile: its new state stands.
        if (error instanceof MoveRefused) {
          this.#options.log.info('an outbox item moved while it was attempted', {
            itemId: item.id,
            reason: error.message,
          })
          return
        }
        this.#options.log.error('an outbox attempt failed unexpectedly', {
          itemId: item.id,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        })
      })
      .finally(() => {
        this.#inFlight.delete(item.id)
        this.#marked.delete(item.id)
        this.#options.onItems([item.id])
        this.kick()
      })
    this.#inFlight.set(item.id, {
      connectionId: item.connectionId,
      lane: item.lane,
      abort,
      done,
    })
  }

  async #attempt(queued: OutboxItem, signal: AbortSignal): Promise<void> {
    let item = queued
    let connection: OutboxConnection
    try {
      connection = this.#options.connection(item.connectionId)
    } catch (error) {
      // A connection removed, or one this process does not know (a headless one of the command
      // line): its items wait, and say why, until it is given again.
      this.#paused.add(item.connectionId)
      this.#store.markRetry(
        item.id,
        describe(error, 'connection'),
        { nextAttemptAt: this.#now(), inDoubt: item.inDoubt, countAttempt: false },
        this.#now(),
      )
      return
    }
    const operation = operations[item.operation]
    const context: SendContext = {
      client: connection.client,
      get item() {
        return item
      },
      vaultId: item.vaultId,
      options: { priority: 'background', signal },
      resolve: (ref) => this.#resolve(ref),
      onProgress: (progress) => this.#options.onProgress(queued.id, progress),
      now: () => this.#now(),
      claimedByOthers: (serverIds, since) => this.#store.claimedByOthers(item, serverIds, since),
      inDoubtInLane: () => this.#store.inDoubtInLane(item),
    }
    let inDoubt = item.inDoubt
    let sending = false
    try {
      let snapshot: Snapshot | undefined
      if (inDoubt) {
        const reconciled = await operation.reconcile(context, item.payload)
        switch (reconciled.outcome) {
          case 'arrived':
            try {
              this.#complete(item, connection, reconciled.sent, reconciled.exclusive)
              this.#options.log.info('an item in doubt had arrived', { itemId: item.id })
              return
            } catch (error) {
              // Another item accounts for what was found: one record never stands for two.
              if (error instanceof MoveRefused) throw error
              if (!(error instanceof AppError && error.code === 'conflict')) throw error
              return this.#uncertain(
                item,
                `what the server has (record ${reconciled.sent.serverId}) is already accounted for by another item`,
              )
            }
          case 'unknown':
            return this.#uncertain(item, reconciled.reason)
          case 'conflict':
            return this.#conflict(item, reconciled.theirs)
          case 'absent':
            inDoubt = false
        }
      } else {
        // Read-only look-ups come first: nothing of them needs settling after a crash.
        if (operation.snapshot) {
          const at = this.#now()
          snapshot = { value: (await operation.snapshot(context, item.payload)) ?? null, at }
          item = { ...item, snapshot }
        }
        if (operation.changedSince && item.baseModifiedAt !== null) {
          const check = await operation.changedSince(context, item.payload, item.baseModifiedAt)
          if (check.changed === true) return this.#conflict(item, check.theirs)
        }
      }
      try {
        item = this.#store.markSending(item.id, this.#now(), {
          updatedAt: queued.updatedAt,
          ...(snapshot ? { snapshot } : {}),
        })
      } catch {
        return // discarded or edited during the look-ups: it is sent as it is now, later
      }
      this.#marked.add(item.id)
      this.#options.onItems([item.id])
      // "Sending" is on disk before the request leaves: the items marked meanwhile share a sync.
      await this.#store.synced()
      if (signal.aborted) {
        // Stopped before the request left: nothing of it can be on the server.
        this.#store.markRetry(
          item.id,
          { message: 'Stopped before it was sent.', kind: 'cancelled' },
          { nextAttemptAt: this.#now(), inDoubt, countAttempt: false },
          this.#now(),
        )
        return
      }
      sending = true
      this.#crashHook('before-request')
      const sent = await operation.send(context, item.payload)
      this.#crashHook('after-answer')
      this.#complete(item, connection, sent)
    } catch (error) {
      this.#fail(item, connection, error, { inDoubt, sending })
    }
  }

  #resolve(ref: RecordRef): number {
    if ('id' in ref) return ref.id
    const creator = this.#store.require(ref.item)
    if (creator.serverId === null) {
      throw new AppError(
        'conflict',
        `The record created by item ${ref.item} has no known server id (it is ${creator.state.replace('_', ' ')}).`,
      )
    }
    return creator.serverId
  }

  /** It may or may not have arrived, and the API cannot tell: the person decides. */
  #uncertain(item: OutboxItem, reason: string): void {
    this.#store.markStopped(
      item.id,
      'uncertain',
      { message: `It may or may not have arrived: ${reason}.`, kind: 'uncertain' },
      this.#now(),
    )
  }

  /**
   * Stores the answer in the cache first: a crash before the commit below is then in doubt. An
   * `exclusive` arrival that another item accounts for is refused (AppError 'conflict') before
   * anything is stored.
   */
  #complete(
    item: OutboxItem,
    connection: OutboxConnection,
    sent: Sent,
    exclusive?: { since: number | null },
  ): void {
    if (exclusive && sent.serverId !== null) {
      const holders = this.#store.claimedByOthers(item, [sent.serverId], exclusive.since)
      if (holders.size > 0) {
        throw new AppError('conflict', `Record ${sent.serverId} is accounted for by another item.`)
      }
    }
    if (sent.record && sent.serverId !== null) {
      try {
        connection.cache.applyPage(item.recordKind, item.vaultId, [sent.record])
        this.#options.onRecords(item.connectionId, item.vaultId, item.recordKind)
      } catch (error) {
        this.#options.log.warn('an answer could not be stored in the cache', {
          itemId: item.id,
          error: (error as Error).message,
        })
      }
    }
    const done = this.#store.markSent(item.id, sent, this.#now(), exclusive)
    if (done.attachment) this.#options.attachments.remove(done.attachment)
    if (done.following) this.#options.follower.follow(done)
  }

  #conflict(item: OutboxItem, theirs: Record<string, unknown>): void {
    this.#store.markStopped(
      item.id,
      'conflict',
      {
        message: 'The record was changed on the server after you began editing it.',
        kind: 'conflict',
      },
      this.#now(),
      { theirs },
    )
  }

  #fail(
    item: OutboxItem,
    connection: OutboxConnection,
    error: unknown,
    attempt: { inDoubt: boolean; sending: boolean },
  ): void {
    const verdict = failureVerdict(error, {
      requestMayHaveLeft: attempt.sending,
      tokenRefused: connection.client.needsNewToken,
    })
    const failure = { message: verdict.message, kind: verdict.kind }
    const now = this.#now()
    switch (verdict.action) {
      case 'retry': {
        const delay = Math.max(
          verdict.retryAfterMs ?? 0,
          backoffDelay(
            { ...this.#retry, attempts: Infinity, maxRetryAfterMs: 0 },
            item.attempts + (attempt.sending ? 0 : 1),
            this.#options.random,
          ),
        )
        this.#store.markRetry(
          item.id,
          failure,
          {
            nextAttemptAt: now + delay,
            inDoubt: attempt.inDoubt || verdict.inDoubt,
            countAttempt: !attempt.sending,
          },
          now,
        )
        return
      }
      case 'pause':
        this.#store.markRetry(
          item.id,
          failure,
          { nextAttemptAt: now, inDoubt: attempt.inDoubt, countAttempt: !attempt.sending },
          now,
        )
        if (!this.#paused.has(item.connectionId)) {
          this.#paused.add(item.connectionId)
          this.#options.onTokenRefused(item.connectionId, verdict.message)
        }
        return
      case 'attention':
        this.#store.markStopped(item.id, 'needs_attention', failure, now, {
          inDoubt: attempt.inDoubt,
        })
    }
  }
}

function describe(error: unknown, kind: string): { message: string; kind: string } {
  return { message: error instanceof Error ? error.message : String(error), kind }
}
