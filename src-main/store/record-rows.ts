import { createdAtOf, modifiedAtOf, recordKind, type RecordKind } from './record-kinds.ts'
import type { RecordKindName } from './record-kinds.ts'
import {
  distinct,
  isObject,
  toId,
  type JsonObject,
  type SqlValue,
} from '../../src-common/values.ts'
import { searchColumnCount, searchColumns } from './search-text.ts'

/** A record of a page that was not stored, and why (the rest of the page is). */
export interface RejectedRecord {
  /** Its position in the page (a batch nested in a molecule: the molecule's). */
  index: number
  reason: string
}

/**
 * Records of one kind made ready for their table: everything the writer needs, derived once from
 * the records, as plain data in flat arrays (cheap to hand to the cache writer's worker, which
 * then neither parses JSON nor reads records). Row `i` has:
 * - `ids[i]`, the server id;
 * - `width` values from `values[i * width]`, in the order of valueColumns(kind), its JSON last
 *   (null for a batch nested in its molecule, whose JSON is read from the molecule's);
 * - when the kind has search documents, its search columns but the scope (searchColumns) from
 *   `search[i * searchColumnCount]`;
 * - when the kind links projects, the project ids `projects[projectStarts[i]]` up to
 *   `projects[projectStarts[i + 1]]`.
 */
export interface PreparedRows {
  width: number
  ids: number[]
  values: SqlValue[]
  search: string[] | null
  projectStarts: number[] | null
  projects: number[]
}

/** A page of records made ready for the cache (see PageBuilder). */
export interface PreparedPage {
  kind: RecordKindName
  /** The vault the records are stored under (connectionVaultId for vaults themselves). */
  vaultId: number
  rows: PreparedRows
  /**
   * The batches nested in a page of molecules, for the last occurrence of each molecule in the
   * page; `owners[j]` is the row (in `rows`) of the molecule of batch `j`.
   */
  nested: (PreparedRows & { owners: number[] }) | null
  /** Records that could not be read, in the order: records of the page, then nested batches. */
  rejected: RejectedRecord[]
}

/** A member of a record kept in a column of its own (see `listMembers`). */
export interface ListMember {
  column: string
  /** Its SQL type, as cache step 10 added it (after `json`: record-tables.ts). */
  type: 'INTEGER' | 'TEXT'
  read: (record: JsonObject) => SqlValue
}

/**
 * Members of a record that its kind's list shows besides its columns, kept beside its JSON (cache
 * step 10) so that a list read whole needs no record parsed: a molecule's batch count and its
 * projects (as JSON text, for the list's own formatting of them). Only molecules have them.
 */
export const listMembers: Readonly<Partial<Record<RecordKindName, readonly ListMember[]>>> = {
  molecules: [
    {
      column: 'batch_count',
      type: 'INTEGER',
      read: (record) => (Array.isArray(record.batches) ? record.batches.length : null),
    },
    {
      column: 'projects_json',
      type: 'TEXT',
      read: (record) => (record.projects === undefined ? null : JSON.stringify(record.projects)),
    },
  ],
}

const noMembers: readonly ListMember[] = []

export function listMembersOf(kind: RecordKind): readonly ListMember[] {
  return listMembers[kind.name] ?? noMembers
}

/**
 * The columns written for every kind after row_id, vault_id and id: common, own, list members,
 * json.
 */
export function valueColumns(kind: RecordKind): string[] {
  return [
    'name',
    'created_at',
    'modified_at',
    ...kind.columns.map((column) => column.column),
    ...listMembersOf(kind).map((member) => member.column),
    'json',
  ]
}

const batches = recordKind('batches')
const batchColumns = valueColumns(batches)
const batchMoleculeId = batchColumns.indexOf('molecule_id')
const batchPosition = batchColumns.indexOf('position')

/** No rows yet, laid out for `kind`. */
export function emptyRows(kind: RecordKind): PreparedRows {
  return {
    width: kind.columns.length + listMembersOf(kind).length + 4,
    ids: [],
    values: [],
    search: kind.searchOf ? [] : null,
    projectStarts: kind.projectsOf ? [0] : null,
    projects: [],
  }
}

