/**
 * The local pre-validation of an import file (src-common/intake/import-check.ts says what it
 * reports): the file is read as a stream by the reader of its format, each record is checked
 * against the mapping template and the protocol's readout definitions, its structures are parsed
 * by RDKit in the chemistry workers, a batch of records at a time (those the cache holds as a
 * readable molecule structure need none), and its molecule and batch references are looked up in
 * the cache at the end, each column's distinct values in one query (store/reference-lookup.ts). A
 * file that cannot be read is a report with a `file` problem; only an abort rejects.
 */
import path from 'node:path'
import {
  importProblemKinds,
  type ImportCheckReport,
  type ImportFileFormat,
  type ImportProblem,
  type ImportProblemKind,
} from '../../src-common/intake/import-check.ts'
import { readReadoutCell } from '../../src-common/analysis/readouts/readout-value.ts'
import { toId, toText, type JsonObject } from '../../src-common/values.ts'
import { ReferenceLookup, type ReferenceField } from '../store/reference-lookup.ts'
import type { ImportChecker, ImportCheckInput } from './import-checker.ts'
import { readCsv } from './import-csv-reader.ts'
import {
  ImportFileError,
  looksBinary,
  looksLikeZip,
  scanImportFile,
  type ScannedFile,
} from './import-file-source.ts'
import { readSdf } from './import-sdf-reader.ts'
import type { ImportTable } from './import-table.ts'
import {
  mappedColumns,
  readoutRules,
  type MappedColumn,
  type ReadoutRule,
} from './import-template.ts'
import { readXlsx } from './import-xlsx-reader.ts'

/** Why each structure of a list does not parse, null for those that do (RDKit's words). */
export type StructureProblems = (
  structures: readonly string[],
  signal?: AbortSignal,
) => Promise<(string | null)[]>

export interface LocalImportCheckerOptions {
  /** The cache file of a connection (throws for an unknown connection). */
  cacheFileOf: (connectionId: string) => string
  structureProblems: StructureProblems
  /**
   * A mapping template with its header mappings, read from the vault when the cache has only its
   * summary (sync lists templates without them); null when the vault cannot say (offline).
   */
  fetchMappingTemplate?: (
    connectionId: string,
    vaultId: number,
    templateId: number,
    signal?: AbortSignal,
  ) => Promise<JsonObject | null>
  /** How many problems a report lists (all are counted); 500 by default. */
  problemLimit?: number
}

const formatsByExtension: Record<string, ImportFileFormat> = {
  '.csv': 'csv',
  '.tsv': 'csv',
  '.txt': 'csv',
  '.sdf': 'sdf',
  '.sd': 'sdf',
  '.xlsx': 'xlsx',
}

/** Headers the vault reads structures from when the template maps none. */
const implicitStructureHeaders = ['smiles', 'structure', 'molfile']
/** The column the vault reads as the number of the run a row belongs to. */
const runHeader = 'run'
/** Structures sent to the workers at once: enough to keep both busy, few enough to stream. */
const structureBatch = 200
const maximumBatchesInFlight = 2
/** Parsed structure texts remembered, so that a repeated one is parsed once. */
const rememberedStructures = 20_000
const shownValueLength = 80
/** Values that are several synonyms at once, as the vault reads them. */
const synonymSeparators = /[;|]/

const fieldWords: Record<ReferenceField, string> = {
  'molecule-name': 'molecule named',
  'molecule-synonym': 'molecule with the synonym',
  'batch-name': 'batch named',
}

export class LocalImportChecker implements ImportChecker {
  readonly #options: LocalImportCheckerOptions
  /** Templates read from the vault, by connection, vault, id and modification time. */
  readonly #fetchedTemplates = new Map<string, JsonObject>()

  constructor(options: LocalImportCheckerOptions) {
    this.#options = options
  }

