/**
 * The curves of a results table's rows in view, for its "Curve" columns: asked of main in one
 * `curves.ofResults` call for the rows in view (never the whole table), kept by row so that
 * scrolling back shows them at once, and asked again for the rows in view when what they are made
 * of changes (readout rows, data series, calculations, a correction queued or sent) and while the
 * readout index is being built. Asks are coalesced: a fast scroll asks for where it stopped, not
 * for every row it passed.
 */
import { SvelteMap } from 'svelte/reactivity'
import type { RequestResult, VaultDeskBridge } from '../../lib/bridge.ts'
import { curveKinds } from '../../lib/curves/curves-reader.svelte.ts'
import { coalesced } from '../../lib/state/coalesced.ts'

export type ResultsCurvesAnswer = RequestResult<'curves.ofResults'>
export type CurveColumn = ResultsCurvesAnswer['columns'][number]
export type RowCurves = ResultsCurvesAnswer['rows'][number]

export interface ReadoutColumnRef {
  protocolId: number
  definitionId: number
}

export interface ResultsCurvesView {
  level: 'molecule' | 'batch'
  columns: readonly ReadoutColumnRef[]
  /** The molecules or batches of the rows in view. */
  subjectIds: readonly number[]
}

/** How often the rows in view are asked again while the readout index has rows to go. */
const backlogPollMs = 1000

export class ResultsCurves {
  /** The "Curve" columns of the table asked last; empty until answered. */
  columns = $state.raw<CurveColumn[]>([])
  /** Why the last ask failed, in main's words; null when it did not. */
  failed = $state<string | null>(null)
  readonly #bridge: VaultDeskBridge
  readonly #connectionId: string
  readonly #vaultId: number
  /** By `subject:calculation`; a subject read without curves of a column is `null`. */
  readonly #byRow = new SvelteMap<string, RowCurves | null>()
  /** The subjects whose curves are read (under the current table). */
  // Looked up, never rendered: a plain Set is right here.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #read = new Set<number>()
  readonly #ask = coalesced(() => this.#askNow())
  #view: ResultsCurvesView = { level: 'molecule', columns: [], subjectIds: [] }
  #tableKey = ''
  #everything = false

  constructor(bridge: VaultDeskBridge, connectionId: string, vaultId: number) {
    this.#bridge = bridge
    this.#connectionId = connectionId
    this.#vaultId = vaultId
  }

  /** Follows changes of the cache and the outbox until the returned function is called. */
  start(): () => void {
    let timer: ReturnType<typeof setTimeout> | null = null
    const again = () => {
      this.#everything = true
      void this.#ask()
    }
    const stopRecords = this.#bridge.on('records.changed', (change) => {
      if (change.connectionId !== this.#connectionId || change.vaultId !== this.#vaultId) return
      if (change.kinds.some((kind) => curveKinds.includes(kind))) again()
    })
    const stopOutbox = this.#bridge.on('outbox.changed', (change) => {
      if (change.itemIds.length > 0) again()
    })
    this.#poll = (backlog) => {
      if (timer !== null || backlog.rows + backlog.groups === 0) return
      timer = setTimeout(() => {
        timer = null
        again()
      }, backlogPollMs)
    }
    return () => {
      if (timer !== null) clearTimeout(timer)
      this.#poll = () => {}
      stopRecords()
      stopOutbox()
    }
  }

  /** The table and the rows in view: asks for the curves of rows not read yet. */
  show(view: ResultsCurvesView): void {
    const tableKey = `${view.level}|${view.columns.map((column) => `${column.protocolId}:${column.definitionId}`).join(',')}`
    if (tableKey !== this.#tableKey) {
      this.#tableKey = tableKey
      this.#byRow.clear()
      this.#read.clear()
      this.#everything = true
    }
    this.#view = view
    if (this.#everything || view.subjectIds.some((id) => !this.#read.has(id))) void this.#ask()
  }

  /** A row's curves of a column: undefined while not read, null when it has none. */
  of(subjectId: number, calculationId: number): RowCurves | null | undefined {
    return this.#byRow.get(`${subjectId}:${calculationId}`)
  }

  /** Asks again for the rows in view (after queueing a correction). */
  refresh(): Promise<void> {
    this.#everything = true
    return this.#ask()
  }

  #poll: (backlog: ResultsCurvesAnswer['backlog']) => void = () => {}

  async #askNow(): Promise<void> {
    const view = this.#view
    const tableKey = this.#tableKey
    const everything = this.#everything
    this.#everything = false
    if (view.columns.length === 0) {
      this.columns = []
      return
    }
    const subjectIds = everything
      ? [...view.subjectIds]
      : view.subjectIds.filter((id) => !this.#read.has(id))
    const result = await this.#bridge.invoke('curves.ofResults', {
      connectionId: this.#connectionId,
      vaultId: this.#vaultId,
      level: view.level,
      subjectIds,
      columns: view.columns.map(({ protocolId, definitionId }) => ({ protocolId, definitionId })),
    })
    // A new table was asked meanwhile: this answer is of the one before.
    if (tableKey !== this.#tableKey) return
    if (!result.ok) {
      this.failed = result.error.message
      return
    }
    this.failed = null
    const answer = result.value
    if (everything) {
      this.#byRow.clear()
      this.#read.clear()
    }
    this.columns = answer.columns
    for (const subjectId of subjectIds) {
      this.#read.add(subjectId)
      for (const column of answer.columns) {
        this.#byRow.set(`${subjectId}:${column.calculation.id}`, null)
      }
    }
    for (const row of answer.rows) this.#byRow.set(`${row.subjectId}:${row.calculationId}`, row)
    this.#poll(answer.backlog)
  }
}