/**
 * Makes a page (or a part of one) of records ready for the cache, then `finish` answers it.
 * Records that are not objects with an integer id, or cannot be written as JSON, are rejected
 * with the reason; the rest are kept. A molecule's nested batches are made ready with it; should
 * a molecule come twice in a page, only the batches of its last occurrence are kept.
 */
export class PageBuilder {
  readonly #kind: RecordKind
  readonly #vaultId: number
  readonly #parentId: number | null
  readonly #rows: PreparedRows
  readonly #rejected: RejectedRecord[] = []
  /** Molecules only: their batches, and the batches that could not be read (with their row). */
  readonly #nested: NonNullable<PreparedPage['nested']> | null
  readonly #nestedRejected: (RejectedRecord & { row: number })[] = []
  #index: number

  /** `firstIndex`: the position in its page of the first record given (a page made in parts). */
  constructor(kind: RecordKind, vaultId: number, parentId: number | null, firstIndex = 0) {
    this.#kind = kind
    this.#vaultId = vaultId
    this.#parentId = parentId
    this.#index = firstIndex
    this.#rows = emptyRows(kind)
    this.#nested = kind.name === 'molecules' ? { ...emptyRows(batches), owners: [] } : null
  }

  /** Adds the next record of the page; `json` is its JSON text when the caller has it. */
  add(record: unknown, json?: string): void {
    const index = this.#index++
    const rows = this.#rows
    const reason = addRow(rows, this.#kind, this.#vaultId, record, index, this.#parentId, json)
    if (reason !== null) {
      this.#rejected.push({ index, reason })
      return
    }
    const nested = this.#nested
    if (!nested) return
    const row = rows.ids.length - 1
    const moleculeId = rows.ids[row]!
    const list = (record as JsonObject).batches
    if (!Array.isArray(list)) return
    list.forEach((batch, position) => {
      const nestedIn = { moleculeId, position }
      const why = addRow(nested, batches, this.#vaultId, batch, position, null, null, nestedIn)
      if (why === null) nested.owners.push(row)
      else
        this.#nestedRejected.push({
          index,
          row,
          reason: `molecule ${moleculeId}: batch ${why}`,
        })
    })
  }

