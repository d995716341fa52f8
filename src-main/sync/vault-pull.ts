import { ApiError, setAsideIn, type FinishedExport, type VaultClient } from '../api/index.ts'
import type { AppliedPage, VaultCache } from '../store/vault-cache.ts'
import { recordKind, type RecordKindName } from '../store/record-kinds.ts'
import { isObject, toId, toLinkId } from '../../src-common/values.ts'
import { PageDraft, type PartSink } from '../store/page-draft.ts'
import { WriteBatch } from '../store/write-batch.ts'
import type { Logger } from '../shared/logger.ts'
import { pullDoseResponse } from './dose-response-pull.ts'
import { exportPass } from './export-pass.ts'
import {
  completedCursor,
  readKindCursor,
  type KindCursor,
  type PassPosition,
} from './kind-cursor.ts'
import {
  kindPlansOf,
  type IncrementalKind,
  type KindPlan,
  type ListedKind,
  type PagedKind,
} from './kind-plans.ts'
import { ListForms } from './list-forms.ts'
import { pagedPass, type PageCommitter, type PassOutcome } from './paged-pass.ts'
import type { PullContext } from './pull-context.ts'
import { isRefusal, messageOf, stopsConnectionSync, throwIfCancelled } from './pull-errors.ts'
import { pullRunStatistics } from './run-statistics.ts'
import type { ServerClock } from './server-clock.ts'
import { SetAsideTally, type SetAsideReport } from './set-aside.ts'

/** What a pull tells as it goes. */
export interface PullObserver {
  /** Called once the records counted in `done` are committed. */
  progress(kind: RecordKindName, done: number, total: number | null): void
  /** Records of a kind were stored or deleted. */
  changed(kind: RecordKindName): void
}

/** When reference data is read whole again, and the deletions of the other kinds are checked. */
export interface RefreshPolicy {
  /** Reference data and deletion checks older than this are due. */
  intervalMs: number
  /** Everything now, whether due or not (the person asked for it). */
  all: boolean
}

export interface VaultPullOptions {
  cache: VaultCache
  context: PullContext
  log: Logger
  observer: PullObserver
  clock: ServerClock
  refresh: RefreshPolicy
  /** A first pass of a kind with more records than this reads one export instead of pages. */
  exportThreshold: number
  /** A kind the server refused for lack of rights is asked again after this long. */
  refusalRetryMs: number
}

export interface VaultPullResult {
  vaultId: number
  /** Why nothing of the vault could be read (its API is off, or the person left it), or null. */
  unreachable: string | null
  /**
   * Kinds not available here, left out until asked again (`refusalRetryMs`): reserved to
   * administrators, or answered 403 or 404 (a vault without inventory, say).
   */
  refused: RecordKindName[]
  /** Records that could not be read or stored, by kind, while the rest of their kind synced. */
  setAside: SetAsideReport[]
  /** Kinds that failed this time, and why; the others were pulled. */
  failures: { kind: RecordKindName; message: string }[]
}

/**
 * Pulls every kind of one vault into the cache, each as its plan says and when it is due. A kind
 * that fails is reported and the others go on; a failure that concerns the whole connection
 * (network, token, cancel) is thrown, and a refusal of a kind anyone may read means the vault
 * cannot be reached. The vault is marked synced only when every kind it may read was pulled.
 * The kinds are pulled in two lanes side by side (kindLanes), so that the small kinds do not wait
 * for a large pass of molecules, and two large passes (their exports made by the server at once)
 * do not wait for each other; the client's limiter keeps the requests within the server's limit.
 */
