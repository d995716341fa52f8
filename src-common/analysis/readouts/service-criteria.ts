/**
 * Results criteria to and from the vault's own `protocol_criteria` (molecule and batch queries,
 * saved searches' `search_criteria`): `{protocol_id, run_criterion (any | recent | run_date |
 * run_id), run_after, run_before, since_days_ago, run_id, readout_definition_id, operator,
 * readout_value, readout_value_maximum, negated, junction, criterion_type}`. Readout values are
 * strings in the definition's unit. Reading goes through the text form's parser, so a saved
 * search is checked with the same rules and messages as a typed criterion.
 *
 * Not read: `data_set_id` criteria, `criterion_type: protocol field`, `protocol_condition_ids`
 * and `calculation_error_type` (each is an error naming it, so a search is never half-applied).
 * Not written: aggregate-scope criteria, which the vault's search has no form for.
 */
import { isObject, toId, toText } from '../../values.ts'
import { listNames, type Catalogue } from './catalogue.ts'
import type { Comparison } from './comparisons.ts'
import { addDays, utcDay, type ResultsCriterion, type RunFilter } from './criteria.ts'
import {
  formatCriterion,
  parseCriterion,
  quote,
  type CriteriaParse,
  type CriterionError,
} from './criteria-text.ts'
import { readDate } from './readout-value.ts'

export type ServiceCriterion = Record<string, string | number | boolean>

export type ServiceCriteriaWrite =
  { ok: true; criteria: ServiceCriterion[] } | { ok: false; message: string }

/** The vault's form of criteria, to run the same search online or save it. */
export function toServiceCriteria(criteria: readonly ResultsCriterion[]): ServiceCriteriaWrite {
  const written: ServiceCriterion[] = []
  for (const [index, criterion] of criteria.entries()) {
    const item: ServiceCriterion = {}
    if (criterion.protocolId === null) item.criterion_type = 'run date'
    else item.protocol_id = criterion.protocolId
    Object.assign(item, runMembers(criterion.runs))
    const test = criterion.readout
    if (test) {
      if (test.scope === 'aggregate') {
        return {
          ok: false,
          message: `Criterion ${index + 1} asks for an aggregate, which the vault's search cannot: it matches single readout rows`,
        }
      }
      item.readout_definition_id = test.definitionId
      const comparison = comparisonMembers(test.comparison)
      if (comparison === null) {
        return {
          ok: false,
          message: `Criterion ${index + 1} is a range with an exclusive end, which the vault's inclusive "from" cannot express`,
        }
      }
      Object.assign(item, comparison)
    }
    if (criterion.negated) item.negated = true
    if (index > 0) item.junction = criterion.junction
    written.push(item)
  }
  return { ok: true, criteria: written }
}

function runMembers(runs: RunFilter): ServiceCriterion {
  switch (runs.kind) {
    case 'any':
      return { run_criterion: 'any' }
    case 'recent':
      return { run_criterion: 'recent', since_days_ago: runs.days }
    case 'run':
      return { run_criterion: 'run_id', run_id: runs.runId }
    case 'dates': {
      const members: ServiceCriterion = { run_criterion: 'run_date' }
      if (runs.onOrAfter !== null) members.run_after = runs.onOrAfter
      if (runs.before !== null) members.run_before = runs.before
      return members
    }
  }
}