  finish(): PreparedPage {
    const rows = this.#rows
    let nested = this.#nested
    let nestedRejected = this.#nestedRejected
    const isLast = lastOccurrences(rows)
    if (nested && isLast) {
      nested = keepRows(nested, isLast)
      nestedRejected = nestedRejected.filter(({ row }) => isLast(row))
    }
    const rejected = [
      ...this.#rejected,
      ...nestedRejected.map(({ index, reason }) => ({ index, reason })),
    ]
    return { kind: this.#kind.name, vaultId: this.#vaultId, rows, nested, rejected }
  }
}

/**
 * The parts of one page, made ready one after the other (PageBuilder's `firstIndex`), as the page
 * they make: so that the writer stores a page with one statement per many rows however small the
 * parts it crossed in. A record in two parts is stored as its later occurrence says.
 */
export function joinParts(parts: readonly PreparedPage[]): PreparedPage {
  const [first] = parts
  if (!first || parts.length === 1) return first!
  const rows = joinRows(parts.map((part) => part.rows))
  let nested: PreparedPage['nested'] = null
  if (first.nested) {
    const owners: number[] = []
    let offset = 0
    for (const part of parts) {
      for (const owner of part.nested?.owners ?? []) owners.push(owner + offset)
      offset += part.rows.ids.length
    }
    const nestedRows = parts.map((part) => part.nested ?? emptyRows(batches))
    nested = { ...joinRows(nestedRows), owners }
  }
  const isLast = lastOccurrences(rows)
  if (nested && isLast) nested = keepRows(nested, isLast)
  const rejected = parts.flatMap((part) => part.rejected)
  return { kind: first.kind, vaultId: first.vaultId, rows, nested, rejected }
}

/** Whether a row is its record's last occurrence; null when every record occurs once. */
function lastOccurrences(rows: PreparedRows): ((row: number) => boolean) | null {
  const lastRow = new Map<number, number>()
  rows.ids.forEach((id, row) => lastRow.set(id, row))
  if (lastRow.size === rows.ids.length) return null
  return (row) => lastRow.get(rows.ids[row]!) === row
}

/**
 * Rows of one kind, one list after the other. Each array is joined by one `concat`, which copies
 * whole arrays at once: pushing value by value took about a fortieth of the writer's time.
 */
function joinRows(list: readonly PreparedRows[]): PreparedRows {
  const [first, ...rest] = list as [PreparedRows, ...PreparedRows[]]
  let projectStarts: number[] | null = null
  if (first.projectStarts) {
    projectStarts = [0]
    let offset = 0
    for (const rows of list) {
      const starts = rows.projectStarts ?? [0]
      for (let row = 1; row < starts.length; row++) projectStarts.push(starts[row]! + offset)
      offset += rows.projects.length
    }
  }
  return {
    width: first.width,
    ids: first.ids.concat(...rest.map((rows) => rows.ids)),
    values: first.values.concat(...rest.map((rows) => rows.values)),
    search: first.search ? first.search.concat(...rest.map((rows) => rows.search ?? [])) : null,
    projectStarts,
    projects: first.projects.concat(...rest.map((rows) => rows.projects)),
  }
}

/** The nested rows whose owner passes the test, in order. */
function keepRows(
  nested: NonNullable<PreparedPage['nested']>,
  keep: (owner: number) => boolean,
): NonNullable<PreparedPage['nested']> {
  const kept: NonNullable<PreparedPage['nested']> = { ...emptyRows(batches), owners: [] }
  const { width } = nested
  nested.owners.forEach((owner, row) => {
    if (!keep(owner)) return
    kept.owners.push(owner)
    kept.ids.push(nested.ids[row]!)
    kept.values.push(...nested.values.slice(row * width, (row + 1) * width))
    if (nested.search) {
      const start = row * searchColumnCount
      kept.search!.push(...nested.search.slice(start, start + searchColumnCount))
    }
    if (nested.projectStarts) {
      const starts = nested.projectStarts
      kept.projects.push(...nested.projects.slice(starts[row], starts[row + 1]))
      kept.projectStarts!.push(kept.projects.length)
    }
  })
  return kept
}

/** Where a batch nested in a molecule sits in it. */
interface NestedIn {
  moleculeId: number
  position: number
}

/**
 * Appends a record's row; answers null, or why the record cannot be stored (nothing appended).
 * `json`: its JSON text, serialized here when not given; null for a nested batch (none stored).
 */
function addRow(
  rows: PreparedRows,
  kind: RecordKind,
  vaultId: number,
  record: unknown,
  index: number,
  parentId: number | null,
  json?: string | null,
  nestedIn?: NestedIn,
): string | null {
  if (!isObject(record)) return `record ${index} is not an object (${describe(record)})`
  const rawId = kind.idOf(record, vaultId)
  const id = toId(rawId)
  if (id === null) return `record ${index} has no integer id (id: ${describe(rawId)})`
  let text: string | null | undefined = json
  if (text === undefined) {
    try {
      text = JSON.stringify(record)
    } catch (error) {
      return `record ${index} cannot be written as JSON (${(error as Error).message})`
    }
  }
  const { values } = rows
  const start = values.length
  values.push(kind.nameOf(record), createdAtOf(record), modifiedAtOf(record))
  for (const { column, read } of kind.columns) {
    const value = read(record)
    values.push(value === null && column === kind.parentColumn ? parentId : value)
  }
  if (nestedIn) {
    values[start + batchMoleculeId] ??= nestedIn.moleculeId
    values[start + batchPosition] = nestedIn.position
  }
  for (const member of listMembersOf(kind)) values.push(member.read(record))
  values.push(text)
  rows.ids.push(id)
  addDerived(rows, kind, record)
  return null
}

/** Appends what a row's record gives besides its columns: its search columns and projects. */
export function addDerived(rows: PreparedRows, kind: RecordKind, record: JsonObject): void {
  if (rows.search && kind.searchOf) {
    const [name, identifiers, synonyms, content] = searchColumns(kind.searchOf(record))
    rows.search.push(name, identifiers, synonyms, content)
  }
  if (rows.projectStarts && kind.projectsOf) {
    for (const projectId of distinct(kind.projectsOf(record))) rows.projects.push(projectId)
    rows.projectStarts.push(rows.projects.length)
  }
}

export function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}
