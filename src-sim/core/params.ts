import { DateFormatError, parseDateParameter } from './dates.ts'
import type { DatePrecision } from './dates.ts'
import { badRequest, invalid } from './http-error.ts'

/**
 * Reads request parameters the same way whether they came as a query string (the deprecated GET
 * forms) or as a JSON body (the POST /query forms and writes). Every reader validates and throws
 * a 422 naming the member; `rejectUnknown()` then names every member nobody asked for, which is
 * how a client's misspelt parameter gets noticed instead of silently ignored.
 */
export class Params {
  readonly #values: Record<string, unknown>
  readonly #origin: 'query' | 'body'
  readonly #prefix: string
  readonly #timeZone: string
  readonly #read = new Set<string>()

  constructor(
    values: Record<string, unknown>,
    origin: 'query' | 'body',
    timeZone = 'UTC',
    prefix = '',
  ) {
    this.#values = values
    this.#origin = origin
    this.#timeZone = timeZone
    this.#prefix = prefix
  }

  static fromSearchParams(search: URLSearchParams, timeZone = 'UTC'): Params {
    const values: Record<string, unknown> = {}
    for (const [rawKey, value] of search) {
      const isArray = rawKey.endsWith('[]')
      const key = isArray ? rawKey.slice(0, -2) : rawKey
      const existing = values[key]
      if (isArray || existing !== undefined) {
        values[key] = Array.isArray(existing)
          ? [...(existing as unknown[]), value]
          : existing === undefined
            ? [value]
            : [existing, value]
      } else {
        values[key] = value
      }
    }
    return new Params(values, 'query', timeZone)
  }

