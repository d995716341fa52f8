/**
 * Exports of any list, offline: the same question a view asks of `records.list` (text, filters,
 * fields, project, results criteria, structure and property searches, sort), read from the cache
 * in pages of 1000 through the browse service, so that records waiting in the outbox and every
 * criterion are in the file exactly as the view shows them, and written as the pages come:
 * memory holds a page or two, however long the list.
 *
 * A file export is written under a temporary name and renamed once complete (`TargetFile`): a
 * cancelled or failed export leaves nothing. Everything that can be refused (the format for the
 * kind, the question itself, the folder) is refused before a byte is written. SD files get their
 * molfiles from the records (as the vault gave them) or, for structures given as SMILES, from
 * RDKit in the chemistry workers, a page ahead of the writing.
 *
 * `pages` is the reading half alone: `vault-desk find` streams its output through it too. Pages
 * are read by offset, each its own query, so a sync committing while a long export runs can move
 * a record across a page's edge; the export says so when the list's count changed meanwhile.
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
  type ExportColumns,
  type ExportRecord,
  type ExportValue,
} from '../export/columns.ts'
import { csvWriter } from '../export/csv-writer.ts'
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
import type { BrowseService } from './browse-service.ts'
import type { StructureListCriterion, StructureListOptions } from './chem-results.ts'
import type { ChemService } from './chem-service.ts'
import type { ResultsService } from './results-service.ts'

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
}

export const exportPageSize = 1000
const progressEveryMs = 250

export class ExportService {
  readonly #options: ExportServiceOptions
  readonly #running = new Map<string, AbortController>()

  constructor(options: ExportServiceOptions) {
    this.#options = options
  }

  /**
   * The rows of a list, page by page in the view's order, from `offset` and at most `limit` (all
   * when not given); a structure search is counted whole before its first page.
   */
  async *pages(
    connectionId: string,
    vaultId: number,
    question: ListQuestion,
    range: { offset?: number; limit?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<ListPage> {
    const kind = recordKind(question.kind).name
    const options = this.#listOptions(connectionId, vaultId, question)
    const structured =
      question.structure !== undefined || Object.keys(question.properties ?? {}).length > 0
    if (structured) await this.#indexed(connectionId, vaultId, question)
    const start = Math.max(Math.trunc(range.offset ?? 0), 0)
    let offset = start
    let left = range.limit ?? Number.POSITIVE_INFINITY
    while (left > 0) {
      throwIfCancelled(range.signal)
      const limit = Math.min(exportPageSize, left)
      const page = structured
        ? await this.#structurePage(connectionId, vaultId, kind, { ...options, offset, limit })
        : this.#options.browse.list(connectionId, vaultId, kind, { ...options, offset, limit })
      if (page.rows.length === 0) {
        if (offset === start) yield { ...page, kind }
        return
      }
      yield { ...page, kind }
      offset += page.rows.length
      left -= page.rows.length
      if (page.rows.length < limit || offset >= page.total) return
    }
  }

  /** Writes a list to a stream (the CLI's standard output), which is left open. */
  async write(
    request: ExportRequest,
    stream: Writable,
    options: ExportRunOptions = {},
  ): Promise<ExportSummary> {
    const run = await this.#prepare(request, options.signal)
    const output = new ExportOutput(stream)
    return this.#run(run, output, null, options)
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
    const run = await this.#prepare(request, options.signal)
    const target = await TargetFile.create(path, this.#options.openStream)
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

  /**
   * Starts an export to a file for a window: answers once the question is checked and the file
   * opened (what is wrong with either is refused here), then writes in the background with
   * `exports.progress` events, the last of which says how it ended.
   */
  async start(request: ExportRequest, path: string): Promise<{ exportId: string; path: string }> {
    const { events, log } = this.#options
    const exportId = randomUUID()
    const abort = new AbortController()
    const run = await this.#prepare(request, abort.signal)
    const target = await TargetFile.create(path, this.#options.openStream)
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

  /** Checks what can be checked before writing, and reads the first page. */
  async #prepare(request: ExportRequest, signal: AbortSignal | undefined): Promise<PreparedExport> {
    const kind = recordKind(request.question.kind)
    checkFormatForKind(request.format, kind.name, kindLabel(kind.name))
    const vaults = this.#options.browse.vaults(request.connectionId)
    if (!vaults.some((vault) => vault.id === request.vaultId)) {
      // An empty file would look like an empty list: say what is wrong instead.
      const known = vaults.map((vault) => `${vault.id} (${vault.name ?? 'unnamed'})`).join(', ')
      throw new AppError(
        'not_found',
        `Vault ${request.vaultId} is not in the cache of this connection${known ? `: its vaults are ${known}` : ': sync it first'}.`,
      )
    }
    const pages = this.pages(request.connectionId, request.vaultId, request.question, {
      ...(signal ? { signal } : {}),
    })
    const first = await pages.next()
    if (first.done) throw new AppError('internal', 'The list gave no first page.')
    return { request, kind: kind.name, pages, first: first.value }
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
    const { request } = run
    const { signal } = options
    const similarity = request.question.structure?.kind === 'similarity'
    let pages: AsyncIterable<ListPage> = prepend(run.first, run.pages)
    let columns: ExportColumns | null = null
    if (request.columns === 'all' && (request.format === 'csv' || request.format === 'xlsx')) {
      // CSV and Excel name every column in their first row: a first pass finds the names.
      const names = new FieldNames()
      for await (const page of pages) {
        throwIfCancelled(signal)
        for (const row of page.rows) names.add(row.json)
      }
      columns = fieldColumns(names.names)
      pages = this.pages(request.connectionId, request.vaultId, request.question, {
        ...(signal ? { signal } : {}),
      })
    }
    columns ??= viewColumns(run.kind, { similarity })
    const writer = this.#writer(request, output, columns, run.kind)
    const summary: ExportSummary = {
      kind: run.kind,
      format: request.format,
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
    const prepare = async (page: ListPage): Promise<ExportRecord[]> => {
      changed ||= page.total !== total
      const records = page.rows.map((row) => {
        const score = row.id === null ? undefined : page.scores?.[String(row.id)]
        return score === undefined ? { row } : { row, similarity: score }
      })
      if (request.format === 'sdf') {
        summary.withoutStructure += await this.#attachMolblocks(records, signal)
      }
      return records
    }
    const iterator = pages[Symbol.asyncIterator]()
    const prepareNext = async (): Promise<ExportRecord[] | null> => {
      const next = await iterator.next()
      return next.done ? null : prepare(next.value)
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
    summary.notes = notesOf(summary)
    if (changed) {
      summary.notes.push(
        'The list changed while it was exported (a sync or a queued change came in): export it again for a consistent copy.',
      )
    }
    return summary
  }

  #writer(
    request: ExportRequest,
    output: ExportOutput,
    columns: ExportColumns,
    kind: RecordKindName,
  ): RecordWriter {
    const all = request.columns === 'all'
    switch (request.format) {
      case 'csv':
        return csvWriter(output, columns, { bom: request.bom === true })
      case 'xlsx':
        return xlsxWriter(output, columns, { sheetName: kindLabel(kind) })
      case 'jsonl':
        return jsonLinesWriter(output, (record) =>
          all ? record.row.json : Object.fromEntries(zip(columns.headers, columns.values(record))),
        )
      case 'sdf':
        return sdfWriter(output, (record) =>
          all ? sdFields(record.row.json) : zip(columns.headers, columns.values(record)),
        )
    }
  }

  /**
   * Gives each molecule its molfile: the vault's own, or one RDKit writes from its SMILES in the
   * chemistry workers. Answers how many have none.
   */
  async #attachMolblocks(
    records: ExportRecord[],
    signal: AbortSignal | undefined,
  ): Promise<number> {
    const toConvert: { record: ExportRecord; text: string }[] = []
    let without = 0
    for (const record of records) {
      const structure = structureOf(record.row.json)
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

interface PreparedExport {
  request: ExportRequest
  kind: RecordKindName
  pages: AsyncGenerator<ListPage>
  first: ListPage
}

/** The structure a molecule's record holds: a molfile, else its CXSMILES or SMILES. */
function structureOf(json: JsonObject): string | null {
  const molfile = toText(json.molfile)
  if (molfile !== null && isMolblock(molfile)) return molfile
  for (const member of ['cxsmiles', 'smiles', 'structure']) {
    const text = toText(json[member])
    if (text !== null && text.trim() !== '') return text
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
  yield first
  for (;;) {
    const next = await rest.next()
    if (next.done) return
    yield next.value
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

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AppError('cancelled', 'The export was cancelled.')
}

/** Waits until a stream has closed (a file's descriptor flushed and closed). */
function closed(stream: Writable): Promise<void> {
  if (stream.closed) return Promise.resolve()
  return new Promise((resolve) => stream.once('close', () => resolve()))
}