  async check(input: ImportCheckInput, signal?: AbortSignal): Promise<ImportCheckReport> {
    const problems = new ProblemList(this.#options.problemLimit ?? 500)
    const report: ImportCheckReport = {
      fileName: path.basename(input.filePath),
      format: formatsByExtension[path.extname(input.filePath).toLowerCase()] ?? null,
      sha256: null,
      encoding: null,
      delimiter: null,
      rows: 0,
      columns: [],
      problems: [],
      counts: {},
      errors: 0,
      warnings: 0,
    }
    try {
      await this.#check(input, report, problems, signal)
    } catch (error) {
      if (!(error instanceof ImportFileError)) throw error
      problems.add({
        kind: 'file',
        severity: 'error',
        row: null,
        column: null,
        value: null,
        message: error.message,
      })
    }
    return problems.into(report)
  }

  async #check(
    input: ImportCheckInput,
    report: ImportCheckReport,
    problems: ProblemList,
    signal?: AbortSignal,
  ): Promise<void> {
    if (report.format === null) {
      throw new ImportFileError(
        `Vault Desk checks CSV, SD files and xlsx spreadsheets; "${path.extname(input.filePath) || 'no extension'}" is none of them.`,
      )
    }
    const scanned = await scanImportFile(input.filePath, signal)
    report.sha256 = scanned.sha256
    const table = await this.#openTable(input.filePath, report.format, scanned, signal)
    report.encoding = table.encoding
    report.delimiter = table.delimiter
    report.columns = [...table.columns]

    const lookup = ReferenceLookup.open(this.#options.cacheFileOf(input.connectionId))
    try {
      const template = await this.#template(input, lookup, signal)
      const plan = planColumns(input, report.format, table.columns, template, lookup, problems)
      const references = new ReferenceRows()
      const structures = new StructureQueue(
        this.#options.structureProblems,
        (texts) => lookup.storedStructures(input.vaultId, texts),
        problems,
        signal,
      )
      for await (const record of table.records) {
        signal?.throwIfAborted()
        report.rows = record.row
        if (record.fault) {
          problems.add({
            kind: 'file',
            severity: 'error',
            row: record.row,
            column: null,
            value: null,
            message: record.fault,
          })
        }
        if (record.structure !== null) await structures.add(record.row, null, record.structure)
        for (const column of plan.columns) {
          const value = record.cells[column.index]?.trim() ?? ''
          if (value === '') continue
          const target = column.mapped.target
          if (target.role === 'structure')
            await structures.add(record.row, column.mapped.header, value)
          else if (target.role === 'reference') {
            const values =
              target.field === 'molecule-synonym'
                ? value
                    .split(synonymSeparators)
                    .map((part) => part.trim())
                    .filter(Boolean)
                : [value]
            for (const each of values)
              references.add(target.field, column.mapped.header, each, record.row)
          } else if (target.role === 'readout' && column.rule) {
            checkReadout(column.rule, column.mapped.header, value, record.row, problems)
          }
        }
      }
      await structures.flush()
      if (report.rows === 0) {
        problems.add({
          kind: 'file',
          severity: 'error',
          row: null,
          column: null,
          value: null,
          message: 'The file has a header but no data rows: nothing to import.',
        })
      }
      references.report(lookup, input.vaultId, plan.createsMolecules, problems)
    } finally {
      lookup.close()
    }
  }

  /** The cached template, with its header mappings from the vault when only its summary is. */
  async #template(
    input: ImportCheckInput,
    lookup: ReferenceLookup,
    signal?: AbortSignal,
  ): Promise<JsonObject | null> {
    const cached = lookup.mappingTemplate(input.vaultId, input.mappingTemplate)
    const id = toId(cached?.id)
    const fetch = this.#options.fetchMappingTemplate
    if (!cached || id === null || mappedColumns(cached) !== null || !fetch) return cached
    const key = JSON.stringify([input.connectionId, input.vaultId, id, cached.modified_at ?? null])
    const known = this.#fetchedTemplates.get(key)
    if (known) return known
    try {
      const fetched = await fetch(input.connectionId, input.vaultId, id, signal)
      if (fetched && mappedColumns(fetched) !== null) {
        this.#fetchedTemplates.set(key, fetched)
        return fetched
      }
    } catch {
      // Offline, or refused: the report says the mappings could not be had.
      signal?.throwIfAborted()
    }
    return cached
  }

  async #openTable(
    filePath: string,
    format: ImportFileFormat,
    scanned: ScannedFile,
    signal?: AbortSignal,
  ): Promise<ImportTable> {
    if (format === 'xlsx') {
      if (!looksLikeZip(scanned.head)) {
        throw new ImportFileError(
          'The file is named .xlsx but is not an xlsx workbook (a zip archive).',
        )
      }
      return readXlsx(filePath)
    }
    if (looksLikeZip(scanned.head)) {
      throw new ImportFileError(
        `The file is a zip archive (a spreadsheet?), not ${format === 'csv' ? 'CSV text' : 'an SD file'}: give it its own extension (.xlsx).`,
      )
    }
    if (looksBinary(scanned)) {
      throw new ImportFileError(
        "The file holds binary data, not text: is it the right file (an instrument's raw data, a spreadsheet)?",
      )
    }
    return format === 'sdf'
      ? readSdf(filePath, scanned, signal)
      : readCsv(filePath, scanned, signal)
  }
}

