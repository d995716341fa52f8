/**
 * One readout cell read into a typed value, from every form vaults send: `{value, modifier,
 * outlier, note}` objects, bare scalars in place of the object, numbers, numeric strings
 * (`"1.20E+2"`), qualified strings (`">30000"`, `"<= 1.5 uM"`), words (`"ND"`, `"inactive"`),
 * notes without a value, booleans and dates. Nothing is dropped: what cannot be read as a
 * number, date or boolean is kept as text, as given.
 *
 * How a cell reads depends on its readout definition's data type, when known: on a Text
 * readout everything is text (`"12"` stays the word "12"); on a Number readout a string reads
 * as a number when it is one (optionally qualified, optionally followed by a unit that is
 * either a unit Vault Desk knows or the definition's own label), else as text; on a Date
 * readout ISO dates and timestamps read as dates; on a Boolean readout yes/no and true/false
 * read as booleans; without a data type, numbers and ISO dates are recognized by their form.
 * JSON booleans are booleans on any readout but a Text one. Decimal commas and thousands separators (`1,200`) are
 * ambiguous between locales and stay text; so do `0x10`, `Infinity` and `NaN`. A timestamp
 * without an offset is read as UTC; a plain date is UTC midnight.
 *
 * ## Qualified values
 * A modifier makes a value stand for an interval: `<1` for every value below 1, `<=1` up to
 * and including 1, `>30` above 30, `>=30` from 30 up. `~3` (about 3, also `≈`) is compared as 3
 * and shown with its mark. `=` is no modifier.
 *
 * - **Sorting**: by number; at the same number `<` comes before `<=`, the plain value (or
 *   `~`), `>=`, then `>`: `<1` sorts just below 1, `>30` just above 30. Typed values come
 *   first in the chosen direction, then text (ASCII letters case-insensitive, as SQLite's
 *   NOCASE), then empty cells, in both directions: a descending sort does not bring `ND` or
 *   blanks to the top. (`modifierRank` is the tie-break as a number, for ORDER BY.)
 * - **Filtering** (`comparisons.ts`): in results tables and for aggregates, a qualified value
 *   meets a comparison only when every value it stands for meets it. `>30` meets `> 10`,
 *   `>= 30` and `> 30`, but not `< 40`, `= 30` or `from 10 to 100`; `<1` meets `< 1`, `<= 1` and
 *   `< 5`, but not `> 0.5`. `!=` is met when the interval leaves the value out: `>30` meets
 *   `!= 30` and `!= 5` but not `!= 50`. A scientist asking for IC50 below 1 µM wants `<0.5` and
 *   not `>30`, though the bound 30 is a number below 40. Text never meets a numeric comparison.
 * - **Criteria on readout rows** (`criteria.ts`, "any row meets it") mean what the vault's own
 *   protocol criteria mean, so that a search gives the same records offline as online: the vault
 *   compares a qualified value's bound as a plain number (`>200` meets `< 300`), and so do they
 *   (`asBound`). Asking the aggregate instead is the interval rule above.
 *
 * ## Units
 * A cell may carry its own unit (`"300 nM"`, or a `unit` member). `inDefinitionUnit` converts
 * it to the definition's unit before sorting, filtering or aggregating; a value whose unit
 * cannot be converted becomes text, shown as given (`"5 kg"` in a µM column).
 */
import { isObject } from '../../values.ts'
import { convertValue, isKnownUnit, parseUnit } from './units.ts'

export type Modifier = '<' | '<=' | '>' | '>=' | '~'

export interface EmptyValue {
  kind: 'empty'
}

export interface NumberValue {
  kind: 'number'
  value: number
  modifier: Modifier | null
  /** The cell's own unit; null when it has none (its definition's unit applies). */
  unit: string | null
  /** The number as given, without modifier or unit: "1.20E+2", "30000", "0.3". */
  text: string
}

export interface TextValue {
  kind: 'text'
  text: string
}

export interface DateValue {
  kind: 'date'
  epochMs: number
  /** As given: "2024-03-05" or "2024-03-05T10:00:00Z". */
  text: string
}

export interface BooleanValue {
  kind: 'boolean'
  value: boolean
  /** "Yes" or "No". */
  text: string
}

export type ReadoutValue = EmptyValue | NumberValue | TextValue | DateValue | BooleanValue

/** A readout cell: its value, outlier flag and note. */
export interface ReadCell {
  value: ReadoutValue
  outlier: boolean
  note: string | null
}

/** What a definition's data type says its cells hold; `any` when it does not say. */
export type ValueType = 'number' | 'text' | 'date' | 'boolean' | 'any'

/** What reading a cell needs to know of its readout definition. */
export interface CellContext {
  valueType?: ValueType
  /** The definition's unit label: a number followed by it reads as a number. */
  unit?: string | null
}

export const EMPTY: EmptyValue = Object.freeze({ kind: 'empty' })

