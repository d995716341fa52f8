import { RowSelection } from '../../components/table/row-selection.svelte.ts'
import type { RowKey, RowRange } from '../../components/table/table-model.ts'
import type {
  ProtocolEntry,
  ReadoutDefinitionEntry,
} from '../../../../src-common/analysis/readouts/catalogue.ts'
import type {
  ResultsColumn,
  ResultsRow,
} from '../../../../src-common/analysis/readouts/results-table.ts'
import type { RequestArgs, RequestResult, Result, VaultDeskBridge } from '../bridge.ts'
import { columnScale, type ColumnScale } from '../results/colour-scale.ts'
import type { TableReadout } from '../results/plot-columns.ts'
import {
  columnKey,
  emptyQuestion,
  maxTextLength,
  sameQuestion,
  sameRows,
  sameTable,
  type ColumnKey,
  type ResultsQuestion,
} from '../results/results-address.ts'
import { coalesced } from './coalesced.ts'
import { PageBook } from './page-book.ts'

type TableArgs = RequestArgs<'results.table'>
type TableAnswer = RequestResult<'results.table'>
/** The molecules a question is about, as `results.table` and `results.points` both take them. */
export type ScopeArgs = Pick<TableArgs, 'criteria' | 'within'>
export type ResultsCatalogue = RequestResult<'results.catalogue'>
export type IndexBacklog = ResultsCatalogue['backlog']

export interface ResultsTableOptions {
  connectionId: string
  vaultId: number
  pageSize?: number
  /** How often the catalogue is asked again while the readout index is being built (ms). */
  backlogPollMs?: number
  schedule?: (work: () => void, delay: number) => void
}

/** A column of the table with what the catalogue says of its readout. */
export interface ShownColumn extends TableReadout {
  key: ColumnKey
  column: ResultsColumn
  /** Null until the catalogue is read, or for a readout the vault no longer has. */
  protocol: ProtocolEntry | null
  definition: ReadoutDefinitionEntry | null
  label: string
  protocolName: string
  unit: string | null
  /** Numbers: coloured, filtered by range. */
  numeric: boolean
}

/** Kinds whose changes may change a results table: its values, its names, its definitions. */
const watchedKinds = ['readout_rows', 'protocols', 'molecules', 'batches']
/** Kinds whose changes may change its values, and so its colour scales. */
const valueKinds = ['readout_rows', 'protocols']

/** `results.table` answers at most this many rows at once. */
const largestPage = 1000

/**
 * One results table (a SAR table) of a vault: the question (from the address), its rows read a
 * page at a time as the grid scrolls, the selection, and the catalogue of protocols and readouts
 * the columns are chosen from. While the readout index is still being built, the catalogue is
 * asked again every second and the rows in view re-read as the backlog shrinks; a change of
 * readout rows, protocols, molecules or batches re-reads them too. As with the record lists, the
 * rows shown stay until the new question's first page arrives, and answers to older questions are
 * dropped. Each numeric column's colour scale spans its values over the whole vault (not the rows
 * a filter leaves), so that a value keeps its colour while the person narrows the table.
 */
export class ResultsTable {
  readonly options: ResultsTableOptions
  catalogue = $state.raw<ResultsCatalogue['protocols'] | null>(null)
  /** Readout rows and aggregates still to index; null until first asked. */
  backlog = $state.raw<IndexBacklog | null>(null)
  question = $state.raw<ResultsQuestion>(emptyQuestion)
  projectId = $state<number | null>(null)
  /** Rows matching the question; null until its first answer (or when it was refused). */
  total = $state<number | null>(null)
  rows = $state.raw<(ResultsRow | undefined)[]>([])
  /** Why the question was refused (the main side's words, as they are). */
  error = $state<string | null>(null)
  /** Changes whenever the rows asked for change (not on refreshes, nor on a new sort). */
  queryVersion = $state(0)
  readonly selection = new RowSelection()
  columns: ShownColumn[] = $derived.by(() => shownColumns(this.question, this.catalogue))
  /** Each numeric column's scale, from its lowest and highest value in the vault. */
  scales: Readonly<Partial<Record<ColumnKey, ColumnScale>>> = $derived.by(() => {
    const scales: Partial<Record<ColumnKey, ColumnScale>> = {}
    for (const shown of this.columns) {
      const ends = this.#extremes[shown.key]
      const scale = ends && shown.numeric ? columnScale(ends.min, ends.max, shown.unit) : null
      if (scale) scales[shown.key] = scale
    }
    return scales
  })