export async function pullVault(options: VaultPullOptions): Promise<VaultPullResult> {
  const { cache, context, log } = options
  const { vaultId, client } = context
  // What stops one lane stops the other at once, as a cancel would.
  const lanes = new AbortController()
  const outer = context.call.signal
  const call = {
    ...context.call,
    signal: outer ? AbortSignal.any([outer, lanes.signal]) : lanes.signal,
  }
  const tally = new SetAsideTally()
  const pull = new KindPull(
    { ...options, context: { ...context, call, listForms: new ListForms(cache, vaultId) } },
    tally,
  )
  const refused = new Set<RecordKindName>()
  const failures = new Map<RecordKindName, string>()
  /** What ends the pull: a failure of the whole connection, or a vault that cannot be reached. */
  let stopped: { error: unknown } | { unreachable: string } | null = null
  const runLane = async (plans: readonly KindPlan[]) => {
    for (const plan of plans) {
      if (stopped) return
      try {
        throwIfCancelled(call.signal, `pull of vault ${vaultId}`)
        const outcome = await pull.run(plan)
        if (outcome === 'refused') refused.add(plan.kind)
      } catch (error) {
        if (stopped) return
        if (stopsConnectionSync(error, client)) {
          stopped = { error }
          lanes.abort(error)
        } else if (isRefusal(error, client)) {
          log.warn('vault not reachable', { vaultId, reason: messageOf(error) })
          stopped = {
            unreachable: `The server refused access to vault ${vaultId}: ${messageOf(error)}`,
          }
          lanes.abort(error)
        } else {
          log.warn('kind not pulled', { vaultId, kind: plan.kind, reason: messageOf(error) })
          failures.set(plan.kind, messageOf(error))
        }
      }
    }
  }
  const plans = kindPlansOf(client)
  await Promise.all(kindLanes(plans).map(runLane))
  const inPlanOrder = plans.map((plan) => plan.kind)
  const result: VaultPullResult = {
    vaultId,
    unreachable: null,
    refused: inPlanOrder.filter((kind) => refused.has(kind)),
    setAside: tally.reports([...inPlanOrder, 'dose_response_series']),
    failures: inPlanOrder.flatMap((kind) => {
      const message = failures.get(kind)
      return message === undefined ? [] : [{ kind, message }]
    }),
  }
  const end = stopped as { error: unknown } | { unreachable: string } | null
  if (end && 'error' in end) throw end.error
  if (end) return { ...result, unreachable: end.unreachable }
  if (result.failures.length === 0) await cache.writer.commit(new WriteBatch().recordSync(vaultId))
  return result
}

/**
 * The kinds in lanes that are pulled side by side, each lane in the plans' order: a kind that
 * carries another (molecules, with their batches) with the kind it carries, which must follow it;
 * and every other kind, whose order matters among them (protocols and runs follow readout rows).
 */
function kindLanes(plans: readonly KindPlan[]): KindPlan[][] {
  const carrying = new Set<RecordKindName>()
  for (const plan of plans) {
    if (plan.mode === 'incremental' && plan.carries) carrying.add(plan.kind).add(plan.carries)
  }
  return [
    plans.filter((plan) => carrying.has(plan.kind)),
    plans.filter((plan) => !carrying.has(plan.kind)),
  ]
}

/** What the readout rows stored in this pass touched. */
interface ChangedReadouts {
  protocols: Set<number>
  runs: Set<number>
}

/**
 * Pulls one kind at a time for one vault sync. Every new pass begins at the server time of the
 * moment this vault's pull began, known once the server has answered anything (ServerClock).
 */
class KindPull {
  readonly #options: VaultPullOptions
  readonly #tally: SetAsideTally
  readonly #moment: number
  #startedAt: Promise<string> | undefined
  #readouts: ChangedReadouts | null = null

  constructor(options: VaultPullOptions, tally: SetAsideTally) {
    this.#options = options
    this.#tally = tally
    this.#moment = options.clock.moment()
  }

