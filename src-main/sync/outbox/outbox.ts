import path from 'node:path'
import type { z } from 'zod'
import type { UploadProgress } from '../../api/index.ts'
import { AppError } from '../../shared/app-error.ts'
import type { EventBus, OutboxChange } from '../../shared/events.ts'
import type { Logger } from '../../shared/logger.ts'
import { recordKind, type RecordKindName } from '../../store/record-kinds.ts'
import { toLinkId, type JsonObject } from '../../../src-common/values.ts'
import { AttachmentFolder } from './attachment-folder.ts'
import type { CrashHook } from './crash-points.ts'
import { ImportFollower } from './import-follower.ts'
import { offlineLaneRef, type LaneRef } from './lanes.ts'
import { itemView } from './item-view.ts'
import { importExtensions } from '../../../src-common/outbox/imports.ts'
import type { OutboxItemView } from '../../../src-common/outbox/item-view.ts'
import {
  declarationOf,
  isEditable,
  recordOf,
  type OperationName,
} from '../../../src-common/outbox/operations.ts'
import type { RecordRef } from '../../../src-common/outbox/record-ref.ts'
import { allows, unresolvedStates, type OutboxState } from '../../../src-common/outbox/states.ts'
import { operations } from './operations/index.ts'
import type { StoredOperation } from './operations/operation.ts'
import { applyOverlays } from './overlay.ts'
import { checkOutboxPagesInWorker } from './outbox-page-check.ts'
import { defaultClaimTimeoutMs, describeWait, rebuildSettled } from './outbox-file.ts'
import {
  damageOf,
  openOutbox,
  openOutboxInPlace,
  openOutboxUnchecked,
  repairOf,
  type PageCheckVerdict,
} from './outbox-recovery.ts'
import { OutboxRepairs, type OutboxRepair } from './outbox-repairs.ts'
import type { Attachment, OutboxItem } from './outbox-item.ts'
import type { OutboxConnection } from './outbox-connection.ts'
import { OutboxSender, type RetryTiming } from './outbox-sender.ts'
import { OutboxStore, unwritable, type OutboxUnwritable } from './outbox-store.ts'
import { byRecord, pendingRecord, type PendingRecord } from './pending-records.ts'
import { queueRequest, type QueueRequest } from './queue-request.ts'
import { SenderLease } from './sender-lease.ts'

export interface OutboxOptions {
  /** `<dataDir>`: the outbox is `outbox.db` and `outbox/attachments/` there. */
  dataDir: string
  /** The connection of an item; throws AppError('not_found') for a connection removed. */
  connection(connectionId: string): OutboxConnection
  /** A connection's name, for the event that asks for a new token. */
  connectionName(connectionId: string): string
  events: EventBus
  log: Logger
  /** The number of items not yet sent nor discarded, whenever it changes (the top bar). */
  onPendingCount?(count: number): void
  /** Items of one connection in flight at once (default 3, the service's limit per user). */
  concurrency?: number
  retry?: Partial<RetryTiming>
  /** The waits after the outbox could not save (default 1 s growing to 1 min). */
  storageRetry?: Partial<RetryTiming>
  pollMs?: number
  /** How often the sender's lease is renewed (default 10 s). */
  leaseRenewalMs?: number
  importPollMs?: number
  /** How often upload progress is pushed to the UI at most. */
  progressIntervalMs?: number
  /** Where a test may kill the sending process (`crash-points.ts`); the app gives none. */
  crashHook?: CrashHook
  /**
   * Where the check of every page at opening runs (it reads the whole file: seconds for a large
   * outbox), with the repair of a damaged file and any wait for another process's repair.
   * `'worker'`: in a worker thread, the outbox open for reading at once (a file too damaged to
   * open answers reads with why, until repaired) and written only once `ready()`, for the hosts
   * whose main thread must not stand still (the app, the preview). `'inline'` (default): on this
   * thread before the constructor returns, for the CLI, which waits for the check either way.
   */
  pageCheck?: 'worker' | 'inline'
  /**
   * How long to wait for another process's repair of a damaged outbox before failing with its
   * name (default 10 minutes). With `pageCheck: 'worker'` the wait is the worker's, and queueing
   * and sending wait for `ready()`; `'inline'` waits on this thread, in the constructor.
   */
  repairWaitMs?: number
  /**
   * Told once when another process is found repairing the outbox and this one waits for it: a
   * sentence naming that process and the longest wait (the CLI prints it on stderr).
   */
  onRepairWait?(message: string): void
  /**
   * How often an idle outbox looks whether another process put a rebuilt file in its place
   * (default 1 s; one stat): the windows tell the repair without waiting for a read or a write.
   */
  replacedPollMs?: number
  now?: () => number
}

export interface FlushResult {
  /** Counts of the connection's (or every) unresolved item after the pass, and those sent. */
  sent: number
  queued: number
  needsAttention: number
  conflict: number
  uncertain: number
  /** False when another process holds the outbox and sends it. */
  sentHere: boolean
}

/**
 * How long changes made by the sender are gathered before one `outbox.changed` (and one
 * `records.changed` per vault) tells them: a few times a second is all a window needs, and a
 * queue sent at the request limit changes items hundreds of times a second.
 */