/** A definition's `data_type` ("Number", "Text", "Date"...) as the kind of value it holds. */
export function valueTypeOf(dataType: unknown): ValueType {
  const type = typeof dataType === 'string' ? dataType.trim().toLowerCase() : ''
  if (['number', 'numeric', 'float', 'decimal', 'integer', 'double', 'real'].includes(type))
    return 'number'
  if (['text', 'string', 'pick list', 'picklist', 'file', 'url'].includes(type)) return 'text'
  if (['date', 'datetime', 'date time', 'timestamp'].includes(type)) return 'date'
  if (['boolean', 'bool', 'yes/no', 'checkbox'].includes(type)) return 'boolean'
  return 'any'
}

const MODIFIERS: Record<string, Modifier | null> = {
  '<': '<',
  '>': '>',
  '<=': '<=',
  '=<': '<=',
  '≤': '<=',
  '>=': '>=',
  '=>': '>=',
  '≥': '>=',
  '~': '~',
  '≈': '~',
  '=': null,
  '==': null,
}

/**
 * An optional modifier, a decimal number with an optional exponent, then whatever follows (a
 * unit, or words that make the string text). Unicode minus signs count as minus.
 */
const QUALIFIED_NUMBER =
  /^(<=|>=|=<|=>|==|<|>|≤|≥|=|~|≈)?\s*([+\-−]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+\-−]?\d+)?)\s*(.*)$/s

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})?)?$/

const BOOLEAN_WORDS: Record<string, boolean> = { true: true, yes: true, false: false, no: false }

/** Reads one cell as the vault sent it (an object, a bare scalar, or nothing). */
export function readReadoutCell(raw: unknown, context: CellContext = {}): ReadCell {
  if (!isObject(raw))
    return { value: readValue(raw, undefined, null, context), outlier: false, note: null }
  const unit =
    typeof raw.unit === 'string'
      ? raw.unit
      : typeof raw.unit_label === 'string'
        ? raw.unit_label
        : null
  return {
    value: readValue(raw.value, raw.modifier, unit, context),
    outlier: isOutlierFlag(raw.outlier),
    note: noteOf(raw.note),
  }
}

function isOutlierFlag(value: unknown): boolean {
  if (value === true || value === 1) return true
  if (typeof value !== 'string') return false
  const text = value.trim().toLowerCase()
  return text === 'true' || text === '1' || text === 'yes'
}

function noteOf(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim()
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return null
}

/**
 * Reads a value with the object's modifier and unit members (undefined when the value came
 * bare). A modifier member that is not a known mark, or that contradicts a mark inside the value
 * string, leaves the whole as text: its meaning is unclear, so it is shown as given.
 */
function readValue(
  value: unknown,
  modifierMember: unknown,
  unitMember: string | null,
  context: CellContext = {},
): ReadoutValue {
  if (value === null || value === undefined) return EMPTY
  const mark = typeof modifierMember === 'string' ? modifierMember.trim() : ''
  const member = mark === '' ? null : MODIFIERS[mark]
  const type = context.valueType ?? 'any'
  if (type === 'text' || typeof value === 'object') {
    const text = typeof value === 'object' ? JSON.stringify(value) : String(value).trim()
    return text === '' ? EMPTY : { kind: 'text', text: withMark(mark, text) }
  }
  if (typeof value === 'boolean') return booleanValue(value)
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || member === undefined)
      return { kind: 'text', text: withMark(mark, String(value)) }
    const unit = cleanUnit(unitMember)
    return { kind: 'number', value, modifier: member, unit, text: String(value) }
  }
  if (typeof value !== 'string') return { kind: 'text', text: String(value) }
  const text = value.trim()
  if (text === '') return EMPTY
  const asGiven: TextValue = { kind: 'text', text: withMark(mark, text) }
  if (member === undefined) return asGiven
  if (type === 'boolean') {
    const flag = BOOLEAN_WORDS[text.toLowerCase()]
    return flag === undefined || member !== null ? asGiven : booleanValue(flag)
  }
  if (type === 'date' || type === 'any') {
    const date = member === null ? readDate(text) : null
    if (date) return date
    if (type === 'date') return asGiven
  }
  const match = QUALIFIED_NUMBER.exec(text)
  if (!match) return asGiven
  const inlineMark = match[1]
  const digits = match[2] ?? ''
  const suffix = match[3] ?? ''
  const inline = inlineMark === undefined ? null : (MODIFIERS[inlineMark] ?? null)
  if (inlineMark !== undefined && member !== null && inline !== member) return asGiven
  const number = Number(digits.includes('−') ? digits.replace(/−/g, '-') : digits)
  if (!Number.isFinite(number)) return asGiven
  let unit = cleanUnit(unitMember)
  if (suffix !== '') {
    if (!isKnownUnit(suffix) && suffix !== (context.unit?.trim() ?? '')) return asGiven
    unit = suffix
  }
  return { kind: 'number', value: number, modifier: inline ?? member, unit, text: digits }
}

/** A mark written before a value: symbols touch it (">30"), words do not ("ca. 30"). */
function withMark(mark: string, text: string): string {
  if (mark === '') return text
  return /^[<>=~≈≤≥]+$/.test(mark) ? `${mark}${text}` : `${mark} ${text}`
}

