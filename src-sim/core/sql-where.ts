import type { DatePrecision } from './dates.ts'
import type { Params } from './params.ts'

/**
 * Builds a WHERE clause and its arguments. `ids` binds any number of ids as one JSON argument
 * (`IN (SELECT value FROM json_each(?))`), so a statement stays the same whatever the list length.
 */
export class SqlWhere {
  readonly #clauses: string[] = []
  readonly #args: unknown[] = []

  add(clause: string, ...args: unknown[]): this {
    this.#clauses.push(clause)
    this.#args.push(...args)
    return this
  }

  /** `column IN (ids)`; an empty list matches nothing. */
  ids(column: string, ids: readonly number[]): this {
    return this.add(`${column} IN (SELECT value FROM json_each(?))`, JSON.stringify(ids))
  }

  /**
   * `<name>_after` (inclusive) and `<name>_before` (exclusive) as a half-open range on `column`.
   * Inclusive lower bounds let a client resume from the last timestamp it saw without missing
   * records written later in that same second.
   */
  dateRange(
    params: Params,
    name: string,
    column: string,
    precision: DatePrecision = 'second',
  ): this {
    const after = params.date(`${name}_after`, precision)
    const before = params.date(`${name}_before`, precision)
    if (after !== undefined) this.add(`${column} >= ?`, after)
    if (before !== undefined) this.add(`${column} < ?`, before)
    return this
  }

  get args(): unknown[] {
    return this.#args
  }

  /** ` WHERE a AND b`, or an empty string. */
  toString(): string {
    return this.#clauses.length === 0 ? '' : ` WHERE ${this.#clauses.join(' AND ')}`
  }
}
