import type { RowRange, SortState } from '../../components/table/table-model.ts'
import type {
  CachedRecord,
  PropertyRangesArgs,
  RequestArgs,
  StructureCriterionArgs,
  StructureSearchInfo,
  VaultDeskBridge,
} from '../bridge.ts'
import { noScores, withScores } from '../chem/similarity-scores.ts'
import { coalesced } from './coalesced.ts'
import { PageBook } from './page-book.ts'

type ListArgs = RequestArgs<'records.list'>
export type RecordKindName = ListArgs['kind']
export type FilterValue = string | number | null

/** How a kind's records are narrowed to a project: by their project list, a column, or not at all. */
export type ProjectFilter = 'projects' | 'project_id' | null

export interface RecordListOptions {
  connectionId: string
  vaultId: number
  kind: RecordKindName
  projectFilter: ProjectFilter
  /** Filters that are part of the list itself (a run's readout rows), not the person's choice. */
  fixedFilters?: Readonly<Record<string, FilterValue>>
  /**
   * Criteria that are part of the list itself (a saved search run offline): vault-defined field
   * values, results criteria, and a project that replaces the person's project choice.
   */
  fixedCriteria?: Readonly<{
    fields?: Record<string, string>
    results?: string[]
    projectId?: number
  }>
  /** The structure criterion the list starts with (a saved search's); the person may change it. */
  initialStructure?: StructureCriterionArgs
  sort?: SortState | null
  pageSize?: number
  /** How long to wait before asking again while a structure search is still counting (ms). */
  recountDelay?: number
}

/**
 * One list of cached records, read a page at a time as the table scrolls: search as you type,
 * sorting and filtering happen in the cache, so a list of 100,000 molecules costs a page. Rows not
 * read yet are `undefined` (placeholders). When the query changes, the rows shown stay until the
 * new first page arrives, so typing never flashes an empty table; answers to older queries are
 * dropped.
 */
export class RecordList {
  readonly options: RecordListOptions
  text = $state('')
  sort = $state<SortState | null>(null)
  filters = $state<Record<string, FilterValue>>({})
  projectId = $state<number | null>(null)
  /** A structure criterion (molecules only): substructure, exact or similarity. */
  structure = $state.raw<StructureCriterionArgs | null>(null)
  /** Property ranges (molecules only). */
  properties = $state.raw<PropertyRangesArgs | null>(null)
  /** How the structure or property search went, from the latest answer; null without one. */
  search = $state.raw<StructureSearchInfo | null>(null)
  /** Similarity of the rows read so far, by molecule id (similarity searches only). */
  scores = $state.raw<ReadonlyMap<number, number>>(noScores)
  /** Matching records; null until the first answer. */
  total = $state<number | null>(null)
  rows = $state.raw<(CachedRecord | undefined)[]>([])
  error = $state<string | null>(null)
  /** Changes whenever the question changes (not on refreshes), so the table can go to the top. */
  queryVersion = $state(0)
  readonly #bridge: VaultDeskBridge
  readonly #reportError: (message: string) => void
  readonly #pages: PageBook
  /** True from a query change until its first page arrives: the rows shown answer the old one. */
  #stale = false
  #wanted: RowRange = { start: 0, end: 1 }
  readonly #refresh = coalesced(() => this.#reread())
  /** The question a recount is scheduled for, if any. */
  #recountFor: number | null = null

  constructor(
    bridge: VaultDeskBridge,
    reportError: (message: string) => void,
    options: RecordListOptions,
  ) {
    this.#bridge = bridge
    this.#reportError = reportError
    this.options = options
    this.#pages = new PageBook(options.pageSize ?? 100)
    this.sort = options.sort ?? null
    this.structure = options.initialStructure ?? null
  }

  setText(text: string): void {
    if (text === this.text) return
    this.text = text
    this.#restart()
  }

  setSort(sort: SortState | null): void {
    this.sort = sort
    this.#restart()
  }

  /** Clears the filters on `columns`, then sets `values`: one filter choice, one new query. */
  setFilters(columns: readonly string[], values: Readonly<Record<string, FilterValue>>): void {
    const next = { ...this.filters }
    for (const column of columns) delete next[column]
    this.filters = { ...next, ...values }
    this.#restart()
  }

  /**
   * Narrows the list by structure and by property ranges (either may be null); asking the same
   * question again changes nothing.
   */
  setStructure(
    structure: StructureCriterionArgs | null,
    properties: PropertyRangesArgs | null = null,
  ): void {
    const ranges = properties && Object.keys(properties).length > 0 ? properties : null
    if (
      JSON.stringify(structure) === JSON.stringify(this.structure) &&
      JSON.stringify(ranges) === JSON.stringify(this.properties)
    ) {
      return
    }
    this.structure = structure
    this.properties = ranges
    this.#restart()
  }

  setProject(projectId: number | null): void {
    if (projectId === this.projectId || this.options.projectFilter === null) return
    // A saved search belongs to its project, whichever the person has chosen.
    if (this.options.fixedCriteria?.projectId !== undefined) return
    this.projectId = projectId
    this.#restart()
  }

