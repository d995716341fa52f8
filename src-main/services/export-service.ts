/**
 * Exports of any list, offline: the same question a view asks of `records.list` (text, filters,
 * fields, project, results criteria, structure and property searches, sort), read from the cache
 * through the browse service, so that records waiting in the outbox and every criterion are in the
 * file exactly as the view shows them, and written as the pages come: memory holds a page or two,
 * however long the list. Results tables too: the question `results.table` takes, a row per
 * molecule or batch with its structure and each readout's aggregate, modifier, unit and n.
 *
 * A file export is written under a temporary name and renamed once complete (`TargetFile`): a
 * cancelled or failed export leaves nothing. Everything that can be refused (the format for the
 * kind, the question itself, the folder) is refused before a byte is written. SD files get their
 * molfiles from the records (as the vault gave them) or, for structures given as SMILES, from
 * RDKit in the chemistry workers, a page ahead of the writing.
 *
 * `pages` is the reading half alone: `vault-desk find` streams its output through it too. A list
 * is read by key (`BrowseService.read`): each page starts where the last one ended, so that every
 * page costs alike however long the list, and a sync committing meanwhile cannot make a record
 * come twice. A structure search is read from its hits, which the search keeps, a page of records
 * by id at a time. A results table is read by offset (`results.table`'s own paging); the export
 * says so when its count changed meanwhile.
 */
import { randomUUID } from 'node:crypto'
import type { Writable } from 'node:stream'
import { kindLabel, type RecordKindName } from '../../src-common/records/record-kinds.ts'
import type { RecordRow } from '../../src-common/records/record-row.ts'
import { toText, type JsonObject } from '../../src-common/values.ts'
import {
  FieldNames,
  fieldColumns,
  flattenRecord,
  viewColumns,
  viewReadsOnlyColumns,
  type ExportColumns,
  type ExportRecord,
  type ExportValue,
} from '../export/columns.ts'
import { csvWriter } from '../export/csv-writer.ts'
import { resultsColumns, type ResultsExportColumn } from '../export/results-columns.ts'
import {
  checkFormatForKind,
  type ExportColumnChoice,
  type ExportFormat,
} from '../export/formats.ts'
import { jsonLinesWriter } from '../export/jsonl-writer.ts'
import { ExportOutput } from '../export/output.ts'
import type { RecordWriter } from '../export/record-writer.ts'
import { isMolblock, sdfWriter } from '../export/sdf-writer.ts'
import { TargetFile, type OpenStream } from '../export/target-file.ts'
import { isInchiKey } from '../chem/structure-query.ts'
import { xlsxWriter, type XlsxWriter } from '../export/xlsx-writer.ts'
import { AppError, toErrorValue } from '../shared/app-error.ts'
import type { EventBus, ExportProgress } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import { recordKind } from '../store/record-kinds.ts'
import { connectionVaultId } from '../store/vault-cache.ts'
import { DamagedRecordError, unparsedJson, type RowReading } from '../store/record-queries.ts'
import { membersFromEnd, topLevelMembers } from '../export/json-members.ts'
import type { BrowseService } from './browse-service.ts'
import type { StructureListCriterion, StructureListOptions } from './chem-results.ts'
import type { ChemService } from './chem-service.ts'
import type { ResultsService, ResultsTableQuestion } from './results-service.ts'

/** A list as `records.list` asks for it, paging aside. */
export interface ListQuestion {
  kind: string
  text?: string
  filters?: Readonly<Record<string, string | number | null>>
  fields?: Readonly<Record<string, string>>
  projectId?: number
  /** Results criteria (`Kinase IC50 (ADP-Glo): IC50 < 1 uM`), molecules and batches only. */
  results?: readonly string[]
  structure?: StructureListCriterion
  properties?: StructureListOptions['properties']
  sort?: string
  direction?: 'asc' | 'desc'
}