const changeBatchMs = 200
/** The same for the person's own actions (queue, retry, edit, discard), told sooner. */
const actionBatchMs = 25

/** What `list` shows by default: everything not yet sent nor discarded. */
const defaultStates: readonly OutboxState[] = unresolvedStates

/**
 * The outbox: a durable queue, in its own SQLite file, of what the person did that the server
 * does not have yet. Each queued change is written with what the UI shows of it (its pending
 * overlay) in one transaction; the sender delivers it, in order per record, exactly once, or
 * stops it for the person (needs attention, conflict, uncertain) with the reason.
 */
export class Outbox {
  readonly #store: OutboxStore
  readonly #options: OutboxOptions
  readonly #log: Logger
  readonly #attachments: AttachmentFolder
  readonly #sender: OutboxSender
  readonly #progress = new Map<number, UploadProgress>()
  readonly #changed = new Set<number>()
  /** Kinds of cached records the sender or the follower changed, by connection and vault. */
  readonly #recordsChanged = new Map<
    string,
    { connectionId: string; vaultId: number; kinds: Set<string> }
  >()
  #notifyTimer: NodeJS.Timeout | undefined
  #notifyDue = 0
  #lastPending = -1
  #recovery: OutboxRepair | null
  /** Settles once the page check is over (see `ready`). */
  readonly #ready: Promise<void>
  /** True while the page check runs in its worker: nothing is written meanwhile. */
  #checking: boolean
  /** What keeps the outbox from being written: damage that could not be repaired. */
  #checkFailure: AppError | null = null
  /** `start()` was asked while the page check ran: sending starts once it is over. */
  #startWhenReady = false
  #closed = false
  /**
   * What SQLite found as the file opened, when it could not open it (`openOutboxUnchecked`): the
   * store is on an empty placeholder until it goes over to the repaired file, and reads say why.
   */
  #damagedAtOpen: string | null = null
  /** Another process is repairing the outbox, and the check waits for it: who. */
  #repairHolder: string | null = null
  readonly #file: string
  readonly #repairListeners = new Set<(repair: OutboxRepair) => void>()
  readonly #replacedTimer: NodeJS.Timeout

