import { SvelteMap } from 'svelte/reactivity'
import type { ResultsColumn } from '../../../../src-common/analysis/readouts/results-table.ts'
import type { RequestResult, Result, VaultDeskBridge } from '../bridge.ts'
import type { PlotColumn } from '../plots/point-layout.ts'
import { pointColumnsPerRead, type PlotChoice } from '../results/plot-columns.ts'
import {
  columnsOf,
  plotPoints,
  pointColumnOf,
  PlotColumns,
  sameList,
  type PlotPoints,
  type PointsSpec,
  type RawColumn,
} from '../results/plot-points.ts'
import type { PlotColumnKey } from '../results/results-address.ts'
import { backlogLeft, type IndexBacklog, type ScopeArgs } from './results-table.svelte.ts'

type PointsAnswer = RequestResult<'results.points'>

export interface ResultsPlotOptions {
  connectionId: string
  vaultId: number
  /** How long after a change of the cache (or while the index is built) the points are re-read. */
  refreshDelayMs?: number
  schedule?: (work: () => void, delay: number) => void
}

/** What a plot shows and of which molecules. */
export interface PlotRequest extends PointsSpec {
  /** The table's text search, project and results criteria. */
  scope: ScopeArgs
  /** The table's columns: a molecule's name is read with them. */
  readouts: readonly ResultsColumn[]
}

interface Loaded {
  scope: string
  ids: readonly number[]
  columns: ReadonlyMap<PlotColumnKey, RawColumn>
}

/** Kinds whose changes may change a plot: its values and which molecules it has. */
const watchedKinds = ['readout_rows', 'protocols', 'molecules', 'batches']
/** `results.table` answers at most this many rows at once. */
const namesPerRead = 1000
/**
 * Plots of up to this many molecules have every name read as soon as their points are: the first
 * point a keyboard reaches is announced by its name, not its id. Larger ones read names as shown.
 */
const namesReadAhead = 5000

/**
 * The points of a results plot: every molecule of the table's scope (its text search, project and
 * results criteria, not a page of it) with a number in its readouts and within its ranges, and
 * the columns the plot's axes show. Columns already read for the same scope are kept, so that
 * choosing another axis reads only that column; a new scope reads everything again. One read at a
 * time: an answer to a scope or request since replaced is dropped, and the latest is read next.
 * When the cache changes (sync, or the readout index being built) the points are read again a
 * moment later, not once per committed page. Until the new points are read, the old ones stay.
 * Molecules' names are read through the results table of the same readouts: all of them at once
 * for a plot of a few thousand, otherwise as the plot needs them (the point under the pointer or
 * the keyboard's, the points of its table).
 */
export class ResultsPlot {
  readonly options: ResultsPlotOptions
  /** The points last read in full for a request; null until then. */
  points = $state.raw<PlotPoints | null>(null)
  /** Whether points are being read. */
  reading = $state(false)
  /** Why the points could not be read (the main side's words). */
  error = $state<string | null>(null)
  backlog = $state.raw<IndexBacklog | null>(null)

  readonly #bridge: VaultDeskBridge
  readonly #reportError: (message: string) => void
  readonly #schedule: (work: () => void, delay: number) => void
  readonly #names = new SvelteMap<number, string>()
  // Bookkeeping of what was asked, never rendered: plain collections are right here.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #namesAsked = new Set<number>()
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #namesQueued = new Set<number>()
  readonly #plotColumns = new PlotColumns()
  #request: PlotRequest | null = null
  #published = ''
  #loaded: Loaded | null = null
  /** Bumped when what was read may be out of date: reads begun before are dropped. */
  #generation = 0
  #running = false
  #again = false
  #active = false
  #stopped = false
  #refreshing = false
  /** A failure was told: the next ones are not, until a read succeeds. */
  #toldFailure = false

  constructor(
    bridge: VaultDeskBridge,
    reportError: (message: string) => void,
    options: ResultsPlotOptions,
  ) {
    this.#bridge = bridge
    this.#reportError = reportError
    this.options = options
    this.#schedule = options.schedule ?? ((work, delay) => setTimeout(work, delay))
  }