  static fromBody(body: unknown, timeZone = 'UTC', what = 'The request body'): Params {
    if (body === undefined) return new Params({}, 'body', timeZone)
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw badRequest(`${what} must be a JSON object`)
    }
    return new Params(body as Record<string, unknown>, 'body', timeZone)
  }

  get origin(): 'query' | 'body' {
    return this.#origin
  }

  get timeZone(): string {
    return this.#timeZone
  }

  /** The full name of a member, for messages (`collection_criteria[1].junction`). */
  nameOf(key: string): string {
    return `${this.#prefix}${key}`
  }

  has(key: string): boolean {
    return this.#values[key] !== undefined && this.#values[key] !== null
  }

  keys(): string[] {
    return Object.keys(this.#values)
  }

  /** Marks members as accepted without reading them (read-only fields a client echoes back). */
  ignore(...keys: string[]): void {
    for (const key of keys) this.#read.add(key)
  }

  raw(key: string): unknown {
    this.#read.add(key)
    return this.#values[key]
  }

  string(
    key: string,
    options: { required?: boolean; allowEmpty?: boolean } = {},
  ): string | undefined {
    const value = this.raw(key)
    if (value === undefined || value === null) return this.#absent(key, options.required)
    if (typeof value === 'number' && this.#origin === 'body') return String(value)
    if (typeof value !== 'string') throw invalid(this.nameOf(key), 'must be a string')
    if (!options.allowEmpty && value.trim() === '')
      throw invalid(this.nameOf(key), 'must not be empty')
    return value
  }

  requiredString(key: string): string {
    return this.string(key, { required: true }) as string
  }

  integer(
    key: string,
    options: { min?: number; max?: number; required?: boolean } = {},
  ): number | undefined {
    const value = this.raw(key)
    if (value === undefined || value === null || value === '')
      return this.#absent(key, options.required)
    const number = toInteger(value)
    if (number === undefined)
      throw invalid(this.nameOf(key), `must be an integer, got ${describe(value)}`)
    if (options.min !== undefined && number < options.min) {
      throw invalid(this.nameOf(key), `must be at least ${options.min}, got ${number}`)
    }
    if (options.max !== undefined && number > options.max) {
      throw invalid(this.nameOf(key), `must be at most ${options.max}, got ${number}`)
    }
    return number
  }

  requiredInteger(key: string): number {
    return this.integer(key, { required: true }) as number
  }

  number(key: string, options: { required?: boolean } = {}): number | undefined {
    const value = this.raw(key)
    if (value === undefined || value === null || value === '')
      return this.#absent(key, options.required)
    const number =
      typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN
    if (!Number.isFinite(number))
      throw invalid(this.nameOf(key), `must be a number, got ${describe(value)}`)
    return number
  }

  boolean(key: string, fallback: boolean): boolean
  boolean(key: string): boolean | undefined
  boolean(key: string, fallback?: boolean): boolean | undefined {
    const value = this.raw(key)
    if (value === undefined || value === null || value === '') return fallback
    if (value === true || value === 'true' || value === '1' || value === 1) return true
    if (value === false || value === 'false' || value === '0' || value === 0) return false
    throw invalid(this.nameOf(key), `must be true or false, got ${describe(value)}`)
  }

  /** Ids as a JSON array of integers or a comma-separated string ("1,2,3"). */
  ids(key: string): number[] | undefined {
    const value = this.raw(key)
    if (value === undefined || value === null) return undefined
    const items = listItems(value)
    if (items === undefined) {
      throw invalid(
        this.nameOf(key),
        'must be an array of integer ids or a comma-separated list of ids',
      )
    }
    return items.map((item, index) => {
      const id = toInteger(item)
      if (id === undefined || id < 1) {
        throw invalid(
          `${this.nameOf(key)}[${index}]`,
          `must be a positive integer id, got ${describe(item)}`,
        )
      }
      return id
    })
  }

  /** Ids or names (as batch and molecule `projects` accept). */
  idsOrNames(key: string): (number | string)[] | undefined {
    const value = this.raw(key)
    if (value === undefined || value === null) return undefined
    const items = listItems(value)
    if (items === undefined) throw invalid(this.nameOf(key), 'must be an array of ids or names')
    return items.map((item, index) => {
      const id = toInteger(item)
      if (id !== undefined) return id
      if (typeof item === 'string' && item.trim() !== '') return item.trim()
      throw invalid(
        `${this.nameOf(key)}[${index}]`,
        `must be an id or a name, got ${describe(item)}`,
      )
    })
  }

  strings(key: string): string[] | undefined {
    const value = this.raw(key)
    if (value === undefined || value === null) return undefined
    const items = listItems(value)
    if (items === undefined) throw invalid(this.nameOf(key), 'must be an array of strings')
    return items.map((item, index) => {
      if (typeof item !== 'string')
        throw invalid(`${this.nameOf(key)}[${index}]`, 'must be a string')
      return item
    })
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], fallback: T): T
  oneOf<T extends string>(key: string, allowed: readonly T[]): T | undefined
  oneOf<T extends string>(key: string, allowed: readonly T[], fallback?: T): T | undefined {
    const value = this.raw(key)
    if (value === undefined || value === null || value === '') return fallback
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      throw invalid(
        this.nameOf(key),
        `must be one of ${allowed.map((item) => `'${item}'`).join(', ')}, got ${describe(value)}`,
      )
    }
    return value as T
  }

  /** A date parameter in any of the three accepted formats. */
  date(key: string, precision: DatePrecision = 'second'): number | undefined {
    const value = this.raw(key)
    if (value === undefined || value === null || value === '') return undefined
    if (typeof value !== 'string')
      throw invalid(this.nameOf(key), `must be a date string, got ${describe(value)}`)
    try {
      return parseDateParameter(value, this.#timeZone, precision)
    } catch (error) {
      if (error instanceof DateFormatError) throw invalid(this.nameOf(key), error.message)
      throw error
    }
  }

  /** A nested object member, read with the same rules. */
  object(key: string, options: { required?: boolean } = {}): Params | undefined {
    const value = this.raw(key)
    if (value === undefined || value === null) return this.#absent(key, options.required)
    if (typeof value !== 'object' || Array.isArray(value))
      throw invalid(this.nameOf(key), 'must be an object')
    return new Params(
      value as Record<string, unknown>,
      'body',
      this.#timeZone,
      `${this.nameOf(key)}.`,
    )
  }

  /** An array member whose items are objects. */
  objects(key: string): Params[] | undefined {
    const value = this.raw(key)
    if (value === undefined || value === null) return undefined
    if (!Array.isArray(value)) throw invalid(this.nameOf(key), 'must be an array of objects')
    return value.map((item: unknown, index) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        throw invalid(`${this.nameOf(key)}[${index}]`, 'must be an object')
      }
      return new Params(
        item as Record<string, unknown>,
        'body',
        this.#timeZone,
        `${this.nameOf(key)}[${index}].`,
      )
    })
  }

  /** A free-form object member (user-defined field values), returned as plain data. */
  record(key: string): Record<string, unknown> | undefined {
    const value = this.raw(key)
    if (value === undefined || value === null) return undefined
    if (typeof value !== 'object' || Array.isArray(value))
      throw invalid(this.nameOf(key), 'must be an object')
    return value as Record<string, unknown>
  }

  /** Throws a 422 naming every member that no reader asked for. */
  rejectUnknown(): void {
    const unknown = Object.keys(this.#values).filter((key) => !this.#read.has(key))
    if (unknown.length === 0) return
    const names = unknown.map((key) => `'${this.nameOf(key)}'`).join(', ')
    throw invalid(
      names,
      unknown.length === 1 ? 'is not a known parameter here' : 'are not known parameters here',
    )
  }

  toJSON(): Record<string, unknown> {
    return { ...this.#values }
  }

  #absent(key: string, required: boolean | undefined): undefined {
    if (required) throw invalid(this.nameOf(key), 'is required')
    return undefined
  }
}

function toInteger(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) {
    const number = Number(value.trim())
    return Number.isSafeInteger(number) ? number : undefined
  }
  return undefined
}

function listItems(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value
  if (typeof value === 'string') {
    return value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '')
  }
  if (typeof value === 'number') return [value]
  return undefined
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}