export interface ListPage {
  kind: RecordKindName
  /** Records the whole list holds. */
  total: number
  rows: RecordRow<RecordKindName>[]
  /** Similarity to the query by molecule id (similarity searches). */
  scores?: Record<string, number>
  /** Structure searches: molecules skipped because their structure could not be parsed. */
  skippedUnparseable?: number
}

export interface ExportRequest {
  connectionId: string
  vaultId: number
  question: ListQuestion
  format: ExportFormat
  /** The columns the view shows (`view`), or every field of the records (`all`). */
  columns: ExportColumnChoice
  /** CSV only: start with a UTF-8 byte order mark, which Excel needs to read UTF-8. */
  bom?: boolean
}

export interface ExportSummary {
  kind: RecordKindName
  format: ExportFormat
  records: number
  bytes: number
  /** The file written; null when written to a stream (the CLI's standard output). */
  path: string | null
  /** SD files: molecules written with an empty molfile (no structure, or one RDKit cannot read). */
  withoutStructure: number
  /** Excel: cells whose text was cut at Excel's 32,767 characters. */
  truncatedCells: number
  /** Structure searches: molecules skipped because their structure could not be parsed. */
  skippedUnparseable: number
  /** What the person should know about the file, in words. */
  notes: string[]
}

export interface ExportRunOptions {
  signal?: AbortSignal
  /** After each page: records written so far, of the list's total. */
  onProgress?: (written: number, total: number) => void
}

export interface ExportServiceOptions {
  browse: BrowseService
  results: ResultsService
  chem: ChemService
  events: EventBus
  log: Logger
  /** Opens an export file's stream (tests simulate a full disk here). */
  openStream?: OpenStream
  /** Records read and written at a time (tests put page edges among few records). */
  pageSize?: number
}

export const exportPageSize = 1000
/**
 * Records read at a time for an SD file. Its records are large (a molfile each), and a page is
 * held while the one before is written: pages of 1000 (megabytes) outlived V8's young generation,
 * and their garbage, collected only by full collections, grew the heap by a hundred megabytes.
 */
const sdPageSize = 100
const progressEveryMs = 250

/** A results table to export: the question `results.table` takes, paging aside. */
export interface ResultsExportRequest {
  connectionId: string
  vaultId: number
  question: Omit<ResultsTableQuestion, 'limit' | 'offset'>
  format: ExportFormat
  /** CSV only: start with a UTF-8 byte order mark, which Excel needs to read UTF-8. */
  bom?: boolean
}

/** A page of what an export writes. */
interface ExportPage {
  /** Records (or results rows) the whole export holds, as counted when the page was read. */
  total: number
  records: ExportRecord[]
  skippedUnparseable?: number
}

/** An export checked and its first page read, ready to write. */
interface PreparedExport {
  kind: RecordKindName
  format: ExportFormat
  bom: boolean
  sheetName: string
  /** The columns written; `all`: every field of the records (CSV and Excel: found by a pass). */
  columns: ExportColumns | 'all'
  first: ExportPage
  /** The pages after the first. */
  rest: AsyncIterator<ExportPage>
  /** The pages again from the first: the pass that writes, after the one that found the fields. */
  again: () => AsyncIterator<ExportPage>
  /** Whether a page's total differing from the first's means the source changed meanwhile. */
  pagedByOffset: boolean
  /** What the person should know whatever happens (a readout index still being built). */
  notes: string[]
}

export class ExportService {
  readonly #options: ExportServiceOptions
  readonly #running = new Map<string, AbortController>()
  readonly #pageSize: number

  constructor(options: ExportServiceOptions) {
    this.#options = options
    this.#pageSize = Math.min(Math.max(Math.trunc(options.pageSize ?? exportPageSize), 1), 1000)
  }

