/**
 * What an export writes of each record: the columns the kind's list shows, or every field of the
 * record's JSON flattened to one level.
 *
 * Values of the view's columns:
 * - numbers stay raw numbers (full precision, no grouping), so that other tools compute with
 *   them: a molecular weight the list shows as "180.16" is written as 180.159;
 * - dates stay the vault's ISO 8601 text ("2026-07-24T10:15:00Z"), which every tool parses and
 *   sorts and no locale can misread (Excel gets them as date cells);
 * - other text is what the list shows (a formatted value, such as a readout row's type).
 * Every export starts with the record's ID (empty for a record created offline), and a
 * similarity search adds its score.
 *
 * All fields: `owner.name`, `molecule_fields.Solubility`: nested objects become dotted names,
 * arrays (and empty objects) become their JSON text.
 */
import type { ResultsRow } from '../../src-common/analysis/readouts/results-table.ts'
import { dayCell, linkNames } from '../../src-common/format/cells.ts'
import type { CellValue, ListColumn } from '../../src-common/records/kind-declaration.ts'
import { frameColumns } from '../../src-common/records/kind-declaration.ts'
import { kindDeclaration } from '../../src-common/records/record-kinds.ts'
import type { ColumnValue, RecordRow } from '../../src-common/records/record-row.ts'
import { isObject, type JsonObject } from '../../src-common/values.ts'

export type ExportValue = string | number | boolean | null

export interface ExportRecord {
  row: RecordRow
  /** Tanimoto similarity to the query, when the list is a similarity search. */
  similarity?: number
  /** SD files: the structure as a molfile; a molfile without atoms when there is none. */
  molblock?: string
  /**
   * A results table's row (results exports): its subject and aggregates. `row` is then its
   * molecule's record (a batch's structure is its molecule's), named as the table names it.
   */
  result?: ResultsRow
}

/** A fixed set of columns: CSV and Excel need their header before the first record. */
export interface ExportColumns {
  readonly headers: readonly string[]
  /** Per column: whether its values are the vault's ISO 8601 dates or timestamps. */
  readonly dates: readonly boolean[]
  values(record: ExportRecord): ExportValue[]
  /** The value of one column: a writer that walks the columns makes no array per record. */
  value(record: ExportRecord, index: number): ExportValue
}

/** A column an export writes, before headers are made unique. */
export interface ExportColumn {
  header: string
  date: boolean
  value: (record: ExportRecord) => ExportValue
}

/** Columns as a writer takes them: headers made unique, values read column by column. */
export function fixedColumns(columns: readonly ExportColumn[]): ExportColumns {
  return {
    headers: uniqueHeaders(columns.map((column) => column.header)),
    dates: columns.map((column) => column.date),
    values: (record) => columns.map((column) => column.value(record)),
    value: (record, index) => columns[index]!.value(record),
  }
}

/** The columns the kind's list shows, after the record's ID (and the similarity, if asked). */
export function viewColumns(kindName: string, options: { similarity: boolean }): ExportColumns {
  const kind = kindDeclaration(kindName)
  const listed = kind.browse?.list?.columns ?? fallbackColumns(kindName)
  const columns: ExportColumn[] = [
    { header: 'ID', date: false, value: ({ row }) => row.id },
    ...(options.similarity
      ? [
          {
            header: 'Similarity',
            date: false,
            value: (record: ExportRecord) => record.similarity ?? null,
          },
        ]
      : []),
    ...listed.map((column) => {
      const stored = storedCells[kindName]?.[column.id]
      return {
        header: column.label,
        date: column.format === dayCell,
        value: ({ row }: ExportRecord) => cellOf(column, row, stored),
      }
    }),
  ]
  return fixedColumns(columns)
}

/** Every field named (in the order first seen), each read from the flattened record. */
export function fieldColumns(names: readonly string[]): ExportColumns {
  // The last record's fields: a writer asks for its columns one after the other.
  let last: { json: JsonObject; fields: Map<string, ExportValue> } | null = null
  const fieldsOf = (json: JsonObject): Map<string, ExportValue> => {
    if (last?.json !== json) last = { json, fields: flattenRecord(json) }
    return last.fields
  }
  return {
    headers: names,
    dates: names.map(() => false),
    values: ({ row }) => {
      const fields = fieldsOf(row.json)
      return names.map((name) => fields.get(name) ?? null)
    },
    value: ({ row }, index) => fieldsOf(row.json).get(names[index]!) ?? null,
  }
}