  /**
   * Pulls one kind as its plan says. A kind the server says is not available here (see
   * `notAvailable`) is noted as refused, and left out until `refusalRetryMs` has passed: the
   * vault's other kinds sync and its last sync advances.
   */
  async run(plan: KindPlan): Promise<'pulled' | 'refused' | 'not_due'> {
    const { cache, context } = this.#options
    const cursor = readKindCursor(cache.cursor(plan.kind, context.vaultId))
    if (this.#refusedRecently(cursor)) return 'refused'
    try {
      return await this.#pull(plan, cursor)
    } catch (error) {
      if (!notAvailable(plan, error, context.client)) throw error
      this.#options.log.info('kind not available', {
        vaultId: context.vaultId,
        kind: plan.kind,
        reason: messageOf(error),
      })
      await this.#saveCursor(plan.kind, { ...cursor, deniedAt: new Date().toISOString() })
      return 'refused'
    }
  }

  async #pull(plan: KindPlan, cursor: KindCursor): Promise<'pulled' | 'not_due'> {
    const { observer, cache, context } = this.#options
    if (plan.mode === 'dose_response') return this.#doseResponse(cursor)
    if (!cursor.pass && !this.#due(plan, cursor)) return 'not_due'
    if (plan.mode === 'listed') {
      await this.#listed(plan)
      await this.#tally.save(cache, context.vaultId, plan.kind, true)
    } else if (plan.mode === 'paged') {
      const whole = await this.#paged(plan, cursor)
      await this.#tally.save(cache, context.vaultId, plan.kind, whole)
      if (plan.kind === 'runs') await pullRunStatistics(cache, context, this.#changed().runs)
    } else {
      const whole = await this.#incremental(plan, cursor)
      await this.#tally.save(cache, context.vaultId, plan.kind, whole)
    }
    observer.changed(plan.kind)
    return 'pulled'
  }

  /**
   * Whether a kind is read in this pass: kinds read by changes at every pass; the others, and the
   * deletion checks, when the refresh is due, asked for, or never done; kinds that follow readout
   * rows also when some changed.
   */
  #due(plan: KindPlan, cursor: KindCursor): boolean {
    if (plan.mode === 'incremental' && !plan.onRefresh) return true
    if (plan.followsReadouts && this.#readouts !== null) return true
    return this.#refreshDue(cursor)
  }

  #refreshDue(cursor: KindCursor): boolean {
    const { refresh } = this.#options
    if (refresh.all || !cursor.checkedAt) return true
    return Date.now() - Date.parse(cursor.checkedAt) >= refresh.intervalMs
  }

  async #listed(plan: ListedKind): Promise<void> {
    const { cache, context } = this.#options
    const records = await plan.fetch(context)
    this.#tally.note(plan.kind, setAsideIn(records))
    const kind = recordKind(plan.kind)
    const ids = records.flatMap((record) => {
      const id = isObject(record) ? toId(kind.idOf(record, context.vaultId)) : null
      return id === null ? [] : [id]
    })
    const cursor: KindCursor = { since: null, pass: null, checkedAt: new Date().toISOString() }
    const [applied] = await cache.writer.commit(
      new WriteBatch()
        .applyPage(plan.kind, context.vaultId, records, { cursor })
        .retainOnly(plan.kind, context.vaultId, ids),
    )
    this.#noteRejected(applied as AppliedPage)
    this.#options.observer.progress(plan.kind, records.length, records.length)
  }

  /**
   * The whole listing; a pass stopped halfway resumes where it stopped. True when this pass read
   * it from the start.
   */
  async #paged(plan: PagedKind, cursor: KindCursor): Promise<boolean> {
    const { cache, context } = this.#options
    const start = cursor.pass ?? newPass(null)
    const outcome = await pagedPass(
      (window) => plan.page(context, window),
      start,
      this.#committer(plan.kind, cursor, plan.keep),
    )
    // A resumed pass did not see the ids before its start: the next pass reads it whole again.
    const batch = new WriteBatch()
    if (outcome.ids) batch.retainOnly(plan.kind, context.vaultId, outcome.ids)
    const checkedAt = outcome.ids ? new Date().toISOString() : cursor.checkedAt
    await cache.writer.commit(
      batch.saveCursor(plan.kind, context.vaultId, {
        since: null,
        pass: null,
        ...(checkedAt ? { checkedAt } : {}),
      } satisfies KindCursor),
    )
    return outcome.ids !== null
  }

  /**
   * What changed since the last pass (everything, the first time: from one export when there is
   * a lot), then, when the refresh is due, the deletions: ids the server no longer lists are
   * removed. A kind without an id list reads every page when its deletions are due. True when
   * the pass read the whole kind.
   */
  async #incremental(plan: IncrementalKind, cursor: KindCursor): Promise<boolean> {
    const { cache, context } = this.#options
    const due = this.#refreshDue(cursor)
    const start = cursor.pass ?? newPass(due && !plan.ids ? null : cursor.since)
    // A whole pass into nothing cached: every record cached at its end came from it (or from the
    // server since, by the main thread), so there is nothing to prune.
    const fromNothing =
      start.since === null && start.offset === 0 && !cache.holds(plan.kind, context.vaultId)
    const commit = this.#committer(plan.kind, cursor)
    let outcome: PassOutcome | undefined
    if (start.since === null && start.offset === 0 && plan.exportAll) {
      outcome = await this.#firstPageThenExport(plan, plan.exportAll, start, commit)
    }
    outcome ??= await pagedPass((window) => plan.page(context, window, start.since), start, commit)
    let ids: number[] | null = null
    if (start.since === null) ids = outcome.ids
    else if (due && plan.ids) ids = await plan.ids(context)
    const batch = new WriteBatch()
    if (ids && !fromNothing) batch.retainOnly(plan.kind, context.vaultId, ids)
    const checkedAt = ids ? new Date().toISOString() : cursor.checkedAt
    const completed = completedCursor(start.startedAt ?? (await this.#serverStart()), checkedAt)
    batch.saveCursor(plan.kind, context.vaultId, completed)
    if (plan.carries && start.since === null && ids) {
      batch.saveCursor(plan.carries, context.vaultId, completed)
    }
    await cache.writer.commit(batch)
    return start.since === null && start.offset === 0
  }

  /**
   * Reads the first page; when the server counts more records than the threshold, reads them from
   * one export, else leaves them to pages (answers undefined). While the server makes the export
   * (seconds), the pass reads pages; the export then gives the records after the last one they
   * read. Should the pages reach the end first, or the export fail, the pages read them all (and
   * an export still being made is cancelled).
   */
  async #firstPageThenExport(
    plan: IncrementalKind,
    exportAll: NonNullable<IncrementalKind['exportAll']>,
    start: PassPosition,
    pages: PageCommitter<PageDraft>,
  ): Promise<PassOutcome | undefined> {
    const { context, exportThreshold } = this.#options
    const first = await plan.page(context, { offset: 0, page_size: 1 }, null)
    if (first.count === undefined || first.count <= exportThreshold) return undefined
    const unneeded = new AbortController()
    const { signal } = context.call
    const exportCall = {
      ...context.call,
      signal: signal ? AbortSignal.any([signal, unneeded.signal]) : unneeded.signal,
    }
    let made: FinishedExport<unknown> | undefined
    const making = exportAll({ ...context, call: exportCall }).then((finished) => {
      // Finished as the pages reached the end: not read, so its export place is given back now.
      if (unneeded.signal.aborted) finished.release()
      else made = finished
    })
    making.catch(() => {})
    let paged: PassOutcome
    try {
      paged = await pagedPass(
        (window) => plan.page(context, window, null),
        start,
        pages,
        () => made !== undefined,
      )
    } finally {
      if (!made) unneeded.abort()
    }
    if (!paged.stopped) {
      made?.release()
      return paged
    }
    return exportPass(made!, start, pages, context.call, first.count, paged)
  }

  /** All calculations when the refresh is due, else those of protocols whose rows changed. */
  async #doseResponse(cursor: KindCursor): Promise<'pulled' | 'not_due'> {
    const { cache, context, observer } = this.#options
    const due = this.#refreshDue(cursor)
    const only = due ? null : this.#changed().protocols
    if (only?.size === 0) return 'not_due'
    await pullDoseResponse(
      cache,
      context,
      (done, total) => observer.progress('dose_response_calculations', done, total),
      only,
      (kind, records) => this.#tally.note(kind, records),
    )
    await this.#tally.save(cache, context.vaultId, 'dose_response_calculations', due)
    await this.#tally.save(cache, context.vaultId, 'dose_response_series', due)
    if (due) {
      await this.#saveCursor('dose_response_calculations', {
        since: null,
        pass: null,
        checkedAt: new Date().toISOString(),
      })
    }
    observer.changed('dose_response_calculations')
    observer.changed('dose_response_series')
    return 'pulled'
  }

  /**
   * Commits the pages of one pass, each through the writer after the one before it
   * (PageCommitter): calls come in page order, and each takes its place in that order when it
   * reaches the writer, since every call awaits the same server time first. Nothing here holds a
   * page once the writer has it: held until their page commits (several may wait), records
   * outlived the young generation, and collecting them took the main thread a fifth of a first
   * sync.
   */
  #committer(
    kind: RecordKindName,
    cursor: KindCursor,
    keep?: readonly string[],
  ): PageCommitter<PageDraft> {
    const { cache, context } = this.#options
    let last: Promise<AppliedPage> | undefined
    const handOver = async (
      page: PageDraft,
      position: PassPosition,
    ): Promise<{ stored: Promise<AppliedPage> }> => {
      const pass = { ...position, startedAt: position.startedAt ?? (await this.#serverStart()) }
      const stored = cache.writer.applyDraft(
        page,
        {
          cursor: { ...cursor, pass } satisfies KindCursor,
          ...(keep ? { keep } : {}),
        },
        last ? { after: last } : {},
      )
      last = stored
      return { stored }
    }
    return {
      setAside: (records) => this.#tally.note(kind, records),
      draft: () => {
        const sink = cache.writer.partSink()
        return kind === 'readout_rows'
          ? new NotingDraft(kind, context.vaultId, sink, (record) => this.#noteReadout(record))
          : new PageDraft(kind, context.vaultId, {}, sink)
      },
      commit: (page, position, total) => {
        const handed = handOver(page, position)
        return {
          sent: handed.then(() => cache.writer.sent()),
          committed: handed.then(({ stored }) =>
            this.#pageCommitted(kind, stored, position, total),
          ),
        }
      },
    }
  }

  async #pageCommitted(
    kind: RecordKindName,
    stored: Promise<AppliedPage>,
    position: PassPosition,
    total: number | null,
  ): Promise<void> {
    this.#noteRejected(await stored)
    this.#options.observer.progress(kind, position.offset, total)
  }

  /** The server time at which this vault's pull began (asked once, when first needed). */
  #serverStart(): Promise<string> {
    const { clock, context } = this.#options
    this.#startedAt ??= clock.at(this.#moment, context.vaultId, context.call)
    return this.#startedAt
  }

  #changed(): ChangedReadouts {
    return this.#readouts ?? { protocols: new Set(), runs: new Set() }
  }

  #noteReadout(record: unknown): void {
    this.#readouts ??= { protocols: new Set(), runs: new Set() }
    if (!isObject(record)) return
    const protocol = toLinkId(record.protocol) ?? toLinkId(record.protocol_id)
    const run = toLinkId(record.run) ?? toLinkId(record.run_id)
    if (protocol !== null) this.#readouts.protocols.add(protocol)
    if (run !== null) this.#readouts.runs.add(run)
  }

  #refusedRecently(cursor: KindCursor): boolean {
    if (!cursor.deniedAt) return false
    return Date.now() - Date.parse(cursor.deniedAt) < this.#options.refusalRetryMs
  }

  async #saveCursor(kind: RecordKindName, cursor: KindCursor): Promise<void> {
    const { cache, context } = this.#options
    await cache.writer.commit(new WriteBatch().saveCursor(kind, context.vaultId, cursor))
  }

  #noteRejected(applied: AppliedPage): void {
    if (applied.rejected.length === 0) return
    this.#tally.note(applied.kind, applied.rejected)
    this.#options.log.warn('records not stored', {
      kind: applied.kind,
      vaultId: applied.vaultId,
      count: applied.rejected.length,
      first: applied.rejected.slice(0, 3).map((rejected) => rejected.reason),
    })
  }
}

/**
 * Whether a failure says the kind is not available here rather than that something broke: 403
 * or 404 for the kind's own list (an administrators' kind, a vault without inventory), or for an
 * administrators' kind the 401 this service gives for a role it refuses. An export's 404 (one
 * that expired) is not: its operation is the export's.
 */
function notAvailable(plan: KindPlan, error: unknown, client: VaultClient): boolean {
  if (!(error instanceof ApiError) || error.operation.startsWith('exports.')) return false
  if (error.status === 403 || error.status === 404) return true
  return plan.mode === 'listed' && plan.adminOnly === true && isRefusal(error, client)
}

function newPass(since: string | null): PassPosition {
  return { startedAt: null, since, offset: 0, lastId: null }
}

/**
 * A page of readout rows that notes each row as it is added: which protocols and runs have changed
 * readouts, whose dose-response series follow (the row is not held after).
 */
class NotingDraft extends PageDraft {
  readonly #note: (record: unknown) => void

  constructor(
    kind: RecordKindName,
    vaultId: number,
    sink: PartSink,
    note: (record: unknown) => void,
  ) {
    super(kind, vaultId, {}, sink)
    this.#note = note
  }

  override add(record: unknown, text?: string): void {
    this.#note(record)
    super.add(record, text)
  }
}