  /** Follows changes of the cache until stopped. */
  start(): () => void {
    this.#stopped = false
    const stop = this.#bridge.on('records.changed', ({ connectionId, vaultId, kinds }) => {
      if (connectionId !== this.options.connectionId || vaultId !== this.options.vaultId) return
      if (kinds.includes('molecules')) this.#namesAsked.clear()
      if (kinds.some((kind) => watchedKinds.includes(kind))) this.refresh()
    })
    return () => {
      this.#stopped = true
      stop()
    }
  }

  /** Reads only while the plot is shown; what changed meanwhile is read when it is shown again. */
  setActive(active: boolean): void {
    this.#active = active
    if (active) void this.#sync()
  }

  /** Asks for the points of a request, reading only what is not read yet. */
  ask(request: PlotRequest): void {
    this.#request = request
    void this.#sync()
  }

  /** Reads everything again, a moment from now (however often the cache changes meanwhile). */
  refresh(): void {
    if (this.#refreshing) return
    this.#refreshing = true
    this.#schedule(() => {
      this.#refreshing = false
      if (this.#stopped) return
      this.#generation += 1
      this.#loaded = null
      void this.#sync()
    }, this.options.refreshDelayMs ?? 1500)
  }

  /** A molecule's name, read the first time it is asked for; its id meanwhile. */
  nameOf = (id: number): string => {
    if (!this.#namesAsked.has(id)) {
      this.#namesAsked.add(id)
      this.#namesQueued.add(id)
      if (this.#namesQueued.size === 1) queueMicrotask(() => void this.#readNames())
    }
    return this.#names.get(id) ?? `Molecule ${id}`
  }

  /**
   * A column of the points as a plot takes it, the same object for the same values and choice,
   * so that a plot keeps its zoom and scales while nothing it shows has changed.
   */
  plotColumn(choice: PlotChoice | null): PlotColumn | null {
    const values = choice ? this.points?.columns.get(choice.key) : undefined
    return choice && values ? this.#plotColumns.of(choice, values) : null
  }

  async #sync(): Promise<void> {
    if (this.#running) {
      this.#again = true
      return
    }
    this.#running = true
    try {
      do {
        this.#again = false
        await this.#step()
      } while (this.#again && !this.#stopped)
    } finally {
      this.#running = false
      this.reading = false
    }
  }

  /** Reads what the request still lacks (asking for another step if more is needed), or shows it. */
  async #step(): Promise<void> {
    const request = this.#request
    if (!request || !this.#active || this.#stopped) return
    const scope = JSON.stringify(request.scope)
    const loaded = this.#loaded?.scope === scope ? this.#loaded : null
    const missing = columnsOf(request).filter((key) => !loaded?.columns.has(key))
    if (missing.length === 0 && loaded) {
      this.#publish(request, loaded)
      return
    }
    const generation = this.#generation
    this.reading = true
    const answers = await Promise.all(
      chunks(missing, pointColumnsPerRead).map((keys) => this.#readPoints(request.scope, keys)),
    )
    if (this.#stopped) return
    this.#again = true
    // Replaced meanwhile by another scope, or by a change of the cache: read the latest instead.
    if (generation !== this.#generation || JSON.stringify(this.#request?.scope) !== scope) return
    const refused = answers.find((answer) => !answer.ok)
    if (refused && !refused.ok) {
      this.#again = false
      this.#refuse(refused.error.code, refused.error.message)
      return
    }
    const parts = chunks(missing, pointColumnsPerRead)
    const read = answers.flatMap((answer) => (answer.ok ? [answer.value] : []))
    const misshapen = read.some(
      (answer, index) =>
        answer.values.length !== parts[index]!.length ||
        answer.values.some((values) => values.length !== answer.ids.length),
    )
    if (misshapen) {
      this.#again = false
      this.#refuse('internal', 'the answer does not hold the columns asked for.')
      return
    }
    const ids = loaded?.ids ?? read[0]?.ids ?? []
    if (read.some((answer) => !sameList(answer.ids, ids))) {
      // The cache changed between two reads: they do not line up, so read everything again.
      this.#loaded = null
      return
    }
    // Built once here and never changed: it goes into the points whole.
    // eslint-disable-next-line svelte/prefer-svelte-reactivity
    const columns = new Map([
      ...(loaded?.columns ?? []),
      ...read.flatMap((answer, index) =>
        parts[index]!.map((key, position): [PlotColumnKey, RawColumn] => [
          key,
          { values: answer.values[position]!, modifiers: answer.modifiers[position] ?? [] },
        ]),
      ),
    ])
    this.#loaded = { scope, ids, columns }
    this.error = null
    this.#toldFailure = false
    const backlog = read.at(-1)?.backlog
    if (backlog) {
      this.backlog = backlog
      if (backlogLeft(backlog) > 0) this.refresh()
    }
  }

  #readPoints(scope: ScopeArgs, keys: readonly PlotColumnKey[]): Promise<Result<PointsAnswer>> {
    return this.#bridge.invoke('results.points', {
      connectionId: this.options.connectionId,
      vaultId: this.options.vaultId,
      columns: keys.map(pointColumnOf),
      ...scope,
    })
  }

  #refuse(code: string, message: string): void {
    // A refused criterion is shown by the table in place of its rows; anything else is news.
    if (code !== 'invalid_argument' && !this.#toldFailure) {
      this.#toldFailure = true
      this.#reportError(`Could not read the points of the plot: ${message}`)
    }
    this.error = message
    this.points = null
    this.#published = ''
  }

  /** Shows the points of a request, unless they are shown already. */
  #publish(request: PlotRequest, loaded: Loaded): void {
    const published = JSON.stringify([
      request.axes,
      request.members,
      request.ranges,
      this.#generation,
      loaded.scope,
    ])
    if (published === this.#published && this.points) return
    this.#published = published
    this.points = plotPoints(loaded.ids, loaded.columns, request, this.points)
    if (this.points.ids.length <= namesReadAhead) this.points.ids.forEach((id) => this.nameOf(id))
  }

  async #readNames(): Promise<void> {
    const request = this.#request
    const ids = [...this.#namesQueued]
    this.#namesQueued.clear()
    if (!request || request.readouts.length === 0) {
      for (const id of ids) this.#namesAsked.delete(id)
      return
    }
    for (const batch of chunks(ids, namesPerRead)) {
      const answer = await this.#bridge.invoke('results.table', {
        connectionId: this.options.connectionId,
        vaultId: this.options.vaultId,
        level: 'molecule',
        columns: [...request.readouts],
        moleculeIds: batch,
        limit: namesPerRead,
      })
      if (!answer.ok) {
        // Asked again the next time the point is shown.
        for (const id of batch) this.#namesAsked.delete(id)
        continue
      }
      for (const row of answer.value.rows) {
        if (row.name !== null) this.#names.set(row.subjectId, row.name)
      }
    }
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const parts: T[][] = []
  for (let start = 0; start < items.length; start += size) {
    parts.push(items.slice(start, start + size))
  }
  return parts
}
