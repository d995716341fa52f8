/**
 * The comparisons a results criterion makes with one readout cell, and the one form of a cell
 * they run on: `IndexedCell`, what the sync-time index stores per cell (kind, number in the
 * definition's unit, modifier, searchable text). The evaluator here and the SQL this module
 * writes for the index read the same four columns by the same rules, so an offline search gives
 * the same rows whether it runs in JavaScript or in SQLite.
 *
 * Rules (see `readout-value.ts` for why):
 * - A range (`=`, `<`, `<=`, `>`, `>=`, `from a to b`, bounds inclusive as written) is met by
 *   a plain or `~` number inside it, and by a qualified number whose whole interval lies inside:
 *   `<b` and `<=b` only by ranges without a lower bound, `>b` and `>=b` only by ranges without an
 *   upper bound.
 * - `!= v` is met when the cell's interval leaves v out.
 * - Numbers compare with numbers and dates with dates; text, booleans and empty cells meet no
 *   range. Text equality (`= "ND"`) is met by text cells only, ignoring the case of ASCII letters
 *   (as SQLite's NOCASE); `!=` text by text cells that differ.
 * - `contains` and `does not contain` look in the searchable text of any cell with a value (a
 *   number's text as given, without modifier or unit), ignoring ASCII case, as SQLite's LIKE;
 *   the pattern is taken literally (`%` and `_` are not wildcards).
 * - `present` is met by any cell of the definition, even one with only a note, as the vault's
 *   own criterion without an operator.
 */
import {
  asciiLower,
  inDefinitionUnit,
  searchText,
  type Modifier,
  type ReadoutValue,
} from './readout-value.ts'

export interface Bound {
  value: number
  inclusive: boolean
}

/** What the compared values are: numbers (in the definition's unit) or dates (epoch ms). */
export type Scale = 'number' | 'date'

export type Comparison =
  | { kind: 'present' }
  | { kind: 'range'; scale: Scale; lower: Bound | null; upper: Bound | null }
  | { kind: 'not equal'; scale: Scale; value: number }
  | { kind: 'text equal' | 'text not equal'; text: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'contains' | 'does not contain'; text: string }

export type IndexedKind = 'number' | 'date' | 'boolean' | 'text' | 'empty'

/** One cell as the index stores it. */
export interface IndexedCell {
  kind: IndexedKind
  /** The number in the definition's unit, a date's epoch ms, a boolean's 1 or 0. */
  number: number | null
  /** Numbers only. */
  modifier: Modifier | null
  /** What `contains` searches; null for empty cells. */
  text: string | null
}

/** The index form of a value, converted to its definition's unit first. */
export function indexedCellOf(value: ReadoutValue, definitionUnit: string | null): IndexedCell {
  const converted = inDefinitionUnit(value, definitionUnit).value
  const text = searchText(converted)
  switch (converted.kind) {
    case 'number':
      return { kind: 'number', number: converted.value, modifier: converted.modifier, text }
    case 'date':
      return { kind: 'date', number: converted.epochMs, modifier: null, text }
    case 'boolean':
      return { kind: 'boolean', number: converted.value ? 1 : 0, modifier: null, text }
    case 'text':
      return { kind: 'text', number: null, modifier: null, text }
    case 'empty':
      return { kind: 'empty', number: null, modifier: null, text: null }
  }
}

/**
 * A cell as the vault's own criteria compare it: a qualified value by its bound alone (`>200` as
 * 200), so that a search by results finds offline what the vault finds online.
 */
export function asBound(cell: IndexedCell): IndexedCell {
  return cell.modifier === null ? cell : { ...cell, modifier: null }
}

/** Whether an indexed cell meets a comparison. */
export function meetsComparison(comparison: Comparison, cell: IndexedCell): boolean {
  switch (comparison.kind) {
    case 'present':
      return true
    case 'range':
      return (
        cell.kind === comparison.scale &&
        cell.number !== null &&
        inRange(cell.number, cell.modifier, comparison.lower, comparison.upper)
      )
    case 'not equal':
      return (
        cell.kind === comparison.scale &&
        cell.number !== null &&
        excludes(cell.number, cell.modifier, comparison.value)
      )
    case 'text equal':
    case 'text not equal':
      return (
        cell.kind === 'text' &&
        cell.text !== null &&
        (asciiLower(cell.text) === asciiLower(comparison.text)) ===
          (comparison.kind === 'text equal')
      )
    case 'boolean':
      return cell.kind === 'boolean' && cell.number === (comparison.value ? 1 : 0)
    case 'contains':
    case 'does not contain':
      return (
        cell.kind !== 'empty' &&
        cell.text !== null &&
        asciiLower(cell.text).includes(asciiLower(comparison.text)) ===
          (comparison.kind === 'contains')
      )
  }
}