  /** Reads the pages a range of rows needs, unless they are read or being read. */
  want(range: RowRange): void {
    this.#wanted = range
    for (const page of this.#pages.pagesOf(range)) {
      if (this.#pages.needs(page)) void this.#read(page)
    }
  }

  /** Reads the rows in view again (the cache changed under them); coalesced. */
  refresh(): Promise<void> {
    return this.#refresh()
  }

  #restart(): void {
    this.queryVersion++
    this.#pages.clear()
    this.#stale = true
    this.error = null
    if (this.structure === null && this.properties === null) this.search = null
    this.want({ start: 0, end: Math.max(1, this.#wanted.end - this.#wanted.start) })
  }

  async #reread(): Promise<void> {
    const pages = this.#pages.pagesOf(this.#wanted)
    const version = this.queryVersion
    const answers = await Promise.all(pages.map((page) => this.#ask(page)))
    if (version !== this.queryVersion) return
    let rows: (CachedRecord | undefined)[] | null = null
    let search: StructureSearchInfo | null = null
    // Scores are by molecule, so those of rows still shown stay; the pages read bring the rest.
    let scores = this.scores
    // Everything outside the view is forgotten: it is read again, fresh, when scrolled to.
    this.#pages.forgetRead()
    for (const [index, answer] of answers.entries()) {
      if (!answer.ok) continue
      rows ??= new Array<CachedRecord | undefined>(answer.value.total)
      this.#place(rows, pages[index]!, answer.value.rows)
      search = answer.value.structure ?? null
      scores = withScores(scores, search)
    }
    if (rows === null) return
    this.rows = rows
    this.total = rows.length
    this.#noteSearch(search, scores, version)
  }

  async #read(page: number): Promise<void> {
    const version = this.queryVersion
    this.#pages.startReading(page)
    const answer = await this.#ask(page)
    if (version !== this.queryVersion) return
    this.#pages.finishReading(page, answer.ok)
    if (!answer.ok) {
      if (this.error === null) this.#reportError(`Could not read the list: ${answer.error.message}`)
      this.error = answer.error.message
      return
    }
    const { total, rows: read, structure } = answer.value
    const keep = !this.#stale && total === this.rows.length
    const rows = keep ? [...this.rows] : new Array<CachedRecord | undefined>(total)
    if (!keep) this.#pages.forgetRead()
    this.#stale = false
    this.#place(rows, page, read)
    this.rows = rows
    this.total = total
    this.#noteSearch(
      structure ?? null,
      withScores(keep ? this.scores : noScores, structure),
      version,
    )
    // Other pages in view belonged to the rows just replaced: read them for the new ones.
    if (!keep) this.want(this.#wanted)
  }

  /** Keeps how the search went, and asks again while it is still counting. */
  #noteSearch(
    search: StructureSearchInfo | null,
    scores: ReadonlyMap<number, number>,
    version: number,
  ): void {
    this.search = search
    this.scores = scores
    if (search === null || search.complete || this.#recountFor === version) return
    this.#recountFor = version
    setTimeout(() => {
      if (this.#recountFor === version) this.#recountFor = null
      if (version === this.queryVersion) void this.refresh()
    }, this.options.recountDelay ?? 250)
  }

  #place(rows: (CachedRecord | undefined)[], page: number, records: readonly CachedRecord[]) {
    const offset = page * this.#pages.pageSize
    records.forEach((record, index) => {
      if (offset + index < rows.length) rows[offset + index] = record
    })
    this.#pages.markRead(page)
  }

  #ask(page: number) {
    const args: ListArgs = {
      ...this.listQuestion(),
      limit: this.#pages.pageSize,
      offset: page * this.#pages.pageSize,
    }
    return this.#bridge.invoke('records.list', args)
  }

  /**
   * The list's question as `records.list` takes it, paging aside: searched, filtered, narrowed to
   * the project, by structure, sorted (what an export of the list asks too).
   */
  listQuestion(): Omit<ListArgs, 'limit' | 'offset'> {
    const { connectionId, vaultId, kind, projectFilter, fixedFilters, fixedCriteria } = this.options
    const filters = { ...this.filters, ...fixedFilters }
    if (projectFilter === 'project_id' && this.projectId !== null) {
      filters.project_id = this.projectId
    }
    const text = this.text.trim()
    const projectId = fixedCriteria?.projectId ?? this.projectId
    return {
      connectionId,
      vaultId,
      kind,
      ...(text ? { text } : {}),
      ...(Object.keys(filters).length > 0 ? { filters } : {}),
      ...(fixedCriteria?.fields ? { fields: fixedCriteria.fields } : {}),
      ...(fixedCriteria?.results ? { results: fixedCriteria.results } : {}),
      ...(projectFilter === 'projects' && projectId !== null ? { projectId } : {}),
      ...(this.structure ? { structure: this.structure } : {}),
      ...(this.properties ? { properties: this.properties } : {}),
      ...(this.sort
        ? {
            sort: this.sort.columnId,
            direction: this.sort.direction === 'ascending' ? ('asc' as const) : ('desc' as const),
          }
        : {}),
    }
  }
}
