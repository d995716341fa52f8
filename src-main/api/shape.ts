import { ApiError } from './errors.ts'
import { toFlag, toId, toNumber } from '../../src-common/values.ts'

/**
 * Tolerant readers of server answers. Each checks one value and coerces the variations real
 * servers send (ids and numbers as strings, booleans as strings, timestamps in any offset) to one
 * form. Objects are checked member by member for the members this client knows and are changed in
 * place: unknown members stay as they came, and a page of a thousand records costs no copying.
 * Hand-written rather than zod because paging 100k records must add little to JSON.parse: the
 * readers of objects, arrays and maps first test each value for the form its reader gives back (a
 * number that is an integer, a string, a canonical timestamp...) inline, and call the reader only
 * for a value that fails the test (to coerce it or to throw) or that has members of its own.
 */
export type Parser<T> = (value: unknown) => T

/** A member that may be absent or null. */
export interface OptionalParser<T> extends Parser<T | null | undefined> {
  readonly optional: true
  /** The reader of a value that is present. */
  readonly present: Parser<T>
}

/**
 * What the readers of the built-in scalars accept unchanged, so that a container can pass a value
 * already in that form without calling the reader: `Check.integer` is a number that is an integer,
 * and so on. `Check.none`: always call the reader.
 */
const Check = {
  none: 0,
  integer: 1,
  number: 2,
  string: 3,
  boolean: 4,
  anything: 5,
  timestamp: 6,
} as const
type Check = (typeof Check)[keyof typeof Check]

const checks = new WeakMap<Parser<unknown>, Check>()

/**
 * How many values the readers of containers have replaced with what a reader gave back, ever. A
 * caller that finds it unchanged after reading a record knows the record is still exactly what
 * its JSON text says (so that text may be stored instead of serializing the record again).
 */
const tally = { replaced: 0, keptAsGiven: 0 }

/**
 * Above zero while a record of a list is read (`readLeniently`): then a member this client reads
 * but finds in a shape it does not expect is kept as the server sent it instead of failing the
 * record, and with it the page. Real vaults send forms the specification does not name (a
 * readout cell as a bare number, a range in `value`); what reads records from the cache reads
 * such members tolerantly, shown as given. Only a required member (a record's id) that cannot be
 * read still fails the record: it is set aside by the list's reader (envelope.ts).
 */
let lenience = 0

/** Reads `value` with `read`, keeping members of unexpected shapes as given (see `lenience`). */
export function readLeniently<T>(read: (value: unknown) => T, value: unknown): T {
  lenience++
  try {
    return read(value)
  } finally {
    lenience--
  }
}

/** How many members lenient reading has kept as given, ever (for tests and diagnostics). */
export function keptAsGiven(): number {
  return tally.keptAsGiven
}

export function replacedValues(): number {
  return tally.replaced
}

/**
 * Reads `value` with `read`, and tells whether what came back is exactly the value as it came (no
 * reader replaced anything in it), so that its JSON text may be stored as it is.
 */
export function readExactly<T>(
  read: (value: unknown) => T,
  value: unknown,
): { read: T; exact: boolean } {
  const replaced = tally.replaced
  const result = read(value)
  return { read: result, exact: result === value && tally.replaced === replaced }
}

function checkOf(parse: Parser<unknown>): Check {
  return checks.get(parse) ?? Check.none
}

/** True when `value` is what a reader of this kind would give back unchanged. */
function passes(check: Check, value: unknown): boolean {
  switch (check) {
    case Check.integer:
      return typeof value === 'number' && Number.isInteger(value)
    case Check.number:
      return typeof value === 'number' && Number.isFinite(value)
    case Check.string:
      return typeof value === 'string'
    case Check.boolean:
      return typeof value === 'boolean'
    case Check.anything:
      return true
    case Check.timestamp:
      return typeof value === 'string' && isCanonicalTimestamp(value)
    default:
      return false
  }
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
  const id = toId(value)
  if (id !== null) return id
  throw new ShapeError('an integer', value)
}

export const number: Parser<number> = (value) => {
  const read = toNumber(value)
  if (read !== null) return read
  throw new ShapeError('a number', value)
}