function cleanUnit(unit: string | null): string | null {
  return unit === null || parseUnit(unit) === null ? null : unit.trim()
}

function booleanValue(value: boolean): BooleanValue {
  return { kind: 'boolean', value, text: value ? 'Yes' : 'No' }
}

/** An ISO 8601 date or timestamp as a date value; null when the text is not one. */
export function readDate(text: string): DateValue | null {
  const match = ISO_DATE.exec(text.trim())
  if (!match) return null
  const [, year, month, day, hour, minute, second, fraction, zone] = match
  const y = Number(year)
  const m = Number(month)
  const d = Number(day)
  const epochDay = Date.UTC(y, m - 1, d)
  const check = new Date(epochDay)
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d)
    return null
  let epochMs = epochDay
  if (hour !== undefined) {
    const h = Number(hour)
    const min = Number(minute)
    const s = second === undefined ? 0 : Number(second)
    if (h > 23 || min > 59 || s > 59) return null
    epochMs += ((h * 60 + min) * 60 + s) * 1000
    if (fraction !== undefined) epochMs += Math.floor(Number(`0.${fraction}`) * 1000)
    if (zone !== undefined && zone !== 'Z') {
      const sign = zone.startsWith('-') ? -1 : 1
      const digits = zone.slice(1).replace(':', '')
      const offset = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))
      epochMs -= sign * offset * 60_000
    }
  }
  return { kind: 'date', epochMs, text: text.trim() }
}

/**
 * The value in its definition's unit: a number with a unit of its own is converted (and loses
 * it); one whose unit cannot be converted becomes text as given ("5 kg"), with the reason.
 */
export function inDefinitionUnit(
  value: ReadoutValue,
  definitionUnit: string | null | undefined,
): { value: ReadoutValue; unconvertible: string | null } {
  if (value.kind !== 'number' || value.unit === null) return { value, unconvertible: null }
  const conversion = convertValue(value.value, parseUnit(value.unit), parseUnit(definitionUnit))
  if (conversion.ok)
    return { value: { ...value, value: conversion.value, unit: null }, unconvertible: null }
  return {
    value: { kind: 'text', text: `${value.modifier ?? ''}${value.text} ${value.unit}` },
    unconvertible: conversion.message,
  }
}

/** The text a person sees and `contains` searches: the number as given, "Yes", the date. */
export function searchText(value: ReadoutValue): string | null {
  return value.kind === 'empty' ? null : value.text
}

/** The value as shown: the modifier, the number as given and its unit, or the text. */
export function givenText(value: ReadoutValue): string {
  if (value.kind !== 'number') return value.kind === 'empty' ? '' : value.text
  const unit = value.unit === null ? '' : ` ${value.unit}`
  return `${value.modifier ?? ''}${value.text}${unit}`
}

const MODIFIER_RANK: Record<Modifier, number> = { '<': -2, '<=': -1, '~': 0, '>=': 1, '>': 2 }

/** The order of qualified values at the same number: `<` -2, `<=` -1, plain 0, `>=` 1, `>` 2. */
export function modifierRank(modifier: Modifier | null): number {
  return modifier === null ? 0 : MODIFIER_RANK[modifier]
}

const KIND_ORDER: Record<ReadoutValue['kind'], number> = {
  number: 0,
  date: 1,
  boolean: 2,
  text: 3,
  empty: 4,
}

/**
 * Orders two values (in their definition's unit) for a sorted column: typed values in the
 * given direction, then text in the given direction, then empty cells. See the module comment.
 */
export function compareReadoutValues(
  first: ReadoutValue,
  second: ReadoutValue,
  direction: 'ascending' | 'descending' = 'ascending',
): number {
  const sign = direction === 'ascending' ? 1 : -1
  if (first.kind !== second.kind) return KIND_ORDER[first.kind] - KIND_ORDER[second.kind]
  switch (first.kind) {
    case 'empty':
      return 0
    case 'number': {
      const other = second as NumberValue
      const byNumber = first.value - other.value
      if (byNumber !== 0) return sign * Math.sign(byNumber)
      return sign * (modifierRank(first.modifier) - modifierRank(other.modifier))
    }
    case 'date':
      return sign * Math.sign(first.epochMs - (second as DateValue).epochMs)
    case 'boolean':
      return sign * (Number(first.value) - Number((second as BooleanValue).value))
    case 'text':
      return sign * compareText(first.text, (second as TextValue).text)
  }
}

/** ASCII letters without case, as SQLite's NOCASE and LIKE; then by code unit. */
export function compareText(first: string, second: string): number {
  const folded = compareCodeUnits(asciiLower(first), asciiLower(second))
  return folded !== 0 ? folded : compareCodeUnits(first, second)
}

function compareCodeUnits(first: string, second: string): number {
  return first < second ? -1 : first > second ? 1 : 0
}

/** Lower-cases A-Z only, as SQLite does for NOCASE and LIKE. */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase())
}
