/**
 * The text form of results criteria, as the CLI takes them (`--readout '...'`, one criterion
 * each) and as they are shown, resolved against a catalogue of protocols and readout definitions.
 *
 * ```
 * criterion   = [("and" | "or") " "] ["not" " "] (protocol-criterion | run-clause)
 * protocol-criterion = name [":" readout-part] [";" run-clause]
 * readout-part = ["aggregate" " "] readout [comparison]
 * comparison  = op value [unit]
 *             | "from" value [unit] "to" value [unit]
 *             | ("contains" | "does not contain") text
 * op          = "=" | "!=" | "<" | ">" | "<=" | ">=" (also "≠" "<>" "≤" "≥" "=<" "=>" "==")
 * run-clause  = "run date from" day ["to" day] | "run date to" day | "run date on" day
 *             | "run date after" day | "run date before" day
 *             | "run in the last" n ("day" | "days") | "run" run-id
 * ```
 *
 * - Keywords ignore case and are followed by a space. `and`/`or` joins the criterion to those
 *   before it (AND when absent). `not` negates it: "not in the protocol", or not meeting the
 *   comparison.
 * - A protocol name runs to the first `:` or `;`, so an unquoted name cannot hold either; a name
 *   in double quotes can hold anything (`\"` and `\\` escape). A name that begins with a keyword
 *   (`Not Tested Panel`) is taken as the name when it names a protocol; quoting says so always.
 * - The readout is the longest readout name of that protocol that begins the readout part (so
 *   names may hold spaces, parentheses or words like `from`), or a quoted name. `aggregate`
 *   before it asks that the aggregate meet the comparison instead of any row. A readout without
 *   a comparison asks for a cell of it.
 * - A number may be followed by a unit, which is converted to the readout's unit (`IC50 < 1 uM`
 *   on a readout kept in nM is `< 1000`); without a unit the value is in the readout's unit. In
 *   `from a to b` a unit given on one end only applies to both. Bounds are inclusive, as the
 *   vault's `from`.
 * - Text values may be bare (to the end, trimmed) or quoted; on a numeric readout `=` and `!=`
 *   take text only in quotes (`IC50 = "ND"` finds cells that say ND), so that a mistyped number
 *   is an error and not a search for text. Dates are ISO (`2024-03-05`); booleans yes/no or
 *   true/false.
 * - Run days are ISO days; `from`/`to`/`on` include the day, `after`/`before` do not. "In the
 *   last 30 days" keeps runs from 30 days before today on, as the vault's since_days_ago.
 *
 * Errors are values with a message that says what is wrong and what exists: unknown protocols
 * and readouts list the existing names closest first.
 */
import {
  closestFirst,
  foldName,
  listNames,
  lookUpName,
  type Catalogue,
  type ProtocolEntry,
  type ReadoutDefinitionEntry,
} from './catalogue.ts'
import type { Bound, Comparison } from './comparisons.ts'
import { addDays, type ReadoutTest, type ResultsCriterion, type RunFilter } from './criteria.ts'
import { readDate } from './readout-value.ts'
import { convertValue, parseUnit } from './units.ts'

export interface CriterionError {
  /** The criterion as written. */
  text: string
  /** Its position in a list of criteria, when parsed as one. */
  index?: number
  message: string
  /** Existing names, closest first, for an unknown protocol or readout. */
  suggestions?: string[]
}

export type CriterionParse =
  { ok: true; criterion: ResultsCriterion } | { ok: false; error: CriterionError }

export type CriteriaParse =
  { ok: true; criteria: ResultsCriterion[] } | { ok: false; errors: CriterionError[] }

/** Thrown inside the parser, returned as a `CriterionError` by its entry points. */
class Refusal extends Error {
  readonly suggestions: string[] | undefined
  constructor(message: string, suggestions?: string[]) {
    super(message)
    this.suggestions = suggestions
  }
}

const OPERATORS =
  'one of =, !=, <, >, <=, >=, contains, does not contain, or from ... to ... (a readout alone asks for a cell of it)'

/** Parses several criteria (the CLI's repeated `--readout`); every error is reported. */
export function parseCriteria(texts: readonly string[], catalogue: Catalogue): CriteriaParse {
  const criteria: ResultsCriterion[] = []
  const errors: CriterionError[] = []
  texts.forEach((text, index) => {
    const parsed = parseCriterion(text, catalogue)
    if (parsed.ok) criteria.push(parsed.criterion)
    else errors.push({ ...parsed.error, index })
  })
  return errors.length > 0 ? { ok: false, errors } : { ok: true, criteria }
}

