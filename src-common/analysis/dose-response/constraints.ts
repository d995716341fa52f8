import { isObject, toNumber } from '../../values.ts'
import { EQUATIONS, type EquationType } from './equations.ts'

/**
 * Constraints on fit parameters as the API writes them (`fit_parameters`):
 * `{slope: {modifier: '=', value: 1}, max: {modifier: 'from', range: {min: 90, max: 110}}}`.
 * `best fit` exists only on data series, where it lifts the calculation's constraint.
 */

export type BoundModifier = '>' | '>=' | '<' | '<='

export type FitConstraint =
  | { modifier: '='; value: number }
  | { modifier: BoundModifier; value: number }
  | { modifier: 'from'; range: { min: number; max: number } }
  | { modifier: 'best fit' }

export type FitConstraints = Readonly<Record<string, FitConstraint>>

export type ConstraintsReading =
  { ok: true; constraints: FitConstraints } | { ok: false; problems: string[] }

const VALUE_MODIFIERS: readonly string[] = ['=', '>', '>=', '<', '<=']
const CONSTRAINT_MEMBERS: readonly string[] = ['modifier', 'value', 'range']

/**
 * Reads a fit_parameters object, refusing what the specification rejects, in its words: an
 * unknown fit parameter, an invalid modifier, a range with its lower bound above its upper bound,
 * a non-numeric value, unrecognized parameters. Every problem is reported, not just the first.
 * Numeric strings are read as numbers (clients and the vault send both).
 */
export function readFitConstraints(
  equationType: EquationType,
  input: unknown,
  level: 'calculation' | 'data series',
): ConstraintsReading {
  if (input === undefined || input === null) return { ok: true, constraints: {} }
  if (!isObject(input)) {
    return { ok: false, problems: ['fit_parameters must be an object keyed by parameter name'] }
  }
  const known = EQUATIONS[equationType].constrainable
  const problems: string[] = []
  const constraints: Record<string, FitConstraint> = {}
  for (const [name, raw] of Object.entries(input)) {
    if (!known.includes(name)) {
      problems.push(
        `unknown fit parameter "${name}" for ${equationType} (known: ${known.join(', ')})`,
      )
      continue
    }
    if (!isObject(raw)) {
      problems.push(`${name}: must be an object with a modifier`)
      continue
    }
    const unrecognized = Object.keys(raw).filter((key) => !CONSTRAINT_MEMBERS.includes(key))
    if (unrecognized.length > 0) {
      problems.push(`${name}: unrecognized parameters ${unrecognized.join(', ')}`)
      continue
    }
    const constraint = readConstraint(name, raw, level, problems)
    if (constraint) constraints[name] = constraint
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, constraints }
}

function readConstraint(
  name: string,
  members: Record<string, unknown>,
  level: 'calculation' | 'data series',
  problems: string[],
): FitConstraint | undefined {
  const modifier = members.modifier
  if (modifier === 'best fit' && level === 'data series') {
    if ('value' in members || 'range' in members) {
      problems.push(`${name}: best fit takes no value or range`)
      return undefined
    }
    return { modifier }
  }
  if (
    typeof modifier !== 'string' ||
    (modifier !== 'from' && !VALUE_MODIFIERS.includes(modifier))
  ) {
    const allowed = `=, from, >, >=, <, <=${level === 'data series' ? ', best fit' : ''}`
    problems.push(`${name}: invalid modifier ${JSON.stringify(modifier)} (use one of ${allowed})`)
    return undefined
  }
  if (modifier === 'from') {
    // The specification names the range object but not the member that holds it: real vaults
    // send it in `range` or in `value`.
    const range = 'range' in members ? members.range : members.value
    if ('range' in members && 'value' in members) {
      problems.push(`${name}: from takes a range, not a value`)
    }
    if (!isObject(range)) {
      problems.push(`${name}: from needs a range {min, max}`)
      return undefined
    }
    const extra = Object.keys(range).filter((key) => key !== 'min' && key !== 'max')
    if (extra.length > 0) {
      problems.push(`${name}: unrecognized parameters ${extra.join(', ')} in range`)
    }
    const min = numeric(range.min, `${name}: range min`, problems)
    const max = numeric(range.max, `${name}: range max`, problems)
    if (min === undefined || max === undefined) return undefined
    if (min > max) {
      problems.push(`${name}: range lower bound ${min} is above upper bound ${max}`)
      return undefined
    }
    return { modifier, range: { min, max } }
  }
  if ('range' in members) problems.push(`${name}: ${modifier} takes a value, not a range`)
  const value = numeric(members.value, `${name}: value`, problems)
  if (value === undefined) return undefined
  return modifier === '=' ? { modifier, value } : { modifier: modifier as BoundModifier, value }
}

function numeric(raw: unknown, label: string, problems: string[]): number | undefined {
  if (raw === undefined || raw === null || raw === '') {
    problems.push(`${label} is missing`)
    return undefined
  }
  const value = toNumber(raw)
  if (value === null) {
    problems.push(`${label} ${JSON.stringify(raw)} is not numeric`)
    return undefined
  }
  return value
}

/**
 * A data series' constraints over its calculation's: the series wins per parameter, and its
 * `best fit` removes the calculation's constraint on that parameter.
 */
export function mergeConstraints(
  calculation: FitConstraints,
  series: FitConstraints,
): FitConstraints {
  const merged: Record<string, FitConstraint> = { ...calculation }
  for (const [name, constraint] of Object.entries(series)) {
    if (constraint.modifier === 'best fit') delete merged[name]
    else merged[name] = constraint
  }
  return merged
}

/** Where a parameter may lie: fixed at a value, or within [lower, upper] (either may be infinite). */
export type ParameterRange = { fixed: number } | { lower: number; upper: number }

/**
 * A strict inequality has no attainable optimum on its bound; the bound is moved this far
 * (relative) inside, far below any precision a response is measured with.
 */
export const STRICT_MARGIN = 1e-9

export function rangeOf(constraint: FitConstraint | undefined): ParameterRange {
  const nudge = (value: number): number => STRICT_MARGIN * Math.max(1, Math.abs(value))
  switch (constraint?.modifier) {
    case '=':
      return { fixed: constraint.value }
    case 'from':
      return { lower: constraint.range.min, upper: constraint.range.max }
    case '>':
      return { lower: constraint.value + nudge(constraint.value), upper: Number.POSITIVE_INFINITY }
    case '>=':
      return { lower: constraint.value, upper: Number.POSITIVE_INFINITY }
    case '<':
      return { lower: Number.NEGATIVE_INFINITY, upper: constraint.value - nudge(constraint.value) }
    case '<=':
      return { lower: Number.NEGATIVE_INFINITY, upper: constraint.value }
    default:
      return { lower: Number.NEGATIVE_INFINITY, upper: Number.POSITIVE_INFINITY }
  }
}