  /**
   * The rows of a list, page by page in the view's order, from `offset` and at most `limit` (all
   * when not given); the first page comes even when the list is empty. A structure search is
   * counted whole before its first page.
   */
  async *pages(
    connectionId: string,
    vaultId: number,
    question: ListQuestion,
    range: {
      offset?: number
      limit?: number
      signal?: AbortSignal
      reading?: RowReading
      /** Records a page holds at most (the service's page size by default). */
      pageSize?: number
    } = {},
  ): AsyncGenerator<ListPage> {
    const pageSize = Math.min(this.#pageSize, Math.max(Math.trunc(range.pageSize ?? 1000), 1))
    const kind = recordKind(question.kind).name
    const options = this.#listOptions(connectionId, vaultId, question)
    const structured =
      question.structure !== undefined || Object.keys(question.properties ?? {}).length > 0
    const offset = Math.max(Math.trunc(range.offset ?? 0), 0)
    const limit = Math.max(range.limit ?? Number.POSITIVE_INFINITY, 0)
    if (structured) {
      await this.#indexed(connectionId, vaultId, question)
      yield* this.#structurePages(connectionId, vaultId, kind, options, offset, limit, range.signal)
      return
    }
    const reader = this.#options.browse.read(connectionId, vaultId, kind, {
      ...options,
      offset,
      ...(range.reading ? { reading: range.reading } : {}),
    })
    let left = limit
    let first = true
    try {
      do {
        throwIfCancelled(range.signal)
        const rows = left > 0 ? reader.next(Math.min(pageSize, left)) : []
        if (rows.length === 0 && !first) return
        first = false
        yield { kind, total: reader.total, rows }
        left -= rows.length
        if (rows.length === 0) return
      } while (left > 0)
    } finally {
      reader.close()
    }
  }

  /** Writes a list to a stream (the CLI's standard output), which is left open. */
  async write(
    request: ExportRequest,
    stream: Writable,
    options: ExportRunOptions = {},
  ): Promise<ExportSummary> {
    const run = await this.#prepareList(request, options.signal)
    return this.#run(run, new ExportOutput(stream), null, options)
  }

  /**
   * Writes a list to a file: under a temporary name, renamed once complete; nothing is left when
   * it fails or is cancelled.
   */
  async toFile(
    request: ExportRequest,
    path: string,
    options: ExportRunOptions = {},
  ): Promise<ExportSummary> {
    return this.#toFile(await this.#prepareList(request, options.signal), path, options)
  }

  /**
   * Starts an export to a file for a window: answers once the question is checked and the file
   * opened (what is wrong with either is refused here), then writes in the background with
   * `exports.progress` events, the last of which says how it ended.
   */
  start(request: ExportRequest, path: string): Promise<{ exportId: string; path: string }> {
    return this.#start((signal) => this.#prepareList(request, signal), path)
  }

  /** Writes a results table to a stream (the CLI's standard output), which is left open. */
  async writeResults(
    request: ResultsExportRequest,
    stream: Writable,
    options: ExportRunOptions = {},
  ): Promise<ExportSummary> {
    const run = await this.#prepareResults(request, options.signal)
    return this.#run(run, new ExportOutput(stream), null, options)
  }

  /** Writes a results table to a file, as `toFile` writes a list. */
  async resultsToFile(
    request: ResultsExportRequest,
    path: string,
    options: ExportRunOptions = {},
  ): Promise<ExportSummary> {
    return this.#toFile(await this.#prepareResults(request, options.signal), path, options)
  }

  /** Starts exporting a results table to a file for a window, as `start` does a list. */
  startResults(
    request: ResultsExportRequest,
    path: string,
  ): Promise<{ exportId: string; path: string }> {
    return this.#start((signal) => this.#prepareResults(request, signal), path)
  }

  /** Cancels a running export: its file is removed. False when it is not running (any more). */
  cancel(exportId: string): boolean {
    const abort = this.#running.get(exportId)
    if (!abort) return false
    abort.abort()
    return true
  }

  /** Cancels every running export (the app is closing): none leaves a file behind. */
  async close(): Promise<void> {
    for (const abort of this.#running.values()) abort.abort()
    const deadline = Date.now() + 5000
    while (this.#running.size > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  async #toFile(
    run: PreparedExport,
    path: string,
    options: ExportRunOptions,
  ): Promise<ExportSummary> {
    const target = await released(run, TargetFile.create(path, this.#options.openStream))
    const output = new ExportOutput(target.stream)
    try {
      const summary = await this.#run(run, output, target, options)
      await output.end()
      await closed(target.stream)
      await target.complete()
      return summary
    } catch (error) {
      await target.discard()
      throw error
    }
  }

  async #start(
    prepare: (signal: AbortSignal) => Promise<PreparedExport>,
    path: string,
  ): Promise<{ exportId: string; path: string }> {
    const { events, log } = this.#options
    const exportId = randomUUID()
    const abort = new AbortController()
    const run = await prepare(abort.signal)
    const target = await released(run, TargetFile.create(path, this.#options.openStream))
    const output = new ExportOutput(target.stream)
    let written = 0
    let total = run.first.total
    let lastAt = 0
    const emit = (state: ExportProgress['state'], extra: Partial<ExportProgress> = {}): void =>
      events.emit('exports.progress', {
        exportId,
        state,
        path,
        written,
        total,
        bytes: output.bytes,
        ...extra,
      })
    this.#running.set(exportId, abort)
    emit('running')
    void (async () => {
      try {
        const summary = await this.#run(run, output, target, {
          signal: abort.signal,
          onProgress: (done, of) => {
            written = done
            total = of
            if (Date.now() - lastAt < progressEveryMs) return
            lastAt = Date.now()
            emit('running')
          },
        })
        await output.end()
        await closed(target.stream)
        await target.complete()
        emit('completed', { notes: summary.notes })
      } catch (error) {
        await target.discard()
        const value = toErrorValue(error)
        if (value.code === 'cancelled') emit('cancelled')
        else {
          log.warn('an export failed', { exportId, error })
          emit('failed', { error: value })
        }
      } finally {
        this.#running.delete(exportId)
      }
    })()
    return { exportId, path }
  }

  /** Checks what can be checked of a list's export before writing, and reads the first page. */
  async #prepareList(
    request: ExportRequest,
    signal: AbortSignal | undefined,
  ): Promise<PreparedExport> {
    const kind = recordKind(request.question.kind)
    checkFormatForKind(request.format, kind.name, kindLabel(kind.name))
    this.#checkVault(request.connectionId, request.vaultId)
    // The view's columns read the members the cache keeps beside each record; the records
    // themselves are read only where needed (every field, an SD file's structures).
    const reading: RowReading = {
      listMembers: true,
      deferJson:
        request.columns === 'view' && request.format !== 'sdf' && viewReadsOnlyColumns(kind.name),
    }
    const read = (): AsyncGenerator<ExportPage> =>
      exportPages(
        this.pages(request.connectionId, request.vaultId, request.question, {
          ...(signal ? { signal } : {}),
          reading,
          ...(request.format === 'sdf' ? { pageSize: sdPageSize } : {}),
        }),
      )
    const rest = read()
    const first = await rest.next()
    if (first.done) throw new AppError('internal', 'The list gave no first page.')
    const similarity = request.question.structure?.kind === 'similarity'
    return {
      kind: kind.name,
      format: request.format,
      bom: request.bom === true,
      sheetName: kindLabel(kind.name),
      columns: request.columns === 'all' ? 'all' : viewColumns(kind.name, { similarity }),
      first: first.value,
      rest,
      again: read,
      pagedByOffset: false,
      notes: [],
    }
  }

  /**
   * Checks what can be checked of a results table's export before writing (its vault, its
   * columns, its criteria), and reads the first page.
   */
  async #prepareResults(
    request: ResultsExportRequest,
    signal: AbortSignal | undefined,
  ): Promise<PreparedExport> {
    const { connectionId, vaultId, question } = request
    this.#checkVault(connectionId, vaultId)
    if (question.columns.length === 0) {
      throw new AppError(
        'invalid_argument',
        'A results table to export needs at least one readout column.',
      )
    }
    const { protocols, backlog } = this.#options.results.catalogue(connectionId, vaultId)
    const named = question.columns.map(({ protocolId, definitionId }): ResultsExportColumn => {
      const protocol = protocols.find((entry) => entry.id === protocolId)
      if (!protocol) {
        throw new AppError('not_found', `Vault ${vaultId} has no protocol ${protocolId}.`)
      }
      const readout = protocol.readouts.find((entry) => entry.id === definitionId)
      if (!readout) {
        const known = protocol.readouts.map((entry) => `${entry.id} (${entry.name})`).join(', ')
        throw new AppError(
          'not_found',
          `The protocol ${protocol.name} has no readout ${definitionId}: its readouts are ${known || 'none'}.`,
        )
      }
      return { protocol, readout }
    })
    const read = (): AsyncGenerator<ExportPage> => this.#resultsPages(request, signal)
    const rest = read()
    const first = await rest.next()
    if (first.done) throw new AppError('internal', 'The results table gave no first page.')
    const building = backlog.rows > 0 || backlog.groups > 0
    return {
      kind: question.level === 'molecule' ? 'molecules' : 'batches',
      format: request.format,
      bom: request.bom === true,
      sheetName: question.level === 'molecule' ? 'Results by molecule' : 'Results by batch',
      columns: resultsColumns(question.level, named, { smiles: request.format !== 'sdf' }),
      first: first.value,
      rest,
      again: read,
      pagedByOffset: true,
      notes: building
        ? [
            `The readout index was still being built (${backlog.rows} readout row(s) and ${backlog.groups} aggregate(s) to go): the file holds the results indexed so far. Export again once it is complete.`,
          ]
        : [],
    }
  }

  /** A results table a page at a time, each row with its molecule's record (its structure). */
  async *#resultsPages(
    request: ResultsExportRequest,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<ExportPage> {
    const { connectionId, vaultId, question } = request
    const kind = question.level === 'molecule' ? 'molecules' : 'batches'
    for (let offset = 0; ;) {
      throwIfCancelled(signal)
      const page = this.#options.results.table(connectionId, vaultId, {
        ...question,
        limit: this.#pageSize,
        offset,
      })
      const ids = [...new Set(page.rows.flatMap((row) => row.moleculeId ?? []))]
      const molecules =
        ids.length === 0
          ? []
          : this.#options.browse.list(connectionId, vaultId, 'molecules', {
              ids,
              sort: 'id',
              limit: this.#pageSize,
            }).rows
      const byId = new Map(molecules.map((row) => [row.id, row]))
      yield {
        total: page.total,
        records: page.rows.map((result) => {
          const molecule = result.moleculeId === null ? undefined : byId.get(result.moleculeId)
          const row = { kind, id: result.subjectId, columns: { name: result.name } }
          return { row: { ...row, json: molecule?.json ?? {} }, result }
        }),
      }
      offset += page.rows.length
      if (page.rows.length < this.#pageSize) return
    }
  }

  /** An empty file would look like an empty list: a vault not cached is refused, saying so. */
  #checkVault(connectionId: string, vaultId: number): void {
    // The vault list alone: `browse.vaults` also counts every kind's records (0.3 s at 250k).
    const vaults = this.#options.browse
      .list(connectionId, connectionVaultId, 'vaults', { sort: 'name', limit: 1000 })
      .rows.map((row) => ({ id: row.id, name: row.columns.name }))
    if (vaults.some((vault) => vault.id === vaultId)) return
    const known = vaults.map((vault) => `${vault.id} (${vault.name ?? 'unnamed'})`).join(', ')
    throw new AppError(
      'not_found',
      `Vault ${vaultId} is not in the cache of this connection${known ? `: its vaults are ${known}` : ': sync it first'}.`,
    )
  }

  async #run(
    run: PreparedExport,
    output: ExportOutput,
    target: TargetFile | null,
    options: ExportRunOptions,
  ): Promise<ExportSummary> {
    try {
      return await this.#written(run, output, target, options)
    } catch (error) {
      // Whatever a cancel interrupted (a page of structures in the workers) says so plainly.
      throwIfCancelled(options.signal)
      throw error
    }
  }

  async #written(
    run: PreparedExport,
    output: ExportOutput,
    target: TargetFile | null,
    options: ExportRunOptions,
  ): Promise<ExportSummary> {
    const { signal } = options
    let pages: AsyncIterator<ExportPage> = prepend(run.first, run.rest)
    try {
      let columns = run.columns === 'all' ? null : run.columns
      if (run.columns === 'all' && (run.format === 'csv' || run.format === 'xlsx')) {
        // CSV and Excel name every column in their first row: a first pass finds the names.
        const names = new FieldNames()
        for (let page = await pages.next(); page.done !== true; page = await pages.next()) {
          throwIfCancelled(signal)
          for (const record of page.value.records) names.add(record.row.json)
        }
        columns = fieldColumns(names.names)
        pages = run.again()
      }
      const writer = this.#writer(run, output, columns)
      const summary: ExportSummary = {
        kind: run.kind,
        format: run.format,
        records: 0,
        bytes: 0,
        path: target?.path ?? null,
        withoutStructure: 0,
        truncatedCells: 0,
        skippedUnparseable: run.first.skippedUnparseable ?? 0,
        notes: [],
      }
      const total = run.first.total
      let changed = false
      const damaged: string[] = []
      const prepareNext = async (): Promise<ExportRecord[] | null> => {
        const next = await pages.next()
        if (next.done === true) return null
        changed ||= run.pagedByOffset && next.value.total !== total
        if (run.format === 'sdf') {
          summary.withoutStructure += await this.#attachMolblocks(
            next.value.records,
            signal,
            damaged,
          )
        }
        return next.value.records
      }
      // The next page is read and its structures converted while this one is written.
      let coming = prepareNext()
      for (;;) {
        const records = await coming
        if (records === null) break
        throwIfCancelled(signal)
        coming = prepareNext()
        coming.catch(() => {})
        await writer.write(records)
        summary.records += records.length
        options.onProgress?.(summary.records, Math.max(total, summary.records))
      }
      throwIfCancelled(signal)
      await writer.finish()
      summary.bytes = output.bytes
      summary.truncatedCells = (writer as Partial<XlsxWriter>).truncatedCells ?? 0
      summary.notes = [...run.notes, ...notesOf(summary), ...damagedNotes(damaged)]
      if (changed || summary.records !== total) {
        summary.notes.push(
          `The list changed while it was exported (a sync or a queued change came in): ${summary.records} written of the ${total} it held when the export began. Export it again for a consistent copy.`,
        )
      }
      return summary
    } finally {
      // However it ends, the list's reading ends with it (a connection of its own).
      await pages.return?.()
    }
  }

  #writer(run: PreparedExport, output: ExportOutput, columns: ExportColumns | null): RecordWriter {
    const fixed = (): ExportColumns => {
      if (columns === null) throw new AppError('internal', `${run.format} needs its columns.`)
      return columns
    }
    switch (run.format) {
      case 'csv':
        return csvWriter(output, fixed(), { bom: run.bom })
      case 'xlsx':
        return xlsxWriter(output, fixed(), { sheetName: run.sheetName })
      case 'jsonl':
        return jsonLinesWriter(output, (record) =>
          columns === null
            ? record.row.json
            : Object.fromEntries(zip(columns.headers, columns.values(record))),
        )
      case 'sdf':
        return sdfWriter(output, columns ?? ((record) => sdFields(record.row.json)))
    }
  }

  /**
   * Gives each molecule its molfile: the vault's own, or one RDKit writes from its SMILES in the
   * chemistry workers. Answers how many have none; those whose cached record is damaged are
   * named in `damaged` (their list values are still written).
   */
  async #attachMolblocks(
    records: ExportRecord[],
    signal: AbortSignal | undefined,
    damaged: string[],
  ): Promise<number> {
    const toConvert: { record: ExportRecord; text: string }[] = []
    let without = 0
    for (const record of records) {
      const structure = structureOf(record.row, damaged)
      if (structure === null) without++
      else if (isMolblock(structure)) record.molblock = structure
      else toConvert.push({ record, text: structure })
    }
    if (toConvert.length === 0) return without
    const molblocks = await this.#options.chem.molblocks(
      toConvert.map((item) => item.text),
      signal,
    )
    toConvert.forEach((item, index) => {
      const answer = molblocks[index]
      if (answer && 'molblock' in answer) item.record.molblock = answer.molblock
      else without++
    })
    return without
  }

  #listOptions(
    connectionId: string,
    vaultId: number,
    question: ListQuestion,
  ): StructureListOptions {
    const { kind, results, ...rest } = question
    const options: StructureListOptions = { ...rest }
    if (results !== undefined && results.length > 0) {
      const name = recordKind(kind).name
      if (name !== 'molecules' && name !== 'batches') {
        throw new AppError(
          'invalid_argument',
          `Searches by results find molecules and batches, not ${name}.`,
        )
      }
      options.ids = this.#options.results.matching(
        connectionId,
        vaultId,
        results,
        name === 'molecules' ? 'molecule' : 'batch',
      )
    }
    return options
  }

  /** A structure search sees every cached molecule only once the index holds them all. */
  async #indexed(connectionId: string, vaultId: number, question: ListQuestion): Promise<void> {
    const details =
      Object.keys(question.properties ?? {}).length > 0 ||
      (question.structure?.kind === 'exact' && isInchiKey(question.structure.query))
    await this.#options.chem.buildIndex(connectionId, vaultId, undefined, { details })
  }

  /**
   * The pages of a structure search. The search runs once and keeps its hits (asking again joins
   * it), so that a page in the hits' own order is a slice of them, its records read by id.
   */
  async *#structurePages(
    connectionId: string,
    vaultId: number,
    kind: RecordKindName,
    options: StructureListOptions,
    start: number,
    limit: number,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<ListPage> {
    let offset = start
    let left = limit
    for (let first = true; first || left > 0; first = false) {
      throwIfCancelled(signal)
      const size = Math.min(this.#pageSize, left)
      const page = await this.#structurePage(connectionId, vaultId, kind, {
        ...options,
        offset,
        limit: size,
      })
      if (first || page.rows.length > 0) yield { ...page, kind }
      // By the hits' places: a hit whose molecule was deleted meanwhile moves no page's edge.
      offset += size
      left -= size
      if (offset >= page.total) return
    }
  }

  /** A page of a structure search, once the search has counted every hit. */
  async #structurePage(
    connectionId: string,
    vaultId: number,
    kind: string,
    options: StructureListOptions,
  ): Promise<ListPage> {
    const browse = this.#options.browse
    let page = await browse.listStructure(connectionId, vaultId, kind, options)
    // A substructure search answers its first page early; asking again waits for the count.
    while (!page.structure.complete) {
      page = await browse.listStructure(connectionId, vaultId, kind, options)
    }
    return {
      kind: page.kind,
      total: page.total,
      rows: page.rows,
      ...(page.structure.scores ? { scores: page.structure.scores } : {}),
      skippedUnparseable: page.structure.skippedUnparseable,
    }
  }
}