/** Parses one criterion. */
export function parseCriterion(text: string, catalogue: Catalogue): CriterionParse {
  try {
    return { ok: true, criterion: parse(text, catalogue) }
  } catch (error) {
    if (!(error instanceof Refusal)) throw error
    const refused: CriterionError = { text, message: error.message }
    if (error.suggestions) refused.suggestions = error.suggestions
    return { ok: false, error: refused }
  }
}

/** Longer text is refused before any name is compared with it. */
const MAX_LENGTH = 2000

function parse(text: string, catalogue: Catalogue): ResultsCriterion {
  if (text.length > MAX_LENGTH) {
    throw new Refusal(
      `The criterion is ${text.length} characters long; at most ${MAX_LENGTH} are read`,
    )
  }
  let rest = text.trim()
  if (rest === '') {
    throw new Refusal(
      'The criterion is empty: write, for example, "Kinase IC50 (ADP-Glo): IC50 < 1 uM"',
    )
  }
  let junction: ResultsCriterion['junction'] = 'AND'
  let negated = false
  const joined = /^(and|or)\s+/i.exec(rest)
  if (joined && !namesProtocol(rest, catalogue)) {
    junction = joined[1]!.toUpperCase() as 'AND' | 'OR'
    rest = rest.slice(joined[0].length)
  }
  const not = /^not\s+/i.exec(rest)
  if (not && !namesProtocol(rest, catalogue)) {
    negated = true
    rest = rest.slice(not[0].length)
  }
  if (/^runs?\s/i.test(rest) && !namesProtocol(rest, catalogue)) {
    return { junction, negated, protocolId: null, runs: parseRunClause(rest), readout: null }
  }
  const { name, end } = readName(rest, /[:;]/)
  if (name === '') throw new Refusal(`Expected a protocol name before "${rest.slice(end)}"`)
  const protocol = findProtocol(name, catalogue)
  rest = rest.slice(end).trim()
  if (rest !== '' && !rest.startsWith(':') && !rest.startsWith(';')) {
    throw new Refusal(
      `Expected ":" and a readout, or ";" and a run clause, after "${protocol.name}"; got "${rest}"`,
    )
  }
  let readout: ReadoutTest | null = null
  let runs: RunFilter = { kind: 'any' }
  if (rest.startsWith(':')) {
    const semicolon = indexOutsideQuotes(rest, ';', 1)
    const part = rest.slice(1, semicolon).trim()
    if (part === '') {
      throw new Refusal(
        `Expected a readout of "${protocol.name}" after the colon: ${readoutNames(protocol)}`,
      )
    }
    readout = parseReadoutPart(part, protocol)
    rest = rest.slice(semicolon)
  }
  if (rest.startsWith(';')) {
    const clause = rest.slice(1).trim()
    if (clause === '')
      throw new Refusal('Expected a run clause after ";" (for example "run in the last 30 days")')
    runs = parseRunClause(clause)
  }
  return { junction, negated, protocolId: protocol.id, runs, readout }
}

/** Whether the text up to its first `:` or `;` is a protocol's name (it then beats keywords). */
function namesProtocol(text: string, catalogue: Catalogue): boolean {
  if (text.startsWith('"')) return false
  const head = text.split(/[:;]/, 1)[0]!.trim()
  return !('unknown' in lookUpName(head, catalogue))
}

/** A quoted name, or the text up to the first character `stop` matches. */
function readName(text: string, stop: RegExp): { name: string; end: number } {
  if (text.startsWith('"')) return readQuoted(text, 0)
  const match = stop.exec(text)
  const end = match ? match.index : text.length
  return { name: text.slice(0, end).trim(), end }
}

function readQuoted(text: string, start: number): { name: string; end: number } {
  let value = ''
  for (let index = start + 1; index < text.length; index += 1) {
    const character = text[index]!
    if (character === '\\' && index + 1 < text.length) {
      value += text[index + 1]
      index += 1
    } else if (character === '"') return { name: value, end: index + 1 }
    else value += character
  }
  throw new Refusal(`A quoted name or value has no closing quote: ${text.slice(start)}`)
}

function indexOutsideQuotes(text: string, target: string, from: number): number {
  let quoted = false
  for (let index = from; index < text.length; index += 1) {
    const character = text[index]
    if (quoted && character === '\\') index += 1
    else if (character === '"') quoted = !quoted
    else if (!quoted && character === target) return index
  }
  return text.length
}