  readonly #bridge: VaultDeskBridge
  readonly #reportError: (message: string) => void
  readonly #pages: PageBook
  readonly #schedule: (work: () => void, delay: number) => void
  readonly #refresh = coalesced(() => this.#reread())
  /** The scales are read again only when values may have changed, never two reads at once. */
  readonly #rescale = coalesced(() => this.#readScales())
  /** The molecule of each row read (a batch's; a molecule's own id), for collections. */
  // Looked up, never rendered: a plain Map is right here.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #moleculeOf = new Map<number, number | null>()
  #version = 0
  #stale = false
  #wanted: RowRange = { start: 0, end: 1 }
  #polling = false
  #stopped = false
  #scalesFor = ''
  /** The lowest and highest number of each column, over the vault. */
  #extremes = $state.raw<Readonly<Partial<Record<ColumnKey, { min: number; max: number }>>>>({})

  constructor(
    bridge: VaultDeskBridge,
    reportError: (message: string) => void,
    options: ResultsTableOptions,
  ) {
    this.#bridge = bridge
    this.#reportError = reportError
    this.options = options
    this.#pages = new PageBook(options.pageSize ?? 100)
    this.#schedule = options.schedule ?? ((work, delay) => setTimeout(work, delay))
  }

  /** Reads the catalogue, and follows changes of the cache until stopped. */
  start(): () => void {
    this.#stopped = false
    const stop = this.#bridge.on('records.changed', ({ connectionId, vaultId, kinds }) => {
      if (connectionId !== this.options.connectionId || vaultId !== this.options.vaultId) return
      if (!kinds.some((kind) => watchedKinds.includes(kind))) return
      void this.readCatalogue()
      void this.refresh()
      if (kinds.some((kind) => valueKinds.includes(kind))) void this.#rescale()
    })
    void this.readCatalogue()
    return () => {
      this.#stopped = true
      stop()
    }
  }

  /**
   * Asks the question (a new address); the same question again changes nothing, and nor does the
   * same table shown another way (as a plot, or with other plot columns).
   */
  setQuestion(question: ResultsQuestion): void {
    if (sameQuestion(question, this.question)) return
    const before = this.question
    this.question = question
    if (sameTable(question, before)) return
    this.#restart(!sameRows(question, before))
  }

  setProject(projectId: number | null): void {
    if (projectId === this.projectId) return
    this.projectId = projectId
    this.#restart(true)
  }

  /** Reads the pages a range of rows needs, unless they are read or being read. */
  want(range: RowRange): void {
    this.#wanted = range
    if (this.question.columns.length === 0) return
    for (const page of this.#pages.pagesOf(range)) {
      if (this.#pages.needs(page)) void this.#read(page)
    }
  }

  /** Reads the rows in view again (the cache changed under them); coalesced. */
  refresh(): Promise<void> {
    return this.#refresh()
  }

  /** Reads the catalogue and the index's backlog; asks again later while there is a backlog. */
  async readCatalogue(): Promise<void> {
    const answer = await this.#bridge.invoke('results.catalogue', {
      connectionId: this.options.connectionId,
      vaultId: this.options.vaultId,
    })
    if (this.#stopped) return
    if (!answer.ok) {
      this.#reportError(`Could not read the protocols and readouts: ${answer.error.message}`)
      return
    }
    const before = this.backlog
    this.catalogue = answer.value.protocols
    this.backlog = answer.value.backlog
    if (before !== null && backlogLeft(answer.value.backlog) < backlogLeft(before)) {
      void this.refresh()
      void this.#rescale()
    }
    this.#pollWhileIndexing()
  }

  /** The row at a place in the table, as the selection names it. */
  keyAt = (position: number): RowKey | null => this.rows[position]?.subjectId ?? null

  /** The molecules of the selected rows (a batch's molecule once however many of its batches). */
  selectedMoleculeIds(): number[] {
    // Built and dropped here; nothing renders it.
    // eslint-disable-next-line svelte/prefer-svelte-reactivity
    const ids = new Set<number>()
    for (const key of this.selection.keys) {
      const moleculeId = this.#moleculeOf.get(Number(key))
      if (moleculeId !== null && moleculeId !== undefined) ids.add(moleculeId)
    }
    return [...ids]
  }

  /** Selects every row of the table, reading those not read yet; false when a read failed. */
  async selectAll(): Promise<boolean> {
    const version = this.#version
    const total = this.total ?? 0
    const keys: number[] = []
    for (let offset = 0; offset < total; offset += largestPage) {
      const answer = await this.#ask(offset, largestPage)
      if (version !== this.#version) return false
      if (!answer.ok) {
        this.#reportError(`Could not select every row: ${answer.error.message}`)
        return false
      }
      for (const row of answer.value.rows) {
        this.#moleculeOf.set(row.subjectId, row.moleculeId)
        keys.push(row.subjectId)
      }
    }
    this.selection.keys.clear()
    for (const key of keys) this.selection.keys.add(key)
    return true
  }

  #restart(rowsChanged: boolean): void {
    if (rowsChanged) {
      this.queryVersion++
      this.selection.clear()
      this.#moleculeOf.clear()
    }
    this.#version++
    this.#pages.clear()
    this.#stale = true
    this.error = null
    if (this.question.columns.length === 0) {
      this.rows = []
      this.total = 0
      this.#extremes = {}
      this.#scalesFor = ''
      return
    }
    const scalesFor = this.#scalesKey()
    if (scalesFor !== this.#scalesFor) {
      this.#scalesFor = scalesFor
      void this.#rescale()
    }
    this.want({ start: 0, end: Math.max(1, this.#wanted.end - this.#wanted.start) })
  }

  async #reread(): Promise<void> {
    if (this.question.columns.length === 0) return
    const pages = this.#pages.pagesOf(this.#wanted)
    const version = this.#version
    const answers = await Promise.all(
      pages.map((page) => this.#ask(page * this.#pages.pageSize, this.#pages.pageSize)),
    )
    if (version !== this.#version) return
    let rows: (ResultsRow | undefined)[] | null = null
    // Everything outside the view is forgotten: it is read again, fresh, when scrolled to.
    this.#pages.forgetRead()
    for (const [index, answer] of answers.entries()) {
      if (!answer.ok) continue
      rows ??= new Array<ResultsRow | undefined>(answer.value.total)
      this.#place(rows, pages[index]!, answer.value)
    }
    if (rows === null) return
    this.rows = rows
    this.total = rows.length
  }

  async #read(page: number): Promise<void> {
    const version = this.#version
    this.#pages.startReading(page)
    const answer = await this.#ask(page * this.#pages.pageSize, this.#pages.pageSize)
    if (version !== this.#version) return
    this.#pages.finishReading(page, answer.ok)
    if (!answer.ok) {
      // A refused question (criteria naming no readout) shows its reason in place of rows.
      if (answer.error.code === 'invalid_argument') {
        this.rows = []
        this.total = null
        this.#stale = false
      } else if (this.error === null) {
        this.#reportError(`Could not read the results table: ${answer.error.message}`)
      }
      this.error = answer.error.message
      return
    }
    const { total } = answer.value
    const keep = !this.#stale && total === this.rows.length
    const rows = keep ? [...this.rows] : new Array<ResultsRow | undefined>(total)
    if (!keep) this.#pages.forgetRead()
    this.#stale = false
    this.#place(rows, page, answer.value)
    this.rows = rows
    this.total = total
    // Other pages in view belonged to the rows just replaced: read them for the new ones.
    if (!keep) this.want(this.#wanted)
  }

  #place(rows: (ResultsRow | undefined)[], page: number, answer: TableAnswer): void {
    const offset = page * this.#pages.pageSize
    answer.rows.forEach((row, index) => {
      if (offset + index < rows.length) rows[offset + index] = row
      this.#moleculeOf.set(row.subjectId, row.moleculeId)
    })
    this.#pages.markRead(page)
    this.backlog = answer.backlog
    this.#pollWhileIndexing()
  }

  #ask(offset: number, limit: number): Promise<Result<TableAnswer>> {
    return this.#bridge.invoke('results.table', { ...this.tableQuestion(), limit, offset })
  }

  /**
   * The question as `results.table` takes it, paging aside: columns by position, the rest
   * trimmed (what an export of the table asks too).
   */
  tableQuestion(): Omit<TableArgs, 'limit' | 'offset'> {
    const { connectionId, vaultId } = this.options
    const { level, columns, sort, ranges, picked } = this.question
    const keys = columns.map(columnKey)
    const sortColumn =
      sort === null ? -1 : sort.column === 'name' ? 'name' : keys.indexOf(sort.column)
    return {
      connectionId,
      vaultId,
      level,
      columns: columns.map(({ protocolId, definitionId }) => ({ protocolId, definitionId })),
      ...(sort !== null && sortColumn !== -1
        ? { sort: { column: sortColumn, direction: sort.direction } }
        : {}),
      ...(ranges.length > 0
        ? {
            ranges: ranges.flatMap(({ column, min, max }) => {
              const index = keys.indexOf(column)
              if (index === -1) return []
              return [
                {
                  column: index,
                  ...(min !== null ? { min } : {}),
                  ...(max !== null ? { max } : {}),
                },
              ]
            }),
          }
        : {}),
      ...scopeArgs(this.question, this.projectId),
      // A pick this page no longer keeps narrows nothing; the screen says so.
      ...(picked?.ids ? { moleculeIds: [...picked.ids] } : {}),
    }
  }

  #scalesKey(): string {
    const { level, columns } = this.question
    return `${level}|${columns.map(columnKey).join(',')}`
  }

  /**
   * Each numeric column's lowest and highest value over the vault: its first row sorted each way
   * (values come before text and empty cells in both directions).
   */
  async #readScales(): Promise<void> {
    const { connectionId, vaultId } = this.options
    const { level } = this.question
    const scalesFor = this.#scalesKey()
    const columns = this.columns.filter((shown) => shown.numeric || shown.definition === null)
    const ends = async (shown: ShownColumn, direction: 'asc' | 'desc') => {
      const answer = await this.#bridge.invoke('results.table', {
        connectionId,
        vaultId,
        level,
        columns: [shown.column],
        sort: { column: 0, direction },
        limit: 1,
      })
      const cell = answer.ok ? answer.value.rows[0]?.cells[0] : null
      return cell?.kind === 'number' ? cell.number : null
    }
    const found = await Promise.all(
      columns.map(async (shown) => {
        const [min, max] = await Promise.all([ends(shown, 'asc'), ends(shown, 'desc')])
        return min === null || max === null ? [] : [[shown.key, { min, max }] as const]
      }),
    )
    if (scalesFor !== this.#scalesKey()) return
    this.#extremes = Object.fromEntries(found.flat())
  }

  #pollWhileIndexing(): void {
    if (
      this.#polling ||
      this.#stopped ||
      this.backlog === null ||
      backlogLeft(this.backlog) === 0
    ) {
      return
    }
    this.#polling = true
    this.#schedule(() => {
      this.#polling = false
      if (!this.#stopped) void this.readCatalogue()
    }, this.options.backlogPollMs ?? 1000)
  }
}