  constructor(options: OutboxOptions) {
    this.#options = options
    const log = options.log.child({ component: 'outbox' })
    this.#log = log
    const file = path.join(options.dataDir, 'outbox.db')
    this.#file = file
    const at = new Date(this.#now())
    const inWorker = options.pageCheck === 'worker'
    // In the worker's way nothing here repairs or waits for another process's repair: the
    // worker does both, and this thread (a window's) goes on.
    const opened = inWorker
      ? openOutboxUnchecked(file)
      : openOutbox(file, at, {
          timeoutMs: this.#repairWaitMs,
          onWaiting: (holder) => this.#waitingFor(holder),
        })
    this.#recovery = 'recovery' in opened ? opened.recovery : null
    if ('damage' in opened) this.#damagedAtOpen = opened.damage
    // Told through `repairs()` until the person dismisses it: no window listens yet.
    if (this.#recovery) this.#logRecovery(this.#recovery)
    this.#store = new OutboxStore(opened.db, {
      file,
      identity: opened.identity!,
      reopen: () => openOutboxInPlace(file),
      onFollowed: () => this.#followed(),
    })
    this.#checking = inWorker
    this.#ready = this.#checking ? this.#checkPages(file, at) : Promise.resolve()
    // Whoever writes is told through `ready()`; the person through `storage.failed`.
    this.#ready.catch(() => {})
    this.#attachments = new AttachmentFolder(path.join(options.dataDir, 'outbox', 'attachments'))
    const onItems = (itemIds: number[]) => this.#noteChanged(itemIds, changeBatchMs)
    const onRecords = (connectionId: string, vaultId: number, kind: string) => {
      const key = `${connectionId}\u0000${vaultId}`
      const entry = this.#recordsChanged.get(key) ?? { connectionId, vaultId, kinds: new Set() }
      this.#recordsChanged.set(key, entry)
      entry.kinds.add(kind)
      this.#schedule(changeBatchMs)
    }
    const follower = new ImportFollower({
      store: this.#store,
      connection: options.connection,
      log,
      onItems,
      onRecords,
      ...(options.importPollMs !== undefined ? { intervalMs: options.importPollMs } : {}),
      ...(options.now ? { now: options.now } : {}),
    })
    this.#sender = new OutboxSender({
      store: this.#store,
      lease: new SenderLease(this.#store, options.now),
      attachments: this.#attachments,
      follower,
      connection: options.connection,
      log,
      onItems,
      onProgress: (itemId, progress) => {
        this.#progress.set(itemId, progress)
        this.#schedule(options.progressIntervalMs ?? 250)
      },
      onRecords,
      onTokenRefused: (connectionId, message) =>
        options.events.emit('connections.needsToken', {
          connectionId,
          name: options.connectionName(connectionId),
          message,
        }),
      onStorage: (problem) => {
        if (problem) {
          options.events.emit('storage.failed', {
            message: 'The outbox cannot save changes; sending waits',
            details: problem.message,
          })
        }
        this.#schedule(actionBatchMs)
      },
      sweepAttachments: () => this.#recovery === null,
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.storageRetry ? { storageRetry: options.storageRetry } : {}),
      ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
      ...(options.leaseRenewalMs !== undefined ? { leaseRenewalMs: options.leaseRenewalMs } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.crashHook ? { crashHook: options.crashHook } : {}),
    })
    // A damaged file may not even count while its check runs: the count follows the check.
    this.#reading(
      () => this.#reportPending(),
      () => undefined,
    )
    this.#replacedTimer = setInterval(() => this.#followReplaced(), options.replacedPollMs ?? 1_000)
    this.#replacedTimer.unref()
  }

  /** Set when the outbox was found damaged at this start and rebuilt from what could be read. */
  get recovery(): OutboxRepair | null {
    return this.#recovery
  }

  /**
   * Calls `listener` whenever this outbox is found repaired after it opened: by its own page
   * check, or by another process that put a rebuilt file in its place. Returns the unsubscribe.
   */
  onRepaired(listener: (repair: OutboxRepair) => void): () => void {
    this.#repairListeners.add(listener)
    return () => this.#repairListeners.delete(listener)
  }

  /**
   * Resolves once the outbox may be written: its pages are checked and, when damaged, it is
   * rebuilt and in use (at once with `pageCheck: 'inline'`). Queueing and sending wait for it;
   * reads do not. Rejects with what keeps the outbox from being written (damage that could not
   * be repaired); the outbox then stays open for reading, as found.
   */
  ready(): Promise<void> {
    return this.#ready
  }

  /**
   * Starts sending (false while another process sends this outbox, or while it cannot save; it
   * tries again meanwhile). While the outbox's pages are checked, false too: it starts once they
   * are.
   */
  start(): boolean {
    if (this.#checkFailure) return false
    if (this.#checking) {
      this.#startWhenReady = true
      return false
    }
    return this.#sender.start()
  }

  /** Why the outbox cannot save now (a full disk, a read-only folder), or null. */
  get unwritable(): OutboxUnwritable | null {
    return this.#sender.unwritable
  }

  /**
   * Queues a change and returns its items (an ELN append with files queues the uploads too).
   * Files are copied into the data directory first; the items and what the UI shows of them are
   * written in one transaction.
   */
  async queue(request: QueueRequest): Promise<OutboxItemView[]> {
    const checked = parse(queueRequest, request, 'the request')
    // Queued while the page check runs: written once it is over, to the rebuilt file if the
    // check found damage (written to the damaged one, it could be lost with the damage).
    await this.#ready
    // Another process's repair of the file holds its writes: waited for here rather than up to
    // SQLite's busy timeout (the write then goes to the repaired file).
    await rebuildSettled(this.#file)
    const copies: Attachment[] = []
    try {
      const items = await this.#queue(checked, copies).catch((error: unknown) => {
        throw this.#unwritableOr(error)
      })
      this.#noteChanged(
        items.map((item) => item.id),
        actionBatchMs,
      )
      this.#reportPending()
      this.#sender.kick()
      return items.map((item) => this.#view(item))
    } catch (error) {
      for (const copy of copies) this.#attachments.remove(copy)
      throw error
    }
  }

  list(filter: { connectionId?: string; states?: readonly OutboxState[]; limit?: number } = {}) {
    return this.#reading(() =>
      this.#store
        .list({ ...filter, states: filter.states ?? defaultStates })
        .map((item) => this.#view(item)),
    )
  }

  item(id: number): OutboxItemView {
    return this.#reading(() => this.#view(this.#store.require(id)))
  }

  counts(): OutboxChange['counts'] {
    const counts = this.#reading(() => this.#store.unresolvedCounts())
    return {
      queued: counts.queued,
      sending: counts.sending,
      needsAttention: counts.needs_attention,
      conflict: counts.conflict,
      uncertain: counts.uncertain,
      pending: unresolvedStates.reduce((sum, state) => sum + counts[state], 0),
    }
  }

  /**
   * The pending changes of one record merged over its cached copy, or null when it has none.
   * Read paths show this in place of the cached record, marked pending.
   */
  pendingFor(
    connectionId: string,
    vaultId: number,
    kind: string,
    ref: RecordRef,
  ): PendingRecord | null {
    const kindName = recordKind(kind).name
    // The cached record is shown without its pending changes until the damage is repaired.
    const items = this.#reading(
      () => this.#store.itemsOfRecord(connectionId, vaultId, kindName, ref),
      () => [],
    )
    if (items.length === 0) return null
    const id = items[0]!.recordId
    return pendingRecord(
      items,
      id === null ? null : this.#cached(connectionId, vaultId, kindName, id),
    )
  }

  /** Every record of a kind with pending changes, those created offline included. */
  pendingList(connectionId: string, vaultId: number, kind: string): PendingRecord[] {
    const kindName = recordKind(kind).name
    const pending = this.#reading(
      () => this.#store.itemsOfKind(connectionId, vaultId, kindName),
      () => [],
    )
    return byRecord(pending).map((items) => {
      const id = items[0]!.recordId
      return pendingRecord(
        items,
        id === null ? null : this.#cached(connectionId, vaultId, kindName, id),
      )
    })
  }

  /** Sends an item again now: after a refusal, during its backoff, or (uncertain) by choice. */
  async retry(id: number): Promise<OutboxItemView> {
    await this.#decidable()
    const item = this.#store.require(id)
    if (allows(item.state, 'retry')) {
      return this.#changedView(this.#saving(() => this.#store.requeue(id, 'retry', this.#now())))
    }
    if (allows(item.state, 'itDidNotArrive')) return this.resolveUncertain(id, 'resend')
    if (allows(item.state, 'keepMine')) return this.resolveConflict(id, 'mine')
    throw new AppError(
      'conflict',
      `Item ${id} is ${item.state.replace('_', ' ')}; there is nothing to retry.`,
    )
  }

  /** Repairs of this outbox (at this start or any earlier one) the person has not dismissed. */
  repairs(): OutboxRepair[] {
    return this.#reading(
      () => new OutboxRepairs(this.#store.database).unseen(),
      () => [],
    )
  }

  /** The person has read of repair `id` (AppError not_found for an id never recorded). */
  async dismissRepair(id: number): Promise<void> {
    await this.#decidable()
    this.#saving(() =>
      this.#store.transaction(() =>
        new OutboxRepairs(this.#store.database).markSeen(id, this.#now()),
      ),
    )
  }

  /** Discards an item and the items that depend on it (an upload for an entry discarded...). */
  async discard(id: number): Promise<{ discarded: number[] }> {
    await this.#decidable()
    const discarded = this.#saving(() => this.#store.cancel(id, this.#now()))
    let durable: Promise<void> | undefined
    for (const item of this.#store.list({ ids: discarded, states: ['cancelled'] })) {
      if (!item.attachment) continue
      durable ??= this.#store.synced()
      this.#attachments.removeOnceDurable(item.attachment, durable)
    }
    this.#noteChanged(discarded, actionBatchMs)
    this.#reportPending()
    // The record's next item, held behind this one, may go now.
    this.#sender.kick()
    return { discarded }
  }

  /**
   * Replaces an unsent item's payload (the person fixed what the server refused). Only the
   * members its declaration lets the person correct may change; the record it changes and the
   * items it needs stay as they are.
   */
  async edit(id: number, payload: unknown): Promise<OutboxItemView> {
    await this.#decidable()
    const item = this.#store.require(id)
    const declaration = declarationOf(item.operation)
    if (!isEditable(item)) {
      throw declaration.editable === null
        ? new AppError(
            'invalid_argument',
            `Item ${id} is a ${declaration.label.toLowerCase()}, which cannot be edited; discard it and queue it again instead.`,
          )
        : new AppError(
            'conflict',
            `Item ${id} is ${item.state.replace('_', ' ')}; it cannot be edited.`,
          )
    }
    const operation = operations[item.operation]
    const checked = parse(operation.schema, payload, `the ${item.operation} payload`)
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
    const editable = new Set<string>(declaration.editable)
    const fixed = [...new Set([...Object.keys(item.payload), ...Object.keys(checked)])].filter(
      (member) => !editable.has(member) && !same(item.payload[member], checked[member]),
    )
    if (fixed.length > 0) {
      throw new AppError(
        'invalid_argument',
        `An edit of item ${id} may change only ${[...editable].join(', ')}, not ${fixed.join(', ')}; discard it and queue a new change instead.`,
      )
    }
    if (
      !same(recordOf(item.operation, checked), recordOf(item.operation, item.payload)) ||
      !same(operation.refs(checked), operation.refs(item.payload))
    ) {
      throw new AppError(
        'invalid_argument',
        `An edit of item ${id} must keep the record it changes and the items it needs; discard it and queue a new change instead.`,
      )
    }
    return this.#changedView(
      this.#saving(() =>
        this.#store.requeue(id, 'edit', this.#now(), {
          payload: checked,
          overlay: operation.overlay(checked, item.attachment?.name ?? null),
          lane: operation.lane?.(checked, item.attachment?.name ?? null, this.#laneRef) ?? null,
        }),
      ),
    )
  }

  /** A conflict: send mine over the server's copy, or keep theirs (the item is discarded). */
  async resolveConflict(id: number, choice: 'mine' | 'theirs'): Promise<OutboxItemView> {
    await this.#decidable()
    const item = this.#store.require(id)
    if (!allows(item.state, choice === 'mine' ? 'keepMine' : 'takeTheirs')) {
      throw new AppError('conflict', `Item ${id} is not in conflict.`)
    }
    if (choice === 'mine') {
      // Mine goes over the copy the person has now seen: a later change by someone else is
      // another conflict.
      const base = item.theirs?.modified_at
      const baseValues = this.#baseValues(
        operations[item.operation],
        item.payload,
        () => item.theirs,
      )
      return this.#changedView(
        this.#saving(() =>
          this.#store.requeue(id, 'keepMine', this.#now(), {
            baseModifiedAt: typeof base === 'string' ? base : null,
            baseValues,
          }),
        ),
      )
    }
    // Only a whole record replaces the cached one (an ELN conflict shows the entry's summary).
    if (item.theirs && item.recordId !== null && typeof item.theirs.modified_at === 'string') {
      try {
        this.#options
          .connection(item.connectionId)
          .cache.applyPage(item.recordKind, item.vaultId, [item.theirs])
      } catch (error) {
        this.#options.log.warn('the server copy could not be stored', { error: String(error) })
      }
    }
    await this.discard(id)
    return this.item(id)
  }

  /**
   * An uncertain item: send it again, or mark it done (with the server id, when known). A server
   * id that another item accounts for (since this one was queued) is refused, as the sender
   * refuses one it finds: one record never accounts for two items.
   */
  async resolveUncertain(
    id: number,
    choice: 'resend' | 'done',
    serverId?: number,
  ): Promise<OutboxItemView> {
    await this.#decidable()
    const item = this.#store.require(id)
    if (!allows(item.state, choice === 'resend' ? 'itDidNotArrive' : 'itArrived')) {
      throw new AppError('conflict', `Item ${id} is not uncertain.`)
    }
    if (choice === 'resend') {
      return this.#changedView(
        this.#saving(() => this.#store.requeue(id, 'itDidNotArrive', this.#now())),
      )
    }
    const done = this.#saving(() =>
      this.#store.markArrived(id, serverId ?? null, this.#now(), item.createdAt),
    )
    if (done.attachment) {
      this.#attachments.removeOnceDurable(done.attachment, this.#store.synced())
    }
    return this.#changedView(done)
  }

  /**
   * One pass over what is queued (`vault-desk sync`): everything due now, however long its
   * backoff, sent until nothing more can go; items that fail again wait for their next attempt.
   */
  async flush(connectionId?: string): Promise<FlushResult> {
    await this.#decidable()
    const before = new Set(this.#store.idsIn('sent', connectionId))
    if (this.#sender.unwritable) throw this.#sender.unwritable
    if (this.#sender.sending) {
      this.#saving(() => this.#store.makeDue(this.#now(), connectionId))
      await this.#sender.idle()
      // It ended because nothing more can be saved: what is queued stays queued, untouched.
      if (this.#sender.unwritable) throw this.#sender.unwritable
    }
    const sent = this.#store.idsIn('sent', connectionId).filter((id) => !before.has(id)).length
    const counts = this.#store.unresolvedCounts(connectionId)
    return {
      sent,
      queued: counts.queued + counts.sending,
      needsAttention: counts.needs_attention,
      conflict: counts.conflict,
      uncertain: counts.uncertain,
      sentHere: this.#sender.sending,
    }
  }

  /** The connection answers again: what waits for it is due now. */
  reconnected(connectionId: string): void {
    // Made due once the check is over, or once another process's repair no longer holds the
    // file's writes (a write now would stand this thread still until it does).
    if (this.#checking || this.#store.repairHolder() !== null) {
      this.#decidable().then(
        () => this.reconnected(connectionId),
        () => {},
      )
      return
    }
    try {
      this.#store.makeDue(this.#now(), connectionId)
    } catch (error) {
      // Items wait out their backoff instead; the sender tells when the outbox cannot save.
      this.#options.log.warn('queued items could not be made due', { error: String(error) })
    }
    this.#sender.kick()
  }

  /** A new token was given (or the connection changed): its paused queue moves again. */
  resume(connectionId: string): void {
    this.#sender.resume(connectionId)
  }

  async close(): Promise<void> {
    this.#closed = true
    clearInterval(this.#replacedTimer)
    // A rebuild under way in the worker is let finish: stopped, it would leave a partial copy.
    await this.#ready.catch(() => {})
    await this.#sender.stop()
    clearTimeout(this.#notifyTimer)
    this.#notify()
    await this.#store.close()
    this.#store.database.close()
  }

  /**
   * The page check in its worker; when it finds damage, the worker (or another process that
   * found it too) puts the rebuilt file in the damaged one's place, and the store goes over to it
   * (`OutboxStore.followIfReplaced`): every part of the outbox reads and writes through the
   * store, so none is left on the old file.
   */
  async #checkPages(file: string, at: Date): Promise<void> {
    try {
      const verdict = await checkOutboxPagesInWorker(file, at, {
        onFallback: (reason) =>
          this.#log.warn('the outbox pages are checked on the main thread', { reason }),
        onWaiting: (holder) => this.#waitingFor(holder),
        repairWaitMs: this.#repairWaitMs,
      })
      if (!verdict.sound) this.#adopt(verdict)
      // What the worker found sound may be a file another process repaired meanwhile.
      else this.#store.followIfReplaced()
    } catch (error) {
      // Damage that could not be repaired comes as an AppError; anything else kept the check
      // from running at all.
      const failure =
        error instanceof AppError
          ? error
          : new AppError(
              'storage',
              `The outbox at ${file} could not be checked: ${(error as Error).message}`,
              { cause: error },
            )
      this.#checkFailure = failure
      this.#log.error('the outbox cannot be written', { error: failure.message })
      this.#options.events.emit('storage.failed', {
        message:
          error instanceof AppError
            ? 'The outbox is damaged and could not be repaired; nothing can be queued'
            : 'The outbox could not be checked; nothing can be queued',
        details: failure.message,
      })
      throw failure
    } finally {
      this.#checking = false
      this.#repairHolder = null
    }
    if (this.#startWhenReady && !this.#closed) this.#sender.start()
  }

  get #repairWaitMs(): number {
    return this.#options.repairWaitMs ?? defaultClaimTimeoutMs
  }

  /** Another process repairs the outbox, and this one waits for it: said once, with whom. */
  #waitingFor(holder: string): void {
    this.#repairHolder = holder
    const wait = describeWait(this.#repairWaitMs)
    this.#log.warn('the outbox is damaged and being repaired by another process; waiting', {
      holder,
      waitMs: this.#repairWaitMs,
    })
    this.#options.onRepairWait?.(
      `The outbox at ${this.#file} is damaged and another process is repairing it: ${holder}. Waiting up to ${wait} for it to finish…`,
    )
  }

  /** The repaired file is in place: the store goes over to it, and the repair is told. */
  #adopt(verdict: Exclude<PageCheckVerdict, { sound: true }>): void {
    // A read may have gone over already.
    this.#store.followIfReplaced()
    this.#recovery = repairOf(this.#store.database, verdict)
    if (this.#recovery) {
      this.#logRecovery(this.#recovery)
      this.#tellRepaired(this.#recovery)
    }
  }

  /** The store went over to a rebuilt file: windows that read the old one read again. */
  #followed(): void {
    this.#damagedAtOpen = null
    // The repair of the file gone over to, for this process's windows to tell too.
    this.#recovery ??= new OutboxRepairs(this.#store.database).unseen().at(-1) ?? null
    // After this process's own check, the repair is told as such (`#adopt`).
    if (!this.#checking) {
      this.#log.warn('another process repaired the outbox file; going on with the repaired one')
    }
    this.#noteChanged(
      unresolvedStates.flatMap((state) => this.#store.idsIn(state)),
      actionBatchMs,
    )
    this.#reportPending()
    if (this.#recovery) this.#tellRepaired(this.#recovery)
  }

  /**
   * Told after the read or write that went over to the rebuilt file has ended: a listener that
   * reads the outbox again (the notices) then reads it whole, from the new file.
   */
  #tellRepaired(repair: OutboxRepair): void {
    queueMicrotask(() => {
      for (const listener of this.#repairListeners) {
        try {
          listener(repair)
        } catch (error) {
          this.#log.warn('a repair of the outbox could not be told', { error: String(error) })
        }
      }
    })
  }

  /** The idle outbox's look for a file another process rebuilt (`replacedPollMs`). */
  #followReplaced(): void {
    if (this.#closed) return
    try {
      this.#store.followIfReplaced()
    } catch (error) {
      this.#log.warn('the repaired outbox file cannot be opened', { error: String(error) })
    }
  }

  #logRecovery(recovery: OutboxRepair): void {
    this.#log.error('the outbox was damaged and has been rebuilt', { ...recovery })
  }

  async #queue(request: QueueRequest, copies: Attachment[]): Promise<OutboxItem[]> {
    const { connectionId, vaultId } = request
    const now = this.#now()
    switch (request.operation) {
      case 'file.attach': {
        const target = await this.#fileTarget(connectionId, vaultId, request.target)
        const copy = await this.#attachments.copy(request.file)
        copies.push(copy)
        return [this.#insert(connectionId, vaultId, 'file.attach', { target }, copy, null, now)]
      }
      case 'slurp.create': {
        const copy = await this.#attachments.copy(request.file, importExtensions)
        copies.push(copy)
        return [
          this.#insert(connectionId, vaultId, 'slurp.create', request.payload, copy, null, now),
        ]
      }
      case 'eln.append': {
        const files = new Map<number, Attachment>()
        for (const [index, block] of request.body.entries()) {
          if (block.type === 'file' && 'path' in block) {
            const copy = await this.#attachments.copy(block.path)
            copies.push(copy)
            files.set(index, copy)
          }
        }
        return this.#store.durably(() => {
          const uploads: OutboxItem[] = []
          const body = request.body.map((block, index) => {
            const copy = files.get(index)
            if (!copy) return block
            const upload = this.#insert(
              connectionId,
              vaultId,
              'file.attach',
              { target: { kind: 'eln_entry', ref: request.entry } },
              copy,
              null,
              now,
            )
            uploads.push(upload)
            return { type: 'file', file: { item: upload.id } }
          })
          const append = this.#insert(
            connectionId,
            vaultId,
            'eln.append',
            { entry: request.entry, body },
            null,
            null,
            now,
          )
          return [...uploads, append]
        })
      }
      default: {
        const base = 'baseModifiedAt' in request ? request.baseModifiedAt : undefined
        return [
          this.#insert(connectionId, vaultId, request.operation, request.payload, null, base, now),
        ]
      }
    }
  }

  /**
   * Writes one item: checks its payload, finds its record (and the item creating it, for a
   * record created offline), the edits it must follow, and what the UI shows of it.
   */
  #insert(
    connectionId: string,
    vaultId: number,
    name: OperationName,
    rawPayload: unknown,
    attachment: Attachment | null,
    explicitBase: string | null | undefined,
    now: number,
  ): OutboxItem {
    const operation = operations[name]
    const payload = parse(operation.schema, rawPayload, `the ${name} payload`)
    const record = recordOf(name, payload)
    const refs = operation.refs(payload)
    for (const ref of refs) this.#checkRef(connectionId, vaultId, ref)
    let recordId: number | null = null
    let recordItem: number | 'self' | null = null
    if ('creates' in record) recordItem = 'self'
    else if ('id' in record.ref) recordId = record.ref.id
    else {
      recordItem = record.ref.item
      recordId = this.#store.require(record.ref.item).serverId
    }
    const base =
      operation.changedSince && recordId !== null
        ? this.#base(connectionId, vaultId, record.kind, recordId, explicitBase)
        : null
    return this.#store.insert(
      {
        connectionId,
        vaultId,
        operation: name,
        payload,
        recordKind: record.kind,
        recordId,
        recordItem,
        overlay: operation.overlay(payload, attachment?.name ?? null),
        baseModifiedAt: base,
        baseValues: this.#baseValues(operation, payload, () =>
          this.#seen(connectionId, vaultId, record.kind, recordId, recordItem),
        ),
        attachment,
        dependsOn: refs.flatMap((ref) => ('item' in ref ? [ref.item] : [])),
        lane: operation.lane?.(payload, attachment?.name ?? null, this.#laneRef) ?? null,
      },
      now,
    )
  }

  #baseValues(
    operation: StoredOperation,
    payload: JsonObject,
    seen: () => JsonObject | null,
  ): JsonObject | null {
    if (!operation.baseValues) return null
    const record = seen()
    return record === null ? null : operation.baseValues(payload, record)
  }

  /**
   * A record as the person sees it now: its cached copy with its queued changes applied (null
   * for a record this very item creates, or one neither cached nor changed here).
   */
  #seen(
    connectionId: string,
    vaultId: number,
    kind: RecordKindName,
    recordId: number | null,
    recordItem: number | 'self' | null,
  ): JsonObject | null {
    if (recordItem === 'self') return null
    const ref =
      recordId !== null ? { id: recordId } : recordItem !== null ? { item: recordItem } : null
    if (ref === null) return null
    const items = this.#store.itemsOfRecord(connectionId, vaultId, kind, ref)
    const cached = recordId === null ? null : this.#cached(connectionId, vaultId, kind, recordId)
    if (cached === null && items.length === 0) return null
    return applyOverlays(
      cached,
      items.map((item) => item.overlay),
    )
  }

  /** A record as lanes name it: by its server id once known (`lanes.ts`). */
  readonly #laneRef: LaneRef = (ref) => {
    if ('id' in ref) return String(ref.id)
    const serverId = this.#store.require(ref.item).serverId
    return serverId !== null ? String(serverId) : offlineLaneRef(ref.item)
  }

  /**
   * The modified_at the person saw when editing began: given by the UI, else that of the
   * record's earlier queued edits (the person saw those applied), else the cached copy's.
   */
  #base(
    connectionId: string,
    vaultId: number,
    kind: RecordKindName,
    id: number,
    explicit: string | null | undefined,
  ): string | null {
    if (explicit !== undefined) return explicit
    const earlier = this.#store.itemsOfRecord(connectionId, vaultId, kind, { id })[0]
    if (earlier) return earlier.baseModifiedAt
    const cached = this.#cached(connectionId, vaultId, kind, id)
    return typeof cached?.modified_at === 'string' ? cached.modified_at : null
  }

  #checkRef(connectionId: string, vaultId: number, ref: RecordRef): void {
    if (!('item' in ref)) return
    const creator = this.#store.get(ref.item)
    if (
      !creator ||
      creator.connectionId !== connectionId ||
      creator.vaultId !== vaultId ||
      creator.recordItem !== creator.id
    ) {
      throw new AppError(
        'invalid_argument',
        `Item ${ref.item} does not create a record in this vault; name the record by its id.`,
      )
    }
    if (creator.state === 'cancelled') {
      throw new AppError('invalid_argument', `Item ${ref.item} was discarded.`)
    }
  }

  /** A file dropped onto a readout row goes to the row's run: the spec allows no files on rows. */
  async #fileTarget(
    connectionId: string,
    vaultId: number,
    target: Extract<QueueRequest, { operation: 'file.attach' }>['target'],
  ): Promise<JsonObject> {
    if (target.kind !== 'readout_row') return target
    if (!('id' in target.ref)) {
      throw new AppError('invalid_argument', 'A readout row is named by its id.')
    }
    const rowId = target.ref.id
    let row = this.#cached(connectionId, vaultId, 'readout_rows', rowId)
    if (!row) {
      try {
        row = await this.#options
          .connection(connectionId)
          .client.readoutRows.get(vaultId, rowId, { priority: 'interactive' })
      } catch (error) {
        throw new AppError(
          'invalid_argument',
          `Readout row ${rowId} is not in the local copy and the server could not tell its run (${(error as Error).message}); attach the file to the run instead.`,
          { cause: error },
        )
      }
    }
    const runId = toLinkId(row.run) ?? toLinkId(row.run_id)
    if (runId === null) {
      throw new AppError(
        'invalid_argument',
        `Readout row ${rowId} names no run to attach the file to.`,
      )
    }
    return { kind: 'run', ref: { id: runId } }
  }

  #cached(
    connectionId: string,
    vaultId: number,
    kind: RecordKindName,
    id: number,
  ): JsonObject | null {
    try {
      return this.#options.connection(connectionId).cache.get(kind, vaultId, id)
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') throw error
      return null
    }
  }

  #view(item: OutboxItem): OutboxItemView {
    return itemView(item, this.#progress.get(item.id) ?? null)
  }

  #changedView(item: OutboxItem): OutboxItemView {
    this.#noteChanged([item.id], actionBatchMs)
    this.#reportPending()
    this.#sender.kick()
    return this.#view(item)
  }

  /**
   * Changes are told in batches (see `changeBatchMs`), with the top bar's count; after the
   * person's own actions, the count follows at once.
   */
  #noteChanged(itemIds: readonly number[], delayMs: number): void {
    for (const id of itemIds) this.#changed.add(id)
    this.#schedule(delayMs)
  }

  /** The next `outbox.changed` goes out within `delayMs` (sooner if already due sooner). */
  #schedule(delayMs: number): void {
    const due = Date.now() + delayMs
    if (this.#notifyTimer && this.#notifyDue <= due) return
    clearTimeout(this.#notifyTimer)
    this.#notifyDue = due
    this.#notifyTimer = setTimeout(() => this.#notify(), delayMs)
    this.#notifyTimer.unref()
  }

  #notify(): void {
    this.#notifyTimer = undefined
    try {
      this.#tell()
    } catch (error) {
      // The counts could not be read: the next change tells them.
      this.#options.log.warn('outbox changes could not be told', { error: String(error) })
    }
  }

  #tell(): void {
    // The cache has the answers before the items say they were sent.
    for (const { connectionId, vaultId, kinds } of this.#recordsChanged.values()) {
      this.#options.events.emit('records.changed', { connectionId, vaultId, kinds: [...kinds] })
    }
    this.#recordsChanged.clear()
    const itemIds = [...this.#changed]
    this.#changed.clear()
    if (this.#progress.size > 0) {
      const sending = new Set(this.#store.idsIn('sending'))
      for (const id of this.#progress.keys()) if (!sending.has(id)) this.#progress.delete(id)
    }
    const progress = [...this.#progress].map(([itemId, { sentBytes, totalBytes }]) => ({
      itemId,
      sentBytes,
      totalBytes,
    }))
    if (itemIds.length === 0 && progress.length === 0) return
    const counts = this.counts()
    this.#reportPending(counts.pending)
    this.#options.events.emit('outbox.changed', { counts, itemIds, progress })
  }

  #reportPending(pending = this.#store.unresolvedCount()): void {
    if (pending === this.#lastPending) return
    this.#lastPending = pending
    this.#options.onPendingCount?.(pending)
  }

  #now(): number {
    return (this.#options.now ?? Date.now)()
  }

  /** A person's change, refused with what keeps the outbox from saving it, when that is why. */
  #saving<T>(work: () => T): T {
    this.#refuseUnlessWritable()
    try {
      return work()
    } catch (error) {
      throw this.#unwritableOr(error)
    }
  }

  #unwritableOr(error: unknown): unknown {
    return unwritable(error, this.#file) ?? error
  }

  /**
   * A read while the page check runs may meet the damage the check is looking for: then what
   * `meanwhile` gives (the window reads again once the outbox is rebuilt, see `#adopt`), or, with
   * nothing to give, an error that says so.
   */
  #reading<T>(read: () => T, meanwhile?: () => T): T {
    try {
      this.#store.followIfReplaced()
    } catch (error) {
      // The file in the old one's place cannot be opened: reads go on from the old one, and
      // writes say why they cannot be made.
      this.#log.warn('the repaired outbox file cannot be opened', { error: String(error) })
    }
    if (this.#damagedAtOpen !== null) {
      if (meanwhile) return meanwhile()
      throw this.#checkFailure ?? this.#beingRepaired(this.#damagedAtOpen)
    }
    try {
      return read()
    } catch (error) {
      if (!this.#checking || !(damageOf(error) !== null || error instanceof SyntaxError)) {
        throw error
      }
      if (meanwhile) return meanwhile()
      throw this.#beingRepaired((error as Error).message, error)
    }
  }

  /** Why the outbox cannot show its items yet: its damage is being repaired, here or elsewhere. */
  #beingRepaired(damage: string, cause?: unknown): AppError {
    const by = this.#repairHolder
      ? `. Another process is repairing it: ${this.#repairHolder}; its items show again once it has`
      : '; it is being rebuilt from what can be read, and its items show again in a moment'
    return new AppError('storage', `The outbox file is damaged (${damage})${by}.`, {
      ...(cause !== undefined ? { cause } : {}),
    })
  }

  /**
   * A decision made while the page check runs (a click in the first second) waits for it and
   * then takes effect on the file the check leaves (the rebuilt one after damage); when the check
   * fails, the decision fails with its reason. Another process's repair is waited for as `queue`
   * waits for it.
   */
  async #decidable(): Promise<void> {
    await this.#ready
    await rebuildSettled(this.#file)
  }

  /** Nothing is written to a file whose damage could not be repaired. */
  #refuseUnlessWritable(): void {
    if (this.#checkFailure) throw this.#checkFailure
  }
}

/** Checks a value with a schema; a failure names every member at fault. */
function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const problems = result.error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join('.') : 'the value'
    return `${where}: ${issue.message}`
  })
  throw new AppError('invalid_argument', `Invalid ${what}: ${problems.join('; ')}.`)
}