function findProtocol(name: string, catalogue: Catalogue): ProtocolEntry {
  const lookup = lookUpName(name, catalogue)
  if ('found' in lookup) return lookup.found
  if ('ambiguous' in lookup) {
    throw new Refusal(
      `"${name}" could be any of the protocols ${listNames(lookup.ambiguous.map((entry) => entry.name))}: write the name with its exact case, in quotes`,
    )
  }
  const names = lookup.closest.map((entry) => entry.name)
  if (names.length === 0)
    throw new Refusal(`Unknown protocol "${name}": there are no protocols`, [])
  throw new Refusal(
    `Unknown protocol "${name}". Protocols, closest first: ${listNames(names)}`,
    names,
  )
}

function readoutNames(protocol: ProtocolEntry): string {
  return protocol.readouts.length === 0
    ? 'it has no readouts'
    : `its readouts are ${listNames(protocol.readouts.map((readout) => readout.name))}`
}

function parseReadoutPart(part: string, protocol: ProtocolEntry): ReadoutTest {
  let scope: ReadoutTest['scope'] = 'any row'
  let text = part
  let found = readoutAtStart(text, protocol)
  const aggregate = /^aggregate\s+/i.exec(text)
  if (!found && aggregate) {
    scope = 'aggregate'
    text = text.slice(aggregate[0].length)
    found = readoutAtStart(text, protocol)
  }
  if (!found) {
    const typed = text.startsWith('"') ? readQuoted(text, 0).name : typedReadoutName(text)
    const closest = closestFirst(typed, protocol.readouts).map((readout) => readout.name)
    throw new Refusal(
      closest.length === 0
        ? `Protocol "${protocol.name}" has no readout "${typed}": it has no readouts`
        : `Protocol "${protocol.name}" has no readout "${typed}". Its readouts, closest first: ${listNames(closest)}`,
      closest,
    )
  }
  const { definition, end } = found
  return {
    definitionId: definition.id,
    valueType: definition.valueType,
    unit: definition.unit,
    aggregation: definition.aggregation,
    scope,
    comparison: parseComparison(text.slice(end).trim(), definition),
  }
}

/** The readout a part begins with: quoted, else the longest name that matches. */
function readoutAtStart(
  text: string,
  protocol: ProtocolEntry,
): { definition: ReadoutDefinitionEntry; end: number } | null {
  if (text.startsWith('"')) {
    const { name, end } = readQuoted(text, 0)
    const lookup = lookUpName(name, protocol.readouts)
    return 'found' in lookup ? { definition: lookup.found, end } : null
  }
  let best: { definition: ReadoutDefinitionEntry; end: number; exact: boolean } | null = null
  let tied = false
  for (const definition of protocol.readouts) {
    const end = prefixEnd(text, definition.name)
    if (end < 0 || !/^(?:$|[\s<>=!≤≥≠])/.test(text.slice(end))) continue
    const exact = text.slice(0, end) === definition.name
    if (best === null || end > best.end || (end === best.end && exact && !best.exact)) {
      best = { definition, end, exact }
      tied = false
    } else if (end === best.end && exact === best.exact) tied = true
  }
  if (best && tied) {
    throw new Refusal(
      `"${text.slice(0, best.end)}" names more than one readout of "${protocol.name}": write the name with its exact case, in quotes`,
    )
  }
  return best
}

/** Where `name` ends at the start of `text`, ignoring case and runs of spaces; -1 if not there. */
function prefixEnd(text: string, name: string): number {
  const wanted = foldName(name)
  let position = 0
  let matched = 0
  while (matched < wanted.length) {
    if (position >= text.length) return -1
    const character = text[position]!
    if (/\s/.test(character)) {
      if (wanted[matched] !== ' ' || matched === 0) return -1
      while (position < text.length && /\s/.test(text[position]!)) position += 1
      matched += 1
      continue
    }
    const folded = foldName(character)
    if (!wanted.startsWith(folded, matched) || folded === '') return -1
    matched += folded.length
    position += 1
  }
  return position
}

const OPERATOR_START =
  /\s*(?:<=|>=|=<|=>|!=|<>|==|≤|≥|≠|<|>|=)|\s+(?:contains|does\s+not\s+contain|from)\s/i

function typedReadoutName(text: string): string {
  const match = OPERATOR_START.exec(text)
  return (match ? text.slice(0, match.index) : text).trim()
}