function comparisonMembers(comparison: Comparison): ServiceCriterion | null {
  const value = (number: number, scale: 'number' | 'date'): string =>
    scale === 'date' ? new Date(number).toISOString() : String(number)
  switch (comparison.kind) {
    case 'present':
      return {}
    case 'range': {
      const { lower, upper, scale } = comparison
      if (lower && upper) {
        if (!lower.inclusive || !upper.inclusive) return null
        if (lower.value === upper.value)
          return { operator: '=', readout_value: value(lower.value, scale) }
        return {
          operator: 'from',
          readout_value: value(lower.value, scale),
          readout_value_maximum: value(upper.value, scale),
        }
      }
      if (upper)
        return { operator: upper.inclusive ? '≤' : '<', readout_value: value(upper.value, scale) }
      if (lower)
        return { operator: lower.inclusive ? '≥' : '>', readout_value: value(lower.value, scale) }
      return {}
    }
    case 'not equal':
      return { operator: '!=', readout_value: value(comparison.value, comparison.scale) }
    case 'text equal':
      return { operator: '=', readout_value: comparison.text }
    case 'text not equal':
      return { operator: '!=', readout_value: comparison.text }
    case 'boolean':
      return { operator: '=', readout_value: String(comparison.value) }
    case 'contains':
    case 'does not contain':
      return { operator: comparison.kind, readout_value: comparison.text }
  }
}

const OPERATORS: Record<string, string> = {
  '=': '=',
  '!=': '!=',
  '<': '<',
  '>': '>',
  '≤': '<=',
  '<=': '<=',
  '≥': '>=',
  '>=': '>=',
  contains: 'contains',
  'does not contain': 'does not contain',
  from: 'from',
}

/** Reads the vault's `protocol_criteria` against the catalogue; every problem is reported. */
export function fromServiceCriteria(raw: unknown, catalogue: Catalogue): CriteriaParse {
  if (!Array.isArray(raw)) {
    return {
      ok: false,
      errors: [
        { text: JSON.stringify(raw) ?? String(raw), message: 'protocol_criteria must be a list' },
      ],
    }
  }
  const criteria: ResultsCriterion[] = []
  const errors: CriterionError[] = []
  raw.forEach((item, index) => {
    const read = readServiceCriterion(item, catalogue)
    if ('message' in read)
      errors.push({ text: JSON.stringify(item) ?? String(item), index, ...read })
    else criteria.push(read)
  })
  return errors.length > 0 ? { ok: false, errors } : { ok: true, criteria }
}

type Problem = { message: string; suggestions?: string[] }