interface PlannedColumn {
  index: number
  mapped: MappedColumn
  rule: ReadoutRule | null
}

interface ColumnPlan {
  columns: PlannedColumn[]
  /** A record with a structure registers a molecule when its reference names none. */
  createsMolecules: boolean
}

/** Compares the file's columns with the template's, and finds each readout's definition. */
function planColumns(
  input: ImportCheckInput,
  format: ImportFileFormat,
  fileColumns: readonly string[],
  template: JsonObject | null,
  lookup: ReferenceLookup,
  problems: ProblemList,
): ColumnPlan {
  const unchecked = (message: string): ColumnPlan => {
    problems.add({
      kind: 'file',
      severity: 'warning',
      row: null,
      column: null,
      value: null,
      message,
    })
    return { columns: [], createsMolecules: format === 'sdf' }
  }
  const named =
    typeof input.mappingTemplate === 'number'
      ? `#${input.mappingTemplate}`
      : `"${input.mappingTemplate}"`
  if (!template) {
    return unchecked(
      `The mapping template ${named} is not in the cache of this vault: columns, references and readouts were not checked (sync, or check the name).`,
    )
  }
  const mapped = mappedColumns(template)
  if (!mapped) {
    return unchecked(
      `Only the summary of the mapping template "${toText(template.name) ?? named}" is cached, not its column mappings, and the vault could not be asked for them: columns, references and readouts were not checked.`,
    )
  }
  const firstReadout = mapped.find((column) => column.target.role === 'readout')?.target
  const protocol =
    input.protocolId > 0
      ? lookup.protocol(input.vaultId, input.protocolId)
      : firstReadout?.role === 'readout'
        ? lookup.protocolWithReadout(input.vaultId, firstReadout.definitionId)
        : null
  const rules = protocol ? readoutRules(protocol) : null
  if (!protocol && (input.protocolId > 0 || firstReadout)) {
    problems.add({
      kind: 'file',
      severity: 'warning',
      row: null,
      column: null,
      value: null,
      message:
        input.protocolId > 0
          ? `Protocol ${input.protocolId} is not in the cache of this vault: readout values were not checked.`
          : 'No cached protocol has the readouts the mapping template maps: readout values were not checked.',
    })
  }
  const indexOf = new Map<string, number>()
  fileColumns.forEach((column, index) => {
    if (!indexOf.has(column)) indexOf.set(column, index)
  })
  // As the vault does: without a mapped structure column, one named so holds the structures.
  const implicitStructure =
    format !== 'sdf' && !mapped.some((column) => column.target.role === 'structure')
      ? fileColumns.find((name) => implicitStructureHeaders.includes(name.toLowerCase()))
      : undefined
  const columns: PlannedColumn[] = []
  for (const column of [
    ...mapped,
    ...(implicitStructure !== undefined
      ? [{ header: implicitStructure, target: { role: 'structure' } } as const]
      : []),
  ]) {
    // An SD record carries its structure itself.
    if (format === 'sdf' && column.target.role === 'structure') continue
    const index = indexOf.get(column.header)
    if (index === undefined) {
      const other = fileColumns.find((name) => name.toLowerCase() === column.header.toLowerCase())
      const hint = other !== undefined ? ` (the file has "${other}": names must match exactly)` : ''
      // A table's header names its columns, so one missing means the wrong template, and the
      // vault refuses the file; SD data items vary by record, and one no record has fills nothing.
      problems.add(
        format === 'sdf'
          ? {
              kind: 'missing-column',
              severity: 'warning',
              row: null,
              column: column.header,
              value: null,
              message: `No record has the data item "${column.header}" that the mapping template maps${hint}: it fills nothing.`,
            }
          : {
              kind: 'missing-column',
              severity: 'error',
              row: null,
              column: column.header,
              value: null,
              message: `The mapping template expects a column "${column.header}" that the file lacks${hint}.`,
            },
      )
      continue
    }
    let rule: ReadoutRule | null = null
    if (column.target.role === 'readout' && rules) {
      rule = rules.get(column.target.definitionId) ?? null
      if (!rule) {
        problems.add({
          kind: 'file',
          severity: 'error',
          row: null,
          column: column.header,
          value: null,
          message: `The template maps "${column.header}" to readout definition ${column.target.definitionId}, which protocol ${toText(protocol?.name) ?? input.protocolId} does not have.`,
        })
      }
    }
    columns.push({ index, mapped: column, rule })
  }
  const mappedHeaders = new Set(columns.map((column) => column.mapped.header))
  for (const column of fileColumns) {
    if (column === '' || mappedHeaders.has(column) || column.toLowerCase() === runHeader) continue
    problems.add({
      kind: 'unmapped-column',
      severity: 'warning',
      row: null,
      column,
      value: null,
      message: `The column "${column}" is not in the mapping template: the import ignores it.`,
    })
  }
  const createsMolecules =
    format === 'sdf' || columns.some((column) => column.mapped.target.role === 'structure')
  return { columns, createsMolecules }
}