/** The fields of a record on one level: dotted names, arrays and empty objects as JSON text. */
export function flattenRecord(json: JsonObject): Map<string, ExportValue> {
  const fields = new Map<string, ExportValue>()
  const visit = (object: JsonObject, prefix: string): void => {
    for (const [key, value] of Object.entries(object)) {
      const name = prefix === '' ? key : `${prefix}.${key}`
      if (isObject(value) && !Array.isArray(value) && Object.keys(value).length > 0) {
        visit(value, name)
      } else {
        fields.set(name, fieldValue(value))
      }
    }
  }
  visit(json, '')
  return fields
}

/** The field names of many records, in the order first seen (memory grows with names only). */
export class FieldNames {
  readonly #names = new Set<string>()

  add(json: JsonObject): void {
    for (const name of flattenRecord(json).keys()) this.#names.add(name)
  }

  get names(): string[] {
    return [...this.#names]
  }
}

function fieldValue(value: unknown): ExportValue {
  if (value === null || value === undefined) return null
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value === 'string' || typeof value === 'boolean') return value
  return JSON.stringify(value)
}

/**
 * A list cell that rows read for an export hold ready among their columns, by kind and list
 * column: the cache keeps the members of the record those cells show (record-rows.ts
 * `listMembers`), so that the record is not parsed for them. Undefined when the row does not
 * hold them (a record waiting in the outbox): its cell is then the list's own, from its record.
 * Each must give what the list column gives (test/services/exports.test.ts compares them).
 */
type StoredCell = (columns: Readonly<Record<string, ColumnValue>>) => CellValue | undefined

const storedCells: Readonly<Record<string, Readonly<Record<string, StoredCell>>>> = {
  molecules: {
    batch_count: (columns) => columns.batch_count,
    projects: ({ projects_json: projects }) =>
      projects === undefined
        ? undefined
        : projectNames(projects === null ? null : String(projects)),
  },
}

/**
 * Whether the kind's view reads nothing of its records but their columns and stored cells, so
 * that an export of the view need not read the records at all (RowReading.deferJson). Molecules
 * only: test/store/list-members.test.ts checks that no record is parsed for their view.
 */
export function viewReadsOnlyColumns(kindName: string): boolean {
  return kindName === 'molecules'
}

/** Recent project lists' names by their JSON text: a vault's molecules share a few lists. */
const recentProjectNames = new Map<string | null, CellValue>()

function projectNames(text: string | null): CellValue {
  let names = recentProjectNames.get(text)
  if (names === undefined) {
    names = linkNames(text === null ? undefined : JSON.parse(text))
    if (recentProjectNames.size >= 256) recentProjectNames.clear()
    recentProjectNames.set(text, names)
  }
  return names
}

function cellOf(column: ListColumn, row: RecordRow, stored: StoredCell | undefined): ExportValue {
  const ready = stored?.(row.columns)
  const value = ready === undefined ? column.value(row) : ready
  if (value === null || value === undefined || value === '') return null
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (column.format === undefined || column.format === dayCell) return value
  const shown = column.format(value, row)
  return shown === '' ? null : shown
}

/** Kinds without a list of their own: the frame's columns and the declared ones. */
function fallbackColumns(kindName: string): ListColumn[] {
  const kind = kindDeclaration(kindName)
  const names = [
    ...frameColumns.filter((name) => !['row_id', 'vault_id', 'id'].includes(name)),
    ...(kind.columns ?? []).map((column) => column.name),
  ]
  return names.map((name) => ({
    id: name,
    label: name,
    value: (row) => row.columns[name] ?? null,
    ...(name.endsWith('_at') ? { format: dayCell } : {}),
  }))
}

/** Two columns labelled alike get "(2)": a header names one column. */
export function uniqueHeaders(headers: readonly string[]): string[] {
  const seen = new Map<string, number>()
  return headers.map((header) => {
    const count = (seen.get(header) ?? 0) + 1
    seen.set(header, count)
    return count === 1 ? header : `${header} (${count})`
  })
}