function readServiceCriterion(item: unknown, catalogue: Catalogue): ResultsCriterion | Problem {
  if (!isObject(item)) return { message: 'a protocol criterion must be an object' }
  for (const member of ['data_set_id', 'protocol_condition_ids', 'calculation_error_type']) {
    if (item[member] !== undefined && item[member] !== null) {
      return { message: `${member} is not supported in offline searches` }
    }
  }
  const type = toText(item.criterion_type)?.trim() ?? 'data set or protocol'
  if (type === 'protocol field') {
    return { message: 'protocol field criteria are not supported in offline searches' }
  }
  if (type !== 'data set or protocol' && type !== 'run date') {
    return { message: `unknown criterion_type "${type}"` }
  }
  const runs = readRuns(item, type)
  if ('message' in runs) return runs
  const negated = item.negated === true || toText(item.negated) === 'true'
  const junction = toText(item.junction)?.trim().toUpperCase() === 'OR' ? 'OR' : 'AND'
  const protocolId = toId(item.protocol_id)
  if (protocolId === null) {
    if (type === 'run date') {
      if (runs.kind === 'any')
        return { message: 'a run date criterion needs a run_criterion other than any' }
      return { junction, negated, protocolId: null, runs, readout: null }
    }
    return { message: 'protocol_id is required (data set criteria are not supported offline)' }
  }
  const protocol = catalogue.find((entry) => entry.id === protocolId)
  if (!protocol) {
    const names = catalogue.map((entry) => `${entry.name} (${entry.id})`)
    return {
      message: `protocol ${protocolId} is not among the protocols: ${listNames(names)}`,
      suggestions: catalogue.map((entry) => entry.name),
    }
  }
  let text = formatCriterion(
    { junction: 'AND', negated: false, protocolId, runs: { kind: 'any' }, readout: null },
    catalogue,
  )
  const definitionId = toId(item.readout_definition_id)
  const operatorText = toText(item.operator)?.trim()
  if (definitionId === null && operatorText !== undefined) {
    return { message: 'readout_definition_id is required with an operator' }
  }
  if (definitionId !== null) {
    const definition = protocol.readouts.find((entry) => entry.id === definitionId)
    if (!definition) {
      const names = protocol.readouts.map((entry) => `${entry.name} (${entry.id})`)
      return {
        message: `readout definition ${definitionId} is not one of protocol "${protocol.name}"'s: ${listNames(names)}`,
        suggestions: protocol.readouts.map((entry) => entry.name),
      }
    }
    text += `: ${quote(definition.name)}`
    if (operatorText !== undefined) {
      const operator = OPERATORS[operatorText]
      if (operator === undefined) return { message: `unknown operator "${operatorText}"` }
      const value = toText(item.readout_value)
      if (value === null)
        return { message: `readout_value is required with operator "${operatorText}"` }
      // As the vault does, = and != with a value that is not a number compare text.
      const numeric = definition.valueType === 'number' || definition.valueType === 'any'
      const textual =
        operator === 'contains' ||
        operator === 'does not contain' ||
        definition.valueType === 'text' ||
        (numeric && (operator === '=' || operator === '!=') && !/^\s*[+-]?(\d|\.\d)/.test(value))
      const written = textual ? quote(value) : value.trim()
      if (operator === 'from') {
        const maximum = toText(item.readout_value_maximum)
        if (maximum === null)
          return { message: 'readout_value_maximum is required with operator "from"' }
        text += ` from ${written} to ${maximum.trim()}`
      } else text += ` ${operator} ${written}`
    }
  }
  const parsed = parseCriterion(text, catalogue)
  if (!parsed.ok)
    return {
      message: parsed.error.message,
      ...(parsed.error.suggestions ? { suggestions: parsed.error.suggestions } : {}),
    }
  return { ...parsed.criterion, junction, negated, runs }
}

function readRuns(item: Record<string, unknown>, type: string): RunFilter | Problem {
  const criterion = toText(item.run_criterion)?.trim() ?? (type === 'run date' ? 'run_date' : 'any')
  switch (criterion) {
    case 'any':
      return { kind: 'any' }
    case 'recent': {
      const days = toId(item.since_days_ago)
      if (days === null || days < 0)
        return { message: 'since_days_ago must be a whole number from 0' }
      return { kind: 'recent', days }
    }
    case 'run_id': {
      const runId = toId(item.run_id)
      if (runId === null) return { message: 'run_id is required with run_criterion run_id' }
      return { kind: 'run', runId }
    }
    case 'run_date': {
      const after = dayOf(item.run_after, 'start')
      const before = dayOf(item.run_before, 'end')
      if (after === undefined || before === undefined) {
        return { message: 'run_after and run_before must be ISO dates' }
      }
      if (after === null && before === null) {
        return { message: 'run_after or run_before is required with run_criterion run_date' }
      }
      if (after !== null && before !== null && after >= before) {
        return { message: `run_after ${after} is not before run_before ${before}` }
      }
      return { kind: 'dates', onOrAfter: after, before }
    }
    default:
      return { message: `unknown run_criterion "${criterion}"` }
  }
}

/**
 * The day of a run_after (its day: the vault counts from that day's start) or run_before (runs
 * strictly before it: a time after midnight keeps that day). Null when absent, undefined when
 * unreadable.
 */
function dayOf(value: unknown, side: 'start' | 'end'): string | null | undefined {
  if (value === undefined || value === null || value === '') return null
  const date = typeof value === 'string' ? readDate(value) : null
  if (!date) return undefined
  const day = utcDay(date.epochMs)
  const midnight = Date.parse(`${day}T00:00:00Z`) === date.epochMs
  return side === 'end' && !midnight ? addDays(day, 1) : day
}
