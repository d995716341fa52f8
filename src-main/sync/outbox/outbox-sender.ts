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
import { MoveRefused, unwritable, type OutboxStore, type OutboxUnwritable } from './outbox-store.ts'
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
  /**
   * The outbox cannot save (the problem; sending waits and tries again, later each time), or
   * can again (null).
   */
  onStorage?(problem: OutboxUnwritable | null): void
  /** Items of one connection in flight at once: the service allows 3 requests per user. */
  concurrency?: number
  retry?: Partial<RetryTiming>
  /** The waits after the outbox could not save, growing from the first to the longest. */
  storageRetry?: Partial<RetryTiming>
  /** How often the database is looked at for work queued by other processes. */
  pollMs?: number
  /** How often the lease is renewed (and found lost). */
  leaseRenewalMs?: number
  /**
   * Whether copies of files no item needs are deleted when the lease is taken (default yes); not
   * after a damaged outbox was recovered: items that could not be read may still be queued again
   * from their copies. Asked then: the page check that finds the damage may end after this starts.
   */
  sweepAttachments?: () => boolean
  now?: () => number
  random?: () => number
  /** Called where a test may kill the process (`crash-points.ts`); does nothing by default. */
  crashHook?: CrashHook
}

const defaultRetry: RetryTiming = { baseDelayMs: 2_000, maxDelayMs: 5 * 60_000 }
const defaultStorageRetry: RetryTiming = { baseDelayMs: 1_000, maxDelayMs: 60_000 }
const defaultLeaseRenewalMs = 10_000
/** How often the sender looks again while another process repairs the outbox's file. */
const repairPollMs = 250
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
 *
 * Nothing here turns an error into a loop: an outbox that cannot save (a full disk, a read-only
 * folder) stops starting attempts and tries again after a growing wait, telling `onStorage`; an
 * item whose attempt failed in a way nobody foresaw waits too, alone. A lease lost to another
 * process stops every attempt in flight (their requests are aborted) and writes none of their
 * outcomes: the new holder looks those items up.
 */
export class OutboxSender {
  readonly #options: OutboxSenderOptions
  readonly #store: OutboxStore
  readonly #now: () => number
  readonly #retry: RetryTiming
  readonly #storageRetry: RetryTiming
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
  /** Items whose attempt failed unexpectedly: not tried again before `until`. */
  readonly #held = new Map<number, { until: number; failures: number }>()
  #running = false
  #holdsLease = false
  /** Counts the leases lost: an attempt begun under an earlier one writes nothing. */
  #lease = 0
  #timer: NodeJS.Timeout | undefined
  #renewal: NodeJS.Timeout | undefined
  #pumpQueued = false
  /** Set while the outbox cannot save: no attempt starts until a write goes through again. */
  #unwritable: OutboxUnwritable | null = null
  /** Storage failures since an attempt last ended with its outcome saved: the wait grows. */
  #storageFailures = 0

  constructor(options: OutboxSenderOptions) {
    this.#options = options
    this.#store = options.store
    this.#now = options.now ?? Date.now
    this.#retry = { ...defaultRetry, ...options.retry }
    this.#storageRetry = { ...defaultStorageRetry, ...options.storageRetry }
    this.#concurrency = options.concurrency ?? 3
    this.#crashHook = options.crashHook ?? noCrash
  }

  /** True while this process holds the lease and sends. */
  get sending(): boolean {
    return this.#holdsLease
  }

  /** Why the outbox cannot save now, or null. */
  get unwritable(): OutboxUnwritable | null {
    return this.#unwritable
  }