/** The text search, project and results criteria of a question, trimmed, as the main side takes them. */
export function scopeArgs(question: ResultsQuestion, projectId: number | null): ScopeArgs {
  const text = question.text.trim().slice(0, maxTextLength)
  const criteria = question.criteria.map((criterion) => criterion.trim()).filter(Boolean)
  const within = {
    ...(text ? { text } : {}),
    ...(projectId !== null ? { projectId } : {}),
  }
  return {
    ...(criteria.length > 0 ? { criteria } : {}),
    ...(Object.keys(within).length > 0 ? { within } : {}),
  }
}

/** Readout rows and aggregates the index still has to read. */
export function backlogLeft(backlog: IndexBacklog): number {
  return backlog.rows + backlog.groups
}

/** The question's columns with their protocols and readouts from the catalogue. */
export function shownColumns(
  question: ResultsQuestion,
  catalogue: readonly ProtocolEntry[] | null,
): ShownColumn[] {
  return question.columns.map((column) => {
    const protocol = catalogue?.find((entry) => entry.id === column.protocolId) ?? null
    const definition =
      protocol?.readouts.find((readout) => readout.id === column.definitionId) ?? null
    return {
      key: columnKey(column),
      column,
      protocol,
      definition,
      label: definition?.name ?? `Readout ${column.definitionId}`,
      protocolName: protocol?.name ?? `Protocol ${column.protocolId}`,
      unit: definition?.unit ?? null,
      numeric: definition?.valueType === 'number' || definition?.valueType === 'any',
    }
  })
}