const SYMBOLS: Record<string, '=' | '!=' | '<' | '>' | '<=' | '>='> = {
  '=': '=',
  '==': '=',
  '!=': '!=',
  '<>': '!=',
  '≠': '!=',
  '<': '<',
  '>': '>',
  '<=': '<=',
  '=<': '<=',
  '≤': '<=',
  '>=': '>=',
  '=>': '>=',
  '≥': '>=',
}

function parseComparison(text: string, definition: ReadoutDefinitionEntry): Comparison {
  if (text === '') return { kind: 'present' }
  const words = /^(does\s+not\s+contain|contains)(?:\s+|$)/i.exec(text)
  if (words) {
    const pattern = textOperand(text.slice(words[0].length).trim(), words[1]!)
    const kind = /not/i.test(words[1]!) ? 'does not contain' : 'contains'
    return { kind, text: pattern }
  }
  const range = /^from\s+/i.exec(text)
  if (range) return parseRange(text.slice(range[0].length), definition)
  const symbol = /^(<=|>=|=<|=>|!=|<>|==|≤|≥|≠|<|>|=)\s*/.exec(text)
  if (!symbol) {
    throw new Refusal(
      `Expected an operator after "${definition.name}", ${OPERATORS}; got "${text}"`,
    )
  }
  const operator = SYMBOLS[symbol[1]!]!
  const operand = readOperand(text.slice(symbol[0].length).trim(), definition, operator)
  if (operand.kind === 'text') {
    if (operator === '=' || operator === '!=') {
      return { kind: operator === '=' ? 'text equal' : 'text not equal', text: operand.text }
    }
    throw new Refusal(
      definition.valueType === 'text'
        ? `"${definition.name}" holds text: ${operator} compares numbers or dates; use =, !=, contains or does not contain`
        : `"${definition.name}" needs a number after ${operator}: "${operand.text}" is not one`,
    )
  }
  if (operand.kind === 'boolean') {
    if (operator === '=' || operator === '!=')
      return { kind: 'boolean', value: operand.value === (operator === '=') }
    throw new Refusal(
      `"${definition.name}" holds yes or no: ${operator} does not apply; use = or !=`,
    )
  }
  const value = operand.value
  const scale = operand.kind
  switch (operator) {
    case '=':
      return { kind: 'range', scale, lower: bound(value, true), upper: bound(value, true) }
    case '!=':
      return { kind: 'not equal', scale, value }
    case '<':
    case '<=':
      return { kind: 'range', scale, lower: null, upper: bound(value, operator === '<=') }
    case '>':
    case '>=':
      return { kind: 'range', scale, lower: bound(value, operator === '>='), upper: null }
  }
}

function bound(value: number, inclusive: boolean): Bound {
  return { value, inclusive }
}

function textOperand(text: string, operator: string): string {
  const value = text.startsWith('"') ? quotedValue(text) : text
  if (value === '') throw new Refusal(`Expected text after "${operator}"`)
  return value
}

function quotedValue(text: string): string {
  const { name, end } = readQuoted(text, 0)
  if (text.slice(end).trim() !== '') {
    throw new Refusal(`Unexpected "${text.slice(end).trim()}" after the quoted value "${name}"`)
  }
  return name
}

type Operand =
  | { kind: 'number' | 'date'; value: number }
  | { kind: 'text'; text: string }
  | { kind: 'boolean'; value: boolean }

const NUMBER_WITH_UNIT = /^([+\-−]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+\-−]?\d+)?)\s*(.*)$/s

