import { DOSE_RESPONSE_MODELS, type EquationType } from './dose-response-models.ts'

/**
 * Constraints on dose-response fit parameters, as the API writes them:
 * `{slope: {modifier: '=', value: 1}, min: {modifier: 'from', range: {min: 0, max: 10}}}`.
 * `best fit` exists only on data series, where it lifts the calculation's constraint.
 */

export type BoundModifier = '>' | '>=' | '<' | '<='

export type FitConstraint =
  | { modifier: '='; value: number }
  | { modifier: BoundModifier; value: number }
  | { modifier: 'from'; range: { min: number; max: number } }
  | { modifier: 'best fit' }

export type FitConstraints = Record<string, FitConstraint>

export class FitParametersError extends Error {
  readonly problems: string[]

  constructor(problems: string[]) {
    super(`invalid fit_parameters: ${problems.join('; ')}`)
    this.name = 'FitParametersError'
    this.problems = problems
  }
}

const VALUE_MODIFIERS = new Set(['=', '>', '>=', '<', '<='])
const CONSTRAINT_MEMBERS = new Set(['modifier', 'value', 'range'])
const RANGE_MEMBERS = new Set(['min', 'max'])

/** Validates a fit_parameters object; every problem found is reported, not just the first. */
export function parseFitParameters(
  equationType: EquationType,
  input: unknown,
  where: 'calculation' | 'data series',
): FitConstraints {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new FitParametersError(['fit_parameters must be an object keyed by parameter name'])
  }
  const model = DOSE_RESPONSE_MODELS[equationType]
  const known = model.parameters.filter((p) => p.constrainable).map((p) => p.name)
  const problems: string[] = []
  const constraints: FitConstraints = {}

  for (const [name, raw] of Object.entries(input)) {
    if (!known.includes(name)) {
      problems.push(
        `unknown fit parameter "${name}" for ${equationType} (known: ${known.join(', ')})`,
      )
      continue
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      problems.push(`${name}: must be an object with a modifier`)
      continue
    }
    const members = raw as Record<string, unknown>
    const unrecognized = Object.keys(members).filter((key) => !CONSTRAINT_MEMBERS.has(key))
    if (unrecognized.length > 0) {
      problems.push(`${name}: unrecognized parameters ${unrecognized.join(', ')}`)
      continue
    }
    const constraint = parseConstraint(name, members, where, problems)
    if (constraint) constraints[name] = constraint
  }
  if (problems.length > 0) throw new FitParametersError(problems)
  return constraints
}

function parseConstraint(
  name: string,
  members: Record<string, unknown>,
  where: 'calculation' | 'data series',
  problems: string[],
): FitConstraint | undefined {
  const modifier = members['modifier']
  const modifiers = `=, from, >, >=, <, <=${where === 'data series' ? ', best fit' : ''}`
  if (modifier === 'best fit' && where === 'data series') {
    if ('value' in members || 'range' in members) {
      problems.push(`${name}: best fit takes no value or range`)
      return undefined
    }
    return { modifier }
  }
  if (typeof modifier !== 'string' || (modifier !== 'from' && !VALUE_MODIFIERS.has(modifier))) {
    problems.push(`${name}: invalid modifier ${JSON.stringify(modifier)} (use one of ${modifiers})`)
    return undefined
  }
  if (modifier === 'from') {
    if ('value' in members) problems.push(`${name}: from takes a range, not a value`)
    const range = members['range']
    if (typeof range !== 'object' || range === null || Array.isArray(range)) {
      problems.push(`${name}: from needs a range {min, max}`)
      return undefined
    }
    const bounds = range as Record<string, unknown>
    const extra = Object.keys(bounds).filter((key) => !RANGE_MEMBERS.has(key))
    if (extra.length > 0)
      problems.push(`${name}: unrecognized parameters ${extra.join(', ')} in range`)
    const min = numeric(bounds['min'], `${name}: range min`, problems)
    const max = numeric(bounds['max'], `${name}: range max`, problems)
    if (min === undefined || max === undefined) return undefined
    if (min > max) {
      problems.push(`${name}: range lower bound ${min} is above upper bound ${max}`)
      return undefined
    }
    return { modifier, range: { min, max } }
  }
  if ('range' in members) problems.push(`${name}: ${modifier} takes a value, not a range`)
  const value = numeric(members['value'], `${name}: value`, problems)
  if (value === undefined) return undefined
  return modifier === '=' ? { modifier, value } : { modifier: modifier as BoundModifier, value }
}

/** Accepts numbers and numeric strings (clients send both). */
function numeric(raw: unknown, label: string, problems: string[]): number | undefined {
  if (raw === undefined || raw === null || raw === '') {
    problems.push(`${label} is missing`)
    return undefined
  }
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw) : NaN
  if (!Number.isFinite(value)) {
    problems.push(`${label} ${JSON.stringify(raw)} is not numeric`)
    return undefined
  }
  return value
}

/**
 * A data series' constraints over its calculation's: the series wins per parameter, and its
 * `best fit` removes the calculation's constraint for that parameter.
 */
export function mergeConstraints(
  calculation: FitConstraints,
  series: FitConstraints,
): FitConstraints {
  const merged: FitConstraints = { ...calculation }
  for (const [name, constraint] of Object.entries(series)) {
    if (constraint.modifier === 'best fit') delete merged[name]
    else merged[name] = constraint
  }
  return merged
}