export const boolean: Parser<boolean> = (value) => {
  const flag = toFlag(value)
  if (flag !== null) return flag === 1
  throw new ShapeError('a boolean', value)
}

export const string: Parser<string> = (value) => {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  throw new ShapeError('a string', value)
}

export const anything: Parser<unknown> = (value) => value

/**
 * The forms given back as they came: `YYYY-MM-DDThh:mm:ss[.fraction]Z` and a plain date. (One
 * regular expression: testing the characters one at a time in JavaScript is slower.)
 */
const canonicalTimestamp = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)?$/
/** The last text that passed: a record's timestamps are often the same (created, modified). */
let lastCanonical = '1970-01-01'

function isCanonicalTimestamp(text: string): boolean {
  if (text === lastCanonical) return true
  if (!canonicalTimestamp.test(text)) return false
  lastCanonical = text
  return true
}

const anyTimestamp =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(\.\d+)?\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?$/i

/**
 * Timestamps come with or without fractions and in UTC or a local offset; they are given back in
 * UTC (`...Z`) with the fraction as sent, so they sort as text and keep microseconds where the
 * server has them. A timestamp without an offset is read as UTC; a plain date stays a plain date.
 */
export const timestamp: Parser<string> = (value) => {
  if (typeof value !== 'string') throw new ShapeError('an ISO 8601 timestamp', value)
  if (isCanonicalTimestamp(value)) return value
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

checks.set(integer, Check.integer)
checks.set(number, Check.number)
checks.set(string, Check.string)
checks.set(boolean, Check.boolean)
checks.set(anything, Check.anything)
checks.set(timestamp, Check.timestamp)

export function optional<T>(parse: Parser<T>): OptionalParser<T> {
  const parser = (value: unknown) => (value === undefined || value === null ? value : parse(value))
  return Object.assign(parser, { optional: true as const, present: parse })
}

/**
 * Reads `container[key]` with `parse` and stores what it gives back if that differs; a fault is
 * named by `key`. The slow path of the readers below.
 */
function readMember(
  container: Record<string | number, unknown>,
  key: string | number,
  parse: Parser<unknown>,
): void {
  const raw = container[key]
  try {
    const parsed = parse(raw)
    if (parsed !== raw) {
      container[key] = parsed
      tally.replaced++
    }
  } catch (error) {
    if (error instanceof ShapeError) error.path.unshift(key)
    throw error
  }
}

/**
 * `readMember` for a member that may be left as it came: when reading leniently, a member the
 * reader refuses stays as the server sent it.
 */
function readMemberOrKeep(
  container: Record<string | number, unknown>,
  key: string | number,
  parse: Parser<unknown>,
): void {
  if (lenience === 0) {
    readMember(container, key, parse)
    return
  }
  try {
    readMember(container, key, parse)
  } catch (error) {
    if (!(error instanceof ShapeError)) throw error
    tally.keptAsGiven++
  }
}

export function arrayOf<T>(item: Parser<T>): Parser<T[]> {
  const check = checkOf(item)
  return (value) => {
    if (!Array.isArray(value)) throw new ShapeError('an array', value)
    let index = 0
    try {
      for (; index < value.length; index++) {
        const raw: unknown = value[index]
        if (passes(check, raw)) continue
        if (lenience > 0) {
          readMemberOrKeep(
            value as unknown as Record<number, unknown>,
            index,
            item as Parser<unknown>,
          )
          continue
        }
        const parsed = item(raw)
        if (parsed !== raw) {
          value[index] = parsed
          tally.replaced++
        }
      }
    } catch (error) {
      if (error instanceof ShapeError) error.path.unshift(index)
      throw error
    }
    return value as T[]
  }
}

/** An object used as a map (`batch_fields`, `readouts`): each value checked by `item`. */
export function mapOf<T>(item: Parser<T>): Parser<Record<string, T>> {
  const check = checkOf(item)
  if (check === Check.anything) return (value) => asObject(value) as Record<string, T>
  return (value) => {
    const object = asObject(value)
    for (const key in object) {
      if (!Object.hasOwn(object, key)) continue
      if (!passes(check, object[key])) readMemberOrKeep(object, key, item)
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

/** The condition, in JavaScript, under which the value `v` passes `check` unchanged. */
function passesSource(check: Check): string | undefined {
  switch (check) {
    case Check.integer:
      return "typeof v === 'number' && Number.isInteger(v)"
    case Check.number:
      return "typeof v === 'number' && Number.isFinite(v)"
    case Check.string:
      return "typeof v === 'string'"
    case Check.boolean:
      return "typeof v === 'boolean'"
    case Check.anything:
      return 'true'
    case Check.timestamp:
      return "typeof v === 'string' && isCanonicalTimestamp(v)"
    default:
      return undefined
  }
}

interface Member {
  key: string
  parse: Parser<unknown>
  optional: boolean
  check: Check
}

/**
 * An object reader's members compiled into one function: every member read by its name (a
 * property load the engine learns once per reader; a load by a name held in a variable, as in the
 * loop of `object`, costs several times what JSON.parse spent making the value), the built-in
 * scalars tested inline and their readers called only for a value to coerce, nested readers called
 * in place. It answers false when a member is missing or a reader throws, and the member loop of
 * `object` then reads the record again from the start to name the fault: what the first reading
 * stored is in the form its reader gives back, and every reader gives such a value back
 * unchanged, so the second reading finds what one reading would. The source is made only from
 * fixed text and the member names written in this module's callers (as JSON string literals):
 * nothing a server sends ever reaches it. Where code generation is turned off
 * (--disallow-code-generation-from-strings) there is no compiled reader and the loop does it all.
 */
function compileMembers(
  members: Member[],
): ((target: Record<string, unknown>) => boolean) | undefined {
  const lines = ['let v, r', 'try {']
  for (let slot = 0; slot < members.length; slot++) {
    const { key, optional: isOptional, check } = members[slot]!
    const passing = passesSource(check)
    // A member read by `anything` takes whatever is there, even nothing.
    if (passing === 'true') continue
    const name = JSON.stringify(key)
    lines.push(`v = o[${name}]`)
    lines.push(
      isOptional
        ? 'if (v !== undefined && v !== null) {'
        : 'if (v === undefined || v === null) return false; {',
    )
    if (passing !== undefined) lines.push(`if (!(${passing})) {`)
    lines.push(`r = parsers[${slot}](v)`, `if (r !== v) { o[${name}] = r; tally.replaced++ }`)
    lines.push(passing !== undefined ? '}}' : '}')
  }
  lines.push('} catch { return false }', 'return true')
  try {
    const make = new Function(
      'parsers',
      'isCanonicalTimestamp',
      'tally',
      `'use strict'\nreturn (o) => {\n${lines.join('\n')}\n}`,
    ) as (
      parsers: Parser<unknown>[],
      canonical: (text: string) => boolean,
      counts: typeof tally,
    ) => (target: Record<string, unknown>) => boolean
    return make(
      members.map((member) => member.parse),
      isCanonicalTimestamp,
      tally,
    )
  } catch {
    return undefined
  }
}

/**
 * Reads the members this client knows, in the order given, and leaves the others alone. The
 * members are read by a compiled function (`compileMembers`); the loop here names the member at
 * fault, and does it all where code generation is turned off.
 */
export function object<F extends Fields>(fields: F): Parser<Known<F>> {
  const members: Member[] = Object.entries(fields).map(([key, parse]) => {
    const isOptional = (parse as Partial<OptionalParser<unknown>>).optional === true
    const present = isOptional ? (parse as OptionalParser<unknown>).present : parse
    return { key, parse: present, optional: isOptional, check: checkOf(present) }
  })
  const compiled = compileMembers(members)
  const loop = (target: Record<string, unknown>) => {
    for (const { key, parse, optional: isOptional, check } of members) {
      const raw = target[key]
      if (raw === undefined || raw === null) {
        if (isOptional) continue
      } else if (passes(check, raw)) continue
      if (isOptional) readMemberOrKeep(target, key, parse)
      else readMember(target, key, parse)
    }
  }
  return (value) => {
    const target = asObject(value)
    if (compiled === undefined || !compiled(target)) loop(target)
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