/** A list's pages as an export writes them: each row, with its similarity in such a search. */
async function* exportPages(pages: AsyncIterable<ListPage>): AsyncGenerator<ExportPage> {
  for await (const page of pages) {
    yield {
      total: page.total,
      records: page.rows.map((row) => {
        const score = row.id === null ? undefined : page.scores?.[String(row.id)]
        return score === undefined ? { row } : { row, similarity: score }
      }),
      ...(page.skippedUnparseable !== undefined
        ? { skippedUnparseable: page.skippedUnparseable }
        : {}),
    }
  }
}

const smilesMembers = ['cxsmiles', 'smiles', 'structure'] as const

/**
 * The structure a molecule's record holds: a molfile, else its CXSMILES or SMILES. Read from the
 * record's text where the row has it unparsed (json-members.ts), the molfile alone first: most
 * records that have one hold it last, and the SMILES before the batches would be found by a walk
 * of them all.
 */
function structureOf(row: RecordRow, damaged: string[]): string | null {
  try {
    return structureIn(row)
  } catch (error) {
    if (!(error instanceof DamagedRecordError)) throw error
    damaged.push(error.record)
    return null
  }
}

/**
 * The structure of `structureOf`, read from the members the text shows where the rest of it is
 * damaged (the molfile, last, often is whole); else the record, parsed.
 */