/** A value as the definition's type reads it; `unitFallback` is a unit given on the other end of a range. */
function readOperand(
  text: string,
  definition: ReadoutDefinitionEntry,
  operator: string,
  unitFallback: string | null = null,
): Operand {
  if (text === '') throw new Refusal(`Expected a value after "${definition.name} ${operator}"`)
  if (text.startsWith('"')) return { kind: 'text', text: quotedValue(text) }
  switch (definition.valueType) {
    case 'text':
      return { kind: 'text', text }
    case 'date': {
      const date = readDate(text)
      if (!date) {
        throw new Refusal(
          `"${definition.name}" holds dates: "${text}" is not a date (write 2024-03-05 or an ISO timestamp)`,
        )
      }
      return { kind: 'date', value: date.epochMs }
    }
    case 'boolean': {
      const word = text.toLowerCase()
      if (word === 'yes' || word === 'true') return { kind: 'boolean', value: true }
      if (word === 'no' || word === 'false') return { kind: 'boolean', value: false }
      throw new Refusal(`"${definition.name}" holds yes or no: "${text}" is neither`)
    }
    default:
      break
  }
  const match = NUMBER_WITH_UNIT.exec(text)
  const number = match ? Number(match[1]!.replace(/−/g, '-')) : Number.NaN
  if (!match || !Number.isFinite(number) || /^[\d+\-−.]/.test(match[2]!)) {
    if (definition.valueType === 'any' && (operator === '=' || operator === '!=')) {
      return { kind: 'text', text }
    }
    throw new Refusal(
      `"${definition.name}" is a numeric readout: "${text}" is not a number` +
        (operator === '=' || operator === '!='
          ? ` (to find cells that say "${text}", quote it: ${definition.name} ${operator} "${text}")`
          : ''),
    )
  }
  const typedUnit = match[2]!.trim()
  const given = typedUnit === '' ? unitFallback : typedUnit
  const conversion = convertValue(number, parseUnit(given), parseUnit(definition.unit))
  if (!conversion.ok) {
    throw new Refusal(
      `Cannot compare "${definition.name}" (${definition.unit ? `kept in ${definition.unit}` : 'no unit'}) with ${match[1]} ${given}: ${conversion.message}`,
    )
  }
  return { kind: 'number', value: conversion.value }
}

function parseRange(text: string, definition: ReadoutDefinitionEntry): Comparison {
  const to = /\s+to\s+/i.exec(text)
  if (!to) {
    throw new Refusal(
      `Expected "from <low> to <high>" after "${definition.name}", got "from ${text}"`,
    )
  }
  const lowText = text.slice(0, to.index).trim()
  const highText = text.slice(to.index + to[0].length).trim()
  const unitOf = (value: string): string | null => {
    const match = NUMBER_WITH_UNIT.exec(value)
    return match && match[2]!.trim() !== '' ? match[2]!.trim() : null
  }
  const low = readOperand(lowText, definition, 'from', unitOf(highText))
  const high = readOperand(highText, definition, 'to', unitOf(lowText))
  if (
    low.kind === 'text' ||
    high.kind === 'text' ||
    low.kind === 'boolean' ||
    high.kind === 'boolean'
  ) {
    throw new Refusal(
      `"${definition.name}" ${definition.valueType === 'text' ? 'holds text' : 'holds yes or no'}: from ... to compares numbers or dates`,
    )
  }
  if (low.value > high.value) {
    throw new Refusal(
      `from ${lowText} to ${highText}: the lower bound is above the upper bound${
        definition.unit && low.kind === 'number'
          ? ` (${low.value} and ${high.value} ${definition.unit})`
          : ''
      }`,
    )
  }
  return {
    kind: 'range',
    scale: low.kind,
    lower: bound(low.value, true),
    upper: bound(high.value, true),
  }
}

const RUN_HELP =
  '"run date from 2024-01-01 to 2024-03-31", "run date after 2024-01-01", "run date before 2024-04-01", "run date on 2024-02-14", "run in the last 30 days" or "run 1234"'

function parseRunClause(text: string): RunFilter {
  const clause = text.trim().replace(/\s+/g, ' ')
  const dates = /^runs? date (.*)$/i.exec(clause)
  if (dates) {
    const rest = dates[1]!
    const between = /^from (\S+)(?: (?:to|until) (\S+))?$/i.exec(rest)
    if (between) {
      const from = isoDay(between[1]!)
      if (between[2] === undefined) return { kind: 'dates', onOrAfter: from, before: null }
      const to = isoDay(between[2])
      if (from > to) throw new Refusal(`run date from ${from} to ${to}: the start is after the end`)
      return { kind: 'dates', onOrAfter: from, before: addDays(to, 1) }
    }
    const single = /^(to|until|on|after|before) (\S+)$/i.exec(rest)
    if (single) {
      const day = isoDay(single[2]!)
      switch (single[1]!.toLowerCase()) {
        case 'on':
          return { kind: 'dates', onOrAfter: day, before: addDays(day, 1) }
        case 'after':
          return { kind: 'dates', onOrAfter: addDays(day, 1), before: null }
        case 'before':
          return { kind: 'dates', onOrAfter: null, before: day }
        default:
          return { kind: 'dates', onOrAfter: null, before: addDays(day, 1) }
      }
    }
    throw new Refusal(`Cannot read the run clause "${clause}": write ${RUN_HELP}`)
  }
  const recent = /^runs? in the last (\S+) days?$/i.exec(clause)
  if (recent) {
    const days = recent[1]!
    if (!/^\d{1,5}$/.test(days)) {
      throw new Refusal(
        `run in the last ${days} days: the number of days must be a whole number from 0`,
      )
    }
    return { kind: 'recent', days: Number(days) }
  }
  const run = /^runs? (?:id )?#?(\d{1,15})$/i.exec(clause)
  if (run) return { kind: 'run', runId: Number(run[1]) }
  throw new Refusal(`Cannot read the run clause "${clause}": write ${RUN_HELP}`)
}