function checkReadout(
  rule: ReadoutRule,
  column: string,
  value: string,
  row: number,
  problems: ProblemList,
): void {
  if (rule.valueType !== 'number') return
  const cell = readReadoutCell(value, { valueType: 'number', unit: rule.unit })
  if (cell.value.kind === 'empty') return
  if (cell.value.kind !== 'number') {
    const hint = /^[<>≤≥~=]*\s*-?\d+,\d+$/.test(value)
      ? ' (a decimal comma? write 12.5, not 12,5)'
      : ''
    problems.add({
      kind: 'not-a-number',
      severity: 'error',
      row,
      column,
      value: shorten(value),
      message: `"${shorten(value)}" is not a number for ${rule.name}${hint}.`,
    })
    return
  }
  const number = cell.value.value
  const below = rule.minimum !== null && number < rule.minimum
  const above = rule.maximum !== null && number > rule.maximum
  if (below || above) {
    const range = `${rule.minimum ?? '−∞'} to ${rule.maximum ?? '∞'}`
    problems.add({
      kind: 'out-of-range',
      severity: 'error',
      row,
      column,
      value: shorten(value),
      message: `${shorten(value)} is outside the range of ${rule.name} (${range}${rule.unit ? ` ${rule.unit}` : ''}).`,
    })
  }
}

/** The texts among these that are the structure of a cached molecule RDKit read. */
type StoredStructures = (texts: readonly string[]) => ReadonlySet<string>

interface WaitingStructure {
  row: number
  column: string | null
  text: string
}

/**
 * Structures waiting for the workers, parsed a batch at a time while reading goes on (two
 * batches in flight at most, so that memory stays bounded). Only new texts reach RDKit: a text
 * repeated in the file is parsed once, and one equal to the structure of any cached molecule
 * that the structure index read (an instrument's file of registered compounds carries theirs) is
 * known to parse; whether it is the molecule the row names is the reference check's business.
 * When the workers fail (not the structure: a worker), the report says which rows went unchecked
 * instead of failing the whole check.
 */
class StructureQueue {
  readonly #parse: StructureProblems
  readonly #stored: StoredStructures
  readonly #problems: ProblemList
  readonly #signal: AbortSignal | undefined
  readonly #known = new Map<string, string | null>()
  readonly #inFlight = new Set<Promise<void>>()
  #waiting: WaitingStructure[] = []

  constructor(
    parse: StructureProblems,
    stored: StoredStructures,
    problems: ProblemList,
    signal?: AbortSignal,
  ) {
    this.#parse = parse
    this.#stored = stored
    this.#problems = problems
    this.#signal = signal
  }

  async add(row: number, column: string | null, text: string): Promise<void> {
    this.#waiting.push({ row, column, text })
    if (this.#waiting.length < structureBatch) return
    this.#start()
    while (this.#inFlight.size >= maximumBatchesInFlight) await Promise.race(this.#inFlight)
  }

  /** Parses what waits and waits for every batch. */
  async flush(): Promise<void> {
    this.#start()
    await Promise.all(this.#inFlight)
  }

  #start(): void {
    const waiting = this.#waiting
    this.#waiting = []
    if (waiting.length === 0) return
    const batch = this.#check(waiting).finally(() => this.#inFlight.delete(batch))
    // Awaited by `add` or `flush`; an abort rejects every batch, and only one of them is awaited.
    batch.catch(() => {})
    this.#inFlight.add(batch)
  }

  async #check(waiting: WaitingStructure[]): Promise<void> {
    // This batch's verdicts are its own: another batch may forget remembered ones meanwhile.
    const verdicts = new Map<string, string | null>()
    const unseen: string[] = []
    for (const { text } of waiting) {
      const known = this.#known.get(text)
      if (known !== undefined) verdicts.set(text, known)
      else if (!verdicts.has(text)) {
        verdicts.set(text, null)
        unseen.push(text)
      }
    }
    const cached = this.#stored(unseen)
    const unknown = unseen.filter((text) => !cached.has(text))
    let answers: (string | null)[] = []
    if (unknown.length > 0) {
      try {
        answers = await this.#parse(unknown, this.#signal)
      } catch (error) {
        this.#signal?.throwIfAborted()
        this.#problems.add({
          kind: 'structure',
          severity: 'warning',
          row: waiting[0]!.row,
          column: waiting[0]!.column,
          value: null,
          message: `The structures of rows ${waiting[0]!.row} to ${waiting.at(-1)!.row} were not checked: ${error instanceof Error ? error.message : String(error)}`,
        })
        return
      }
    }
    unknown.forEach((text, index) => verdicts.set(text, answers[index] ?? null))
    // Remembered while few: an SD file's molblocks are large, and rarely repeated.
    if (this.#known.size + verdicts.size > rememberedStructures) this.#known.clear()
    for (const [text, verdict] of verdicts) this.#known.set(text, verdict)
    for (const item of waiting) {
      const problem = verdicts.get(item.text)
      if (!problem) continue
      this.#problems.add({
        kind: 'structure',
        severity: 'error',
        row: item.row,
        column: item.column,
        value: item.column === null ? null : shorten(item.text),
        message: `The structure does not parse: ${problem}`,
      })
    }
  }
}