function structureIn(row: RecordRow): string | null {
  const text = unparsedJson(row)
  const read = (names: readonly string[]): ((name: string) => unknown) => {
    const members =
      text === null ? null : (membersFromEnd(text, names) ?? topLevelMembers(text, names))
    return (name) => (members ? members.get(name) : row.json[name])
  }
  const molfile = toText(read(['molfile'])('molfile'))
  if (molfile !== null && isMolblock(molfile)) return molfile
  const member = read(smilesMembers)
  for (const name of smilesMembers) {
    const structure = toText(member(name))
    if (structure !== null && structure.trim() !== '') return structure
  }
  return null
}

/** Every field of a record as SD data items, but the molfile (the record's structure itself). */
function sdFields(json: JsonObject): Iterable<readonly [string, ExportValue]> {
  const fields = flattenRecord(json)
  fields.delete('molfile')
  return fields
}

function zip<T>(names: readonly string[], values: readonly T[]): [string, T][] {
  return names.map((name, index) => [name, values[index]!])
}

async function* prepend<T>(first: T, rest: AsyncIterator<T>): AsyncGenerator<T> {
  try {
    yield first
    for (;;) {
      const next = await rest.next()
      if (next.done) return
      yield next.value
    }
  } finally {
    await rest.return?.()
  }
}