function isoDay(text: string): string {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? readDate(text) : null
  if (!date) throw new Refusal(`"${text}" is not a day: write it as 2024-03-05`)
  return text
}

/** The text form of a criterion, which parses back to the same criterion. */
export function formatCriterion(criterion: ResultsCriterion, catalogue: Catalogue): string {
  const prefix = `${criterion.junction === 'OR' ? 'or ' : ''}${criterion.negated ? 'not ' : ''}`
  if (criterion.protocolId === null) return `${prefix}${formatRuns(criterion.runs)}`
  const protocol = catalogue.find((entry) => entry.id === criterion.protocolId)
  if (!protocol) throw new Error(`Protocol ${criterion.protocolId} is not in the catalogue`)
  let text = `${prefix}${formatName(protocol.name, /[:;"\\]/)}`
  const test = criterion.readout
  if (test) {
    const definition = protocol.readouts.find((entry) => entry.id === test.definitionId)
    if (!definition) {
      throw new Error(`Readout ${test.definitionId} is not one of protocol ${protocol.id}'s`)
    }
    const name = formatName(definition.name, /[:;"\\<>=!≤≥≠]/)
    text += `: ${test.scope === 'aggregate' ? 'aggregate ' : ''}${name}${formatComparison(test)}`
  }
  const runs = formatRuns(criterion.runs)
  return runs === '' ? text : `${text}; ${runs}`
}

function formatName(name: string, special: RegExp): string {
  const plain =
    name !== '' &&
    name === name.trim() &&
    !special.test(name) &&
    !/^(?:and|or|not|runs?|aggregate)\s/i.test(name)
  return plain ? name : quote(name)
}

/** A name or value in double quotes; backslashes and double quotes in it get a backslash. */
export function quote(text: string): string {
  return `"${text.replace(/[\\"]/g, (character) => `\\${character}`)}"`
}

function formatComparison(test: ReadoutTest): string {
  const comparison = test.comparison
  const value = (number: number, scale: 'number' | 'date'): string =>
    scale === 'date' ? formatDate(number) : `${number}${test.unit ? ` ${test.unit}` : ''}`
  switch (comparison.kind) {
    case 'present':
      return ''
    case 'range': {
      const { lower, upper, scale } = comparison
      if (lower && upper) {
        if (lower.value === upper.value && lower.inclusive && upper.inclusive) {
          return ` = ${value(lower.value, scale)}`
        }
        return ` from ${value(lower.value, scale)} to ${value(upper.value, scale)}`
      }
      if (upper) return ` ${upper.inclusive ? '<=' : '<'} ${value(upper.value, scale)}`
      if (lower) return ` ${lower.inclusive ? '>=' : '>'} ${value(lower.value, scale)}`
      return ''
    }
    case 'not equal':
      return ` != ${value(comparison.value, comparison.scale)}`
    case 'text equal':
      return ` = ${quote(comparison.text)}`
    case 'text not equal':
      return ` != ${quote(comparison.text)}`
    case 'boolean':
      return ` = ${comparison.value ? 'yes' : 'no'}`
    case 'contains':
    case 'does not contain':
      return ` ${comparison.kind} ${quote(comparison.text)}`
  }
}

function formatDate(epochMs: number): string {
  const iso = new Date(epochMs).toISOString()
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso
}

function formatRuns(runs: RunFilter): string {
  switch (runs.kind) {
    case 'any':
      return ''
    case 'recent':
      return `run in the last ${runs.days} ${runs.days === 1 ? 'day' : 'days'}`
    case 'run':
      return `run ${runs.runId}`
    case 'dates': {
      const { onOrAfter, before } = runs
      if (onOrAfter !== null && before !== null) {
        const last = addDays(before, -1)
        return last === onOrAfter
          ? `run date on ${onOrAfter}`
          : `run date from ${onOrAfter} to ${last}`
      }
      if (onOrAfter !== null) return `run date from ${onOrAfter}`
      if (before !== null) return `run date before ${before}`
      return ''
    }
  }
}