  /**
   * Starts sending, once this process holds the lease: items an earlier process left in
   * "sending" become in doubt (looked up first), and sent imports are followed again. While
   * another process sends, tries again now and then.
   */
  start(): boolean {
    if (this.#holdsLease) return true
    this.#running = true
    try {
      // Taken once another process's repair of the file is over (see `#pumpOnce`).
      if (this.#store.repairHolder() !== null) {
        this.#arm(repairPollMs)
        return false
      }
      if (this.#takeLease()) return true
      this.#arm(this.#options.pollMs ?? 5_000)
    } catch (error) {
      this.#failed(error)
    }
    return false
  }

  /** Looks for work now (an item was queued, a connection came back). */
  kick(): void {
    // While the outbox cannot save, only the wait's timer looks again.
    if (!this.#running || this.#pumpQueued || this.#unwritable) return
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
    if (!this.#holdsLease || this.#unwritable) return Promise.resolve()
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
    try {
      if (this.#holdsLease) this.#options.lease.release()
    } catch (error) {
      // The lease row stays: its holder's process is gone once this one ends, which frees it.
      this.#options.log.warn('the outbox lease could not be released', { error: String(error) })
    }
    this.#holdsLease = false
    for (const resolve of this.#idleWaiters.splice(0)) resolve()
  }

  /** Takes the lease (false while another process holds it); throws what the database throws. */
  #takeLease(): boolean {
    if (!this.#options.lease.acquire()) return false
    const now = this.#now()
    this.#recoverInterrupted(now, 'items were being sent when the outbox last stopped')
    this.#store.prune(now - historyMs)
    try {
      if (this.#options.sweepAttachments?.() ?? true) {
        this.#options.attachments.sweep(this.#store.attachmentPaths(), now)
      }
    } catch (error) {
      this.#options.log.warn('unneeded copies of queued files could not be deleted', {
        error: String(error),
      })
    }
    this.#holdsLease = true
    clearInterval(this.#renewal)
    this.#renewal = setInterval(
      () => this.#renew(),
      this.#options.leaseRenewalMs ?? defaultLeaseRenewalMs,
    )
    this.#renewal.unref()
    this.#options.follower.resume()
    this.kick()
    return true
  }

  /** Items left "sending" by attempts no longer under way here: in doubt, looked up first. */
  #recoverInterrupted(now: number, why: string): void {
    const interrupted = this.#store.recoverInterrupted(now, [...this.#inFlight.keys()])
    if (interrupted.length === 0) return
    this.#options.log.warn(why, { itemIds: interrupted })
    this.#options.onItems(interrupted)
  }

  #renew(): void {
    try {
      // Renewed at the next turn: the lease outlasts a few of them.
      if (this.#store.repairHolder() !== null) return
      if (this.#options.lease.acquire()) return
      this.#loseLease()
    } catch (error) {
      // The lease stays this process's while it runs (see SenderLease): only sending waits.
      this.#failed(error)
    }
  }

  /**
   * Another process took over (this one slept past the lease): it sends from now on, and looks
   * up the items this one had under way. Their requests are aborted and their outcomes never
   * written here, where they could overwrite what the new holder does.
   */
  #loseLease(): void {
    this.#options.log.error('the outbox lease was taken by another process')
    this.#holdsLease = false
    this.#lease++
    clearInterval(this.#renewal)
    this.#options.follower.stop()
    for (const { abort } of this.#inFlight.values()) abort.abort()
    this.#arm(this.#options.pollMs ?? 5_000)
  }

  /** Every way the sender's own work can fail ends here: it waits, never loops at once. */
  #pump(): void {
    if (!this.#running) return
    try {
      this.#pumpOnce()
    } catch (error) {
      this.#failed(error)
    }
  }

  /**
   * An error of the sender's own work, outside any one attempt: the database could not save (the
   * outbox is unwritable until a write goes through; the wait grows), or anything else (looked at
   * again at the next poll).
   */
  #failed(error: unknown): void {
    const problem = unwritable(error, this.#store.database.name)
    if (!problem) {
      this.#options.log.error('the outbox sender failed unexpectedly', {
        error: describeError(error),
      })
      this.#arm(this.#options.pollMs ?? 5_000)
      return
    }
    this.#storageFailures++
    if (!this.#unwritable) {
      this.#options.log.error('the outbox cannot save; sending waits', { error: problem.message })
      this.#unwritable = problem
      this.#options.onStorage?.(problem)
    }
    this.#settleIdle()
    this.#waitToSave()
  }

  /** The next look while the outbox cannot save: later after each failure, up to the longest. */
  #waitToSave(): void {
    this.#arm(growingDelay(this.#storageRetry, this.#storageFailures, this.#options.random))
  }

  /** A write went through again: attempts may start (those it left "sending" are in doubt). */
  #writable(now: number): void {
    if (!this.#unwritable) return
    this.#recoverInterrupted(now, 'items whose outcome could not be saved are looked up')
    this.#unwritable = null
    this.#options.log.info('the outbox can save again')
    this.#options.onStorage?.(null)
  }

  #pumpOnce(): void {
    // Another process repairing the file holds its writes: nothing waits on them here (a window's
    // thread), the sender looks again shortly, and then goes on over the repaired file.
    if (this.#store.repairHolder() !== null) return this.#arm(repairPollMs)
    // Another process may have put a repaired file in the outbox's place: work is read from it.
    this.#store.followIfReplaced()
    if (!this.#holdsLease) {
      if (!this.#takeLease()) return this.#arm(this.#options.pollMs ?? 5_000)
    } else if (this.#unwritable) {
      // The lease's renewal is a write: a first sign that the outbox may save again.
      if (!this.#options.lease.acquire()) return this.#loseLease()
    }
    const now = this.#now()
    // While the outbox cannot save, one attempt at a time tries whether it can (its end looks
    // again, or waits longer); with nothing to try, the lease's write is proof enough.
    const probing = this.#unwritable !== null
    if (probing && this.#inFlight.size > 0) return
    let launched = 0
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
      const ready = this.#store.ready(
        connectionId,
        now,
        this.#concurrency - busy + looking + this.#held.size,
      )
      let free = probing ? 1 - launched : this.#concurrency - busy
      for (const item of ready) {
        if (free <= 0) break
        if (this.#inFlight.has(item.id) || (this.#held.get(item.id)?.until ?? 0) > now) continue
        if (item.lane !== null) {
          if (lanes.has(item.lane)) continue
          lanes.add(item.lane)
        }
        free--
        launched++
        this.#launch(item)
      }
    }
    if (probing) {
      if (launched > 0) return
      this.#writable(now)
    }
    this.#settleIdle()
    // Items due now that did not go wait for an attempt to end, for the person, or for a token,
    // each of which looks again (kick): only later items set the timer, or the poll for items
    // queued by other processes. (Looking again at once would look after every turn of the event
    // loop while all three slots are busy.)
    let due = this.#store.nextDueAt(now)
    for (const { until } of this.#held.values()) {
      if (until > now) due = due === null ? until : Math.min(due, until)
    }
    const poll = this.#options.pollMs ?? 5_000
    this.#arm(due === null ? poll : Math.min(poll, Math.max(0, due - now)))
  }

  /**
   * A pass waiting for the sender (`idle`) is over once nothing is in flight: nothing more is due,
   * or (the outbox cannot save) nothing can go until a write goes through.
   */
  #settleIdle(): void {
    if (this.#inFlight.size > 0) return
    for (const resolve of this.#idleWaiters.splice(0)) resolve()
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
    const lease = this.#lease
    const done = this.#attempt(item, abort.signal, lease)
      .then(() => {
        this.#held.delete(item.id)
        // Its outcome was saved: the outbox saves again.
        this.#writable(this.#now())
        this.#storageFailures = 0
      })
      .catch((error: unknown) => {
        if (error instanceof LeaseLost) {
          this.#options.log.info('an attempt was stopped: another process sends the outbox', {
            itemId: item.id,
          })
          return
        }
        // The person (or another process) moved the item meanwhile: its new state stands.
        if (error instanceof MoveRefused) {
          this.#options.log.info('an outbox item moved while it was attempted', {
            itemId: item.id,
            reason: error.message,
          })
          return
        }
        if (unwritable(error, this.#store.database.name)) {
          this.#failed(error)
          return
        }
        // Not foreseen: the item waits, longer each time, while the others go on.
        const failures = (this.#held.get(item.id)?.failures ?? 0) + 1
        const until = this.#now() + growingDelay(this.#retry, failures, this.#options.random)
        this.#held.set(item.id, { until, failures })
        this.#options.log.error('an outbox attempt failed unexpectedly', {
          itemId: item.id,
          error: describeError(error),
        })
      })
      .finally(() => {
        this.#inFlight.delete(item.id)
        this.#marked.delete(item.id)
        this.#options.onItems([item.id])
        if (this.#unwritable) {
          // Only the wait's timer looks again (whatever ended this attempt).
          this.#settleIdle()
          this.#waitToSave()
        }
        this.kick()
      })
    this.#inFlight.set(item.id, {
      connectionId: item.connectionId,
      lane: item.lane,
      abort,
      done,
    })
  }

  async #attempt(queued: OutboxItem, signal: AbortSignal, lease: number): Promise<void> {
    let item = queued
    // After each wait: the lease may have been lost meanwhile, and nothing more is written here.
    const stillHeld = () => {
      if (lease !== this.#lease) throw new LeaseLost()
    }
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
        stillHeld()
        switch (reconciled.outcome) {
          case 'arrived':
            try {
              this.#complete(item, connection, reconciled.sent, {
                exclusive: reconciled.exclusive,
              })
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
      } else if (operation.snapshot) {
        // Read-only look-ups come first: nothing of them needs settling after a crash.
        const at = this.#now()
        snapshot = { value: (await operation.snapshot(context, item.payload)) ?? null, at }
        stillHeld()
        item = { ...item, snapshot }
      }
      // An edit is checked against the server's copy before every send, a resend after a crash
      // (found not to have arrived) too: whoever changed the record meanwhile is not overwritten.
      if (operation.changedSince && (item.baseModifiedAt !== null || item.baseValues !== null)) {
        const check = await operation.changedSince(context, item.payload, {
          modifiedAt: item.baseModifiedAt,
          values: item.baseValues,
        })
        stillHeld()
        if (check.changed === true) return this.#conflict(item, check.theirs)
      }
      if (item.attachment) {
        const problem = await this.#options.attachments.problemWith(item.attachment)
        stillHeld()
        if (problem !== null) {
          return this.#store.markStopped(
            item.id,
            'needs_attention',
            { message: problem, kind: 'attachment' },
            this.#now(),
            { inDoubt },
          )
        }
      }
      try {
        item = this.#store.markSending(item.id, this.#now(), {
          updatedAt: queued.updatedAt,
          ...(snapshot ? { snapshot } : {}),
        })
      } catch (error) {
        // Discarded or edited during the look-ups: it is sent as it is now, later.
        if (error instanceof MoveRefused) return
        throw error
      }
      this.#marked.add(item.id)
      this.#options.onItems([item.id])
      // "Sending" is on disk before the request leaves: the items marked meanwhile share a sync.
      await this.#store.synced()
      stillHeld()
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
      stillHeld()
      this.#crashHook('after-answer')
      this.#complete(item, connection, sent)
    } catch (error) {
      // Neither is the attempt's to judge: the lease went, or the outbox cannot save.
      if (error instanceof LeaseLost || lease !== this.#lease) throw new LeaseLost()
      if (unwritable(error, this.#store.database.name)) throw error
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
   * Stores the answer (or, `found`, what a look-up found arrived) in the cache first: a crash
   * before the commit below is then in doubt. An arrival found `exclusive` that another item
   * accounts for is refused (AppError 'conflict') before anything is stored. The
   * copy of its file is deleted once the commit is on disk: lost in a power cut, the item would
   * be in doubt again and might need it.
   */
  #complete(
    item: OutboxItem,
    connection: OutboxConnection,
    sent: Sent,
    found?: { exclusive: { since: number | null } | undefined },
  ): void {
    const exclusive = found?.exclusive
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
    const done = found
      ? this.#store.markFoundArrived(item.id, sent, this.#now(), exclusive)
      : this.#store.markSent(item.id, sent, this.#now())
    if (done.attachment) {
      this.#options.attachments.removeOnceDurable(done.attachment, this.#store.synced())
    }
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

function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error)
}

/** The lease was lost while an attempt waited: it ends without writing anything. */
class LeaseLost extends Error {
  constructor() {
    super('The outbox lease was taken by another process.')
    this.name = 'LeaseLost'
  }
}

/**
 * The wait after the `failures`th failure in a row: doubling from the base to the longest, with
 * jitter in its upper half only, so that it is never zero and always grows on average.
 */
function growingDelay(timing: RetryTiming, failures: number, random = Math.random): number {
  const ceiling = Math.min(timing.maxDelayMs, timing.baseDelayMs * 2 ** Math.max(0, failures - 1))
  return Math.max(1, Math.round(ceiling * (0.5 + random() / 2)))
}