/**
 * Ends an export's reading wherever it stopped (a list's reading holds a connection of its own):
 * once written, failed or cancelled, or when its file could not be opened.
 */
async function release(run: PreparedExport): Promise<void> {
  await run.rest.return?.()
}

/** What `opening` gives, the export's reading ended if it fails. */
async function released<T>(run: PreparedExport, opening: Promise<T>): Promise<T> {
  try {
    return await opening
  } catch (error) {
    await release(run)
    throw error
  }
}

function notesOf(summary: ExportSummary): string[] {
  const notes: string[] = []
  if (summary.withoutStructure > 0) {
    notes.push(
      `${summary.withoutStructure} molecule(s) have no structure that could be read: they are in the file with an empty molfile.`,
    )
  }
  if (summary.truncatedCells > 0) {
    notes.push(
      `${summary.truncatedCells} cell(s) held more than Excel's 32,767 characters and were cut there.`,
    )
  }
  if (summary.skippedUnparseable > 0) {
    notes.push(
      `${summary.skippedUnparseable} molecule(s) could not be searched (unparseable structure) and are not in the file.`,
    )
  }
  return notes
}

/** Damaged records named, a few: the person finds the rest by the count. */
function damagedNotes(damaged: readonly string[]): string[] {
  if (damaged.length === 0) return []
  const named = damaged.slice(0, 5).join(', ')
  const more = damaged.length > 5 ? ` and ${damaged.length - 5} more` : ''
  return [
    `${damaged.length} molecule(s) are damaged in the cache (their stored record is not JSON): they are in the file with the list's values and an empty molfile: ${named}${more}.`,
  ]
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AppError('cancelled', 'The export was cancelled.')
}

/** Waits until a stream has closed (a file's descriptor flushed and closed). */
function closed(stream: Writable): Promise<void> {
  if (stream.closed) return Promise.resolve()
  return new Promise((resolve) => stream.once('close', () => resolve()))
}
