/**
 * Builders of column declarations: each reads one value of a record the way the vault sends it
 * (see `src-common/values.ts`).
 */
import { normalizeTimestamp } from '../timestamps.ts'
import {
  isObject,
  toLinkId,
  toNumber,
  toPersonName,
  toText,
  type JsonObject,
  type SqlValue,
} from '../values.ts'
import type { ColumnDeclaration, SqlType } from './kind-declaration.ts'

type ColumnOptions = Pick<ColumnDeclaration, 'sortable' | 'filterable' | 'collate' | 'linksTo'>

export function column(
  name: string,
  type: SqlType,
  read: (record: JsonObject) => SqlValue,
  options: ColumnOptions = {},
): ColumnDeclaration {
  return { name, type, read, ...options }
}

/** A text member (`member` defaults to the column's name). */
export const text = (name: string, member = name, options?: ColumnOptions): ColumnDeclaration =>
  column(name, 'TEXT', (record) => toText(record[member]), options)

export const number = (name: string, member = name, options?: ColumnOptions): ColumnDeclaration =>
  column(name, 'REAL', (record) => toNumber(record[member]), options)

/** A person, named "First Last" (owners, authors). */
export const person = (name: string, member = name, options?: ColumnOptions): ColumnDeclaration =>
  column(name, 'TEXT', (record) => toPersonName(record[member]), options)

/** The id of a linked record, from the first of `members` that holds one (a link or a bare id). */
export function link(
  name: string,
  members: readonly string[],
  options: ColumnOptions = {},
): ColumnDeclaration {
  return column(
    name,
    'INTEGER',
    (record) => {
      for (const member of members) {
        const id = toLinkId(record[member])
        if (id !== null) return id
      }
      return null
    },
    options,
  )
}

/** A flag (1 or 0, never NULL). */
export function flag(
  name: string,
  read: (record: JsonObject) => 0 | 1,
  options: ColumnOptions = {},
): ColumnDeclaration {
  return { ...column(name, 'INTEGER', read, options), flag: true }
}

/** A member holding a timestamp, normalized so that text order is time order. */
export const timestamp = (member: string) => (record: JsonObject) =>
  normalizeTimestamp(record[member])

/** Whether any cell of a readout map passes a test (a readout row's marks). */
export function anyCell(readouts: unknown, test: (cell: JsonObject) => boolean): 0 | 1 {
  if (!isObject(readouts)) return 0
  for (const cell of Object.values(readouts)) if (isObject(cell) && test(cell)) return 1
  return 0
}