function above(value: number, lower: Bound | null): boolean {
  return lower === null || (lower.inclusive ? value >= lower.value : value > lower.value)
}

function below(value: number, upper: Bound | null): boolean {
  return upper === null || (upper.inclusive ? value <= upper.value : value < upper.value)
}

function inRange(
  value: number,
  modifier: Modifier | null,
  lower: Bound | null,
  upper: Bound | null,
): boolean {
  switch (modifier) {
    case null:
    case '~':
      return above(value, lower) && below(value, upper)
    case '<':
      return lower === null && upper !== null && value <= upper.value
    case '<=':
      return lower === null && upper !== null && below(value, upper)
    case '>':
      return upper === null && lower !== null && value >= lower.value
    case '>=':
      return upper === null && lower !== null && above(value, lower)
  }
}

function excludes(value: number, modifier: Modifier | null, excluded: number): boolean {
  switch (modifier) {
    case null:
    case '~':
      return value !== excluded
    case '<':
      return excluded >= value
    case '<=':
      return excluded > value
    case '>':
      return excluded <= value
    case '>=':
      return excluded < value
  }
}

/** Column expressions of the index's cell table, as the SQL should name them. */
export interface CellColumns {
  kind: string
  number: string
  modifier: string
  text: string
}

export type SqlParameter = string | number

export interface SqlPredicate {
  sql: string
  params: SqlParameter[]
}

/**
 * A SQLite predicate over one indexed cell equivalent to `meetsComparison`; the kind values are
 * `IndexedKind`'s words. Parameters are positional (`?`).
 */
export function comparisonSql(comparison: Comparison, columns: CellColumns): SqlPredicate {
  const { kind, number, modifier, text } = columns
  const plain = `(${modifier} IS NULL OR ${modifier} = '~')`
  switch (comparison.kind) {
    case 'present':
      return { sql: '1', params: [] }
    case 'range': {
      const { lower, upper } = comparison
      const parts: string[] = []
      const params: SqlParameter[] = []
      const exactParts = [plain]
      if (lower) {
        exactParts.push(`${number} ${lower.inclusive ? '>=' : '>'} ?`)
        params.push(lower.value)
      }
      if (upper) {
        exactParts.push(`${number} ${upper.inclusive ? '<=' : '<'} ?`)
        params.push(upper.value)
      }
      parts.push(`(${exactParts.join(' AND ')})`)
      if (lower === null && upper !== null) {
        parts.push(`(${modifier} = '<' AND ${number} <= ?)`)
        parts.push(`(${modifier} = '<=' AND ${number} ${upper.inclusive ? '<=' : '<'} ?)`)
        params.push(upper.value, upper.value)
      }
      if (upper === null && lower !== null) {
        parts.push(`(${modifier} = '>' AND ${number} >= ?)`)
        parts.push(`(${modifier} = '>=' AND ${number} ${lower.inclusive ? '>=' : '>'} ?)`)
        params.push(lower.value, lower.value)
      }
      return {
        sql: `(${kind} = '${comparison.scale}' AND (${parts.join(' OR ')}))`,
        params,
      }
    }
    case 'not equal': {
      const value = comparison.value
      return {
        sql:
          `(${kind} = '${comparison.scale}' AND ((${plain} AND ${number} <> ?)` +
          ` OR (${modifier} = '<' AND ${number} <= ?) OR (${modifier} = '<=' AND ${number} < ?)` +
          ` OR (${modifier} = '>' AND ${number} >= ?) OR (${modifier} = '>=' AND ${number} > ?)))`,
        params: [value, value, value, value, value],
      }
    }
    case 'text equal':
    case 'text not equal':
      return {
        sql: `(${kind} = 'text' AND ${text} ${comparison.kind === 'text equal' ? '=' : '<>'} ? COLLATE NOCASE)`,
        params: [comparison.text],
      }
    case 'boolean':
      return { sql: `(${kind} = 'boolean' AND ${number} = ?)`, params: [comparison.value ? 1 : 0] }
    case 'contains':
    case 'does not contain':
      return {
        sql: `(${kind} <> 'empty' AND ${text} ${comparison.kind === 'contains' ? 'LIKE' : 'NOT LIKE'} ? ESCAPE '\\')`,
        params: [`%${escapeLike(comparison.text)}%`],
      }
  }
}

/** A LIKE pattern that matches the text literally (with `ESCAPE '\'`). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`)
}
