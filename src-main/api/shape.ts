import { ApiError } from './errors.ts'

/**
 * Tolerant readers of server answers. Each checks one value and coerces the variations real
 * servers send (ids and numbers as strings, booleans as strings, timestamps in any offset) to one
 * form. Objects are checked member by member for the members this client knows and are changed in
 * place: unknown members stay as they came, and a page of a thousand records costs no copying.
 * Hand-written rather than zod because paging 100k records must add little to JSON.parse.
 */
export type Parser<T> = (value: unknown) => T

/** A member that may be absent or null. */
export interface OptionalParser<T> extends Parser<T | null | undefined> {
  readonly optional: true
}

export class ShapeError extends Error {
  override name = 'ShapeError'
  readonly path: (string | number)[] = []
  readonly expected: string
  readonly value: unknown

  constructor(expected: string, value: unknown) {
    super(`expected ${expected}`)
    this.expected = expected
    this.value = value
  }

  describe(): string {
    const at = this.path.reduce<string>(
      (text, step) =>
        typeof step === 'number' ? `${text}[${step}]` : text ? `${text}.${step}` : step,
      '',
    )
    return `${at || 'the answer'}: expected ${this.expected}, got ${preview(this.value)}`
  }
}

function preview(value: unknown): string {
  if (value === undefined) return 'nothing'
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

export const integer: Parser<number> = (value) => {
  if (typeof value === 'number' && Number.isInteger(value)) return value
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value)
  throw new ShapeError('an integer', value)
}

export const number: Parser<number> = (value) => {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value)
    if (Number.isFinite(parsed)) return parsed
  }
  throw new ShapeError('a number', value)
}

const trueTexts = new Set(['true', '1', 'yes', 't'])
const falseTexts = new Set(['false', '0', 'no', 'f'])

export const boolean: Parser<boolean> = (value) => {
  if (typeof value === 'boolean') return value
  if (value === 1 || value === 0) return value === 1
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase()
    if (trueTexts.has(text)) return true
    if (falseTexts.has(text)) return false
  }
  throw new ShapeError('a boolean', value)
}

export const string: Parser<string> = (value) => {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  throw new ShapeError('a string', value)
}

export const anything: Parser<unknown> = (value) => value

const canonicalTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const plainDate = /^\d{4}-\d{2}-\d{2}$/
const anyTimestamp =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(\.\d+)?\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?$/i

/**
 * Timestamps come with or without fractions and in UTC or a local offset; they are given back in
 * UTC (`...Z`) with the fraction as sent, so they sort as text and keep microseconds where the
 * server has them. A timestamp without an offset is read as UTC; a plain date stays a plain date.
 */
export const timestamp: Parser<string> = (value) => {
  if (typeof value !== 'string') throw new ShapeError('an ISO 8601 timestamp', value)
  if (canonicalTimestamp.test(value) || plainDate.test(value)) return value
  const match = anyTimestamp.exec(value.trim())
  if (!match) throw new ShapeError('an ISO 8601 timestamp', value)
  const [, year, month, day, hour, minute, second = '00', fraction = '', offset = 'Z'] = match
  let offsetMinutes = 0
  if (/^[+-]/.test(offset)) {
    const digits = offset.slice(1).replace(':', '')
    offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0')
    if (offset.startsWith('-')) offsetMinutes = -offsetMinutes
  }
  const utc =
    Date.UTC(
      Number(year),
      Number(month) - 1,
      Number(day),
      Number(hour),
      Number(minute),
      Number(second),
    ) -
    offsetMinutes * 60_000
  if (Number.isNaN(utc)) throw new ShapeError('an ISO 8601 timestamp', value)
  return `${new Date(utc).toISOString().slice(0, 19)}${fraction}Z`
}

export function optional<T>(parse: Parser<T>): OptionalParser<T> {
  const parser = (value: unknown) => (value === undefined || value === null ? value : parse(value))
  return Object.assign(parser, { optional: true as const })
}

export function arrayOf<T>(item: Parser<T>): Parser<T[]> {
  return (value) => {
    if (!Array.isArray(value)) throw new ShapeError('an array', value)
    for (let index = 0; index < value.length; index++) {
      try {
        const parsed = item(value[index])
        if (parsed !== value[index]) value[index] = parsed
      } catch (error) {
        if (error instanceof ShapeError) error.path.unshift(index)
        throw error
      }
    }
    return value as T[]
  }
}

/** An object used as a map (`batch_fields`, `readouts`): each value checked by `item`. */
export function mapOf<T>(item: Parser<T>): Parser<Record<string, T>> {
  return (value) => {
    const object = asObject(value)
    for (const key of Object.keys(object)) {
      try {
        const parsed = item(object[key])
        if (parsed !== object[key]) object[key] = parsed
      } catch (error) {
        if (error instanceof ShapeError) error.path.unshift(key)
        throw error
      }
    }
    return object as Record<string, T>
  }
}

/**
 * Members that hold either an id or the record it names (a batch's molecule, or only its id with
 * only_molecule_ids). Decided by the value's type, so that no exception is thrown per record.
 */
export function idOr<T>(record: Parser<T>): Parser<number | T> {
  return (value) => (value !== null && typeof value === 'object' ? record(value) : integer(value))
}

export type Fields = Record<string, Parser<unknown>>

type RequiredKeys<F extends Fields> = {
  [K in keyof F]: F[K] extends OptionalParser<unknown> ? never : K
}[keyof F]

type Output<P> = P extends Parser<infer T> ? T : never

/** Members this client knows, typed; any other member the server sent is kept as `unknown`. */
export type Known<F extends Fields> = { [K in RequiredKeys<F>]: Output<F[K]> } & {
  [K in Exclude<keyof F, RequiredKeys<F>>]?: Output<F[K]>
} & { [member: string]: unknown }

export type Infer<P> = P extends Parser<infer T> ? T : never

function asObject(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ShapeError('an object', value)
  }
  return value as Record<string, unknown>
}

export function object<F extends Fields>(fields: F): Parser<Known<F>> {
  const members = Object.entries(fields).map(([key, parse]) => ({
    key,
    parse,
    optional: (parse as Partial<OptionalParser<unknown>>).optional === true,
  }))
  return (value) => {
    const target = asObject(value)
    for (const { key, parse, optional: isOptional } of members) {
      const raw = target[key]
      if (raw === undefined && isOptional) continue
      try {
        const parsed = parse(raw)
        if (parsed !== raw) target[key] = parsed
      } catch (error) {
        if (error instanceof ShapeError) error.path.unshift(key)
        throw error
      }
    }
    return target as Known<F>
  }
}

/** Reads a whole answer; a shape that breaks becomes an ApiError naming where and what. */
export function readAnswer<T>(operation: string, parse: Parser<T>, value: unknown): T {
  try {
    return parse(value)
  } catch (error) {
    if (!(error instanceof ShapeError)) throw error
    throw new ApiError({
      kind: 'bad_response',
      operation,
      message: `unexpected answer: ${error.describe()}.`,
      cause: error,
    })
  }
}