/** The rows of each distinct reference value, per field, until they are looked up at the end. */
class ReferenceRows {
  readonly #byField = new Map<ReferenceField, Map<string, { column: string; rows: number[] }>>()

  add(field: ReferenceField, column: string, value: string, row: number): void {
    let values = this.#byField.get(field)
    if (!values) this.#byField.set(field, (values = new Map()))
    const entry = values.get(value)
    if (entry) entry.rows.push(row)
    else values.set(value, { column, rows: [row] })
  }

  report(
    lookup: ReferenceLookup,
    vaultId: number,
    createsMolecules: boolean,
    problems: ProblemList,
  ): void {
    for (const [field, values] of this.#byField) {
      const matches = lookup.lookUp(vaultId, field, values.keys())
      for (const [value, { column, rows }] of values) {
        const { count, ids } = matches.get(value.trim()) ?? { count: 0, ids: [] }
        if (count === 1) continue
        for (const row of rows) {
          if (count === 0) {
            problems.add({
              kind: 'unknown-reference',
              // With a structure the import registers what it does not find; without, it cannot.
              severity: createsMolecules ? 'warning' : 'error',
              row,
              column,
              value: shorten(value),
              message: createsMolecules
                ? `No cached ${fieldWords[field]} "${shorten(value)}": the import will register it as new.`
                : `No cached ${fieldWords[field]} "${shorten(value)}".`,
            })
          } else {
            problems.add({
              kind: 'ambiguous-reference',
              severity: 'error',
              row,
              column,
              value: shorten(value),
              message: `"${shorten(value)}" names ${count} cached records${ids.length > 0 ? ` (${ids.join(', ')}${count > ids.length ? ', …' : ''})` : ''}: the import cannot tell which.`,
            })
          }
        }
      }
    }
  }
}

/** Every problem counted; the first `limit` of each severity kept, errors listed first. */
class ProblemList {
  readonly #limit: number
  readonly #errors: ImportProblem[] = []
  readonly #warnings: ImportProblem[] = []
  readonly #counts = new Map<ImportProblemKind, number>()
  #errorCount = 0
  #warningCount = 0

  constructor(limit: number) {
    this.#limit = limit
  }

  add(problem: ImportProblem): void {
    this.#counts.set(problem.kind, (this.#counts.get(problem.kind) ?? 0) + 1)
    if (problem.severity === 'error') {
      this.#errorCount += 1
      if (this.#errors.length < this.#limit) this.#errors.push(problem)
    } else {
      this.#warningCount += 1
      if (this.#warnings.length < this.#limit) this.#warnings.push(problem)
    }
  }

  into(report: ImportCheckReport): ImportCheckReport {
    // In file order: by row, then by column as the file has them (the whole row's first).
    const place = (problem: ImportProblem) =>
      problem.column === null ? -1 : report.columns.indexOf(problem.column)
    const inFileOrder = (first: ImportProblem, second: ImportProblem) =>
      (first.row ?? 0) - (second.row ?? 0) || place(first) - place(second)
    report.problems = [
      ...this.#errors.sort(inFileOrder),
      ...this.#warnings.sort(inFileOrder),
    ].slice(0, this.#limit)
    report.counts = Object.fromEntries(
      importProblemKinds.flatMap((kind) =>
        this.#counts.has(kind) ? [[kind, this.#counts.get(kind)!]] : [],
      ),
    )
    report.errors = this.#errorCount
    report.warnings = this.#warningCount
    return report
  }
}

function shorten(value: string): string {
  const flat = value.replace(/\s+/g, ' ')
  return flat.length > shownValueLength ? `${flat.slice(0, shownValueLength - 1)}…` : flat
}
