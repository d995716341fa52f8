/**
 * The form of a data series' fit constraints: one row per parameter the equation lets a person
 * constrain, each with a modifier and its value or range as typed. What is typed is checked by the
 * same reader as the vault's rules (`readFitConstraints`), so a refusal uses the specification's
 * words before anything is queued.
 */
import {
  EQUATIONS,
  isEquationType,
  readFitConstraints,
  type EquationType,
  type FitConstraint,
} from '../../../../src-common/analysis/dose-response/index.ts'
import { isObject } from '../../../../src-common/values.ts'
import { formatValue } from '../plots/ticks.ts'

/** '' leaves the parameter to the calculation's constraint (or free). */
export type ModifierChoice = '' | '=' | 'from' | '>' | '>=' | '<' | '<=' | 'best fit'

export const modifierChoices: readonly { value: ModifierChoice; label: string }[] = [
  { value: '', label: 'As the calculation says' },
  { value: 'best fit', label: 'Best fit (lift the calculation’s)' },
  { value: '=', label: '= fixed at' },
  { value: 'from', label: 'from … to …' },
  { value: '>', label: '>' },
  { value: '>=', label: '≥' },
  { value: '<', label: '<' },
  { value: '<=', label: '≤' },
]

export interface ConstraintRow {
  name: string
  modifier: ModifierChoice
  value: string
  min: string
  max: string
}

const text = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : String(value)

/** The rows of a series' own constraints as the vault sent them (or as an edit waiting made them). */
export function rowsOf(equationType: EquationType, fitParameters: unknown): ConstraintRow[] {
  const given = isObject(fitParameters) ? fitParameters : {}
  return EQUATIONS[equationType].constrainable.map((name) => {
    const raw = isObject(given[name]) ? given[name] : {}
    const range = isObject(raw.range) ? raw.range : {}
    const modifier = modifierChoices.some((choice) => choice.value === raw.modifier)
      ? (raw.modifier as ModifierChoice)
      : ''
    return { name, modifier, value: text(raw.value), min: text(range.min), max: text(range.max) }
  })
}

/** The rows as the API writes fit_parameters, values as typed (the reader checks them). */
export function fitParametersOf(rows: readonly ConstraintRow[]): Record<string, unknown> {
  const fitParameters: Record<string, unknown> = {}
  for (const row of rows) {
    if (row.modifier === '') continue
    if (row.modifier === 'best fit') fitParameters[row.name] = { modifier: 'best fit' }
    else if (row.modifier === 'from') {
      fitParameters[row.name] = {
        modifier: 'from',
        range: { min: row.min.trim(), max: row.max.trim() },
      }
    } else fitParameters[row.name] = { modifier: row.modifier, value: row.value.trim() }
  }
  return fitParameters
}

/** The rows checked as the vault would: the fit_parameters to queue, or every problem. */
export function checkedConstraints(
  equationType: unknown,
  rows: readonly ConstraintRow[],
): { ok: true; fitParameters: Record<string, unknown> } | { ok: false; problems: string[] } {
  if (!isEquationType(equationType)) {
    return {
      ok: false,
      problems: [
        `The calculation's equation type ${JSON.stringify(equationType)} is not one the vault fits.`,
      ],
    }
  }
  const fitParameters = fitParametersOf(rows)
  const reading = readFitConstraints(equationType, fitParameters, 'data series')
  return reading.ok ? { ok: true, fitParameters } : { ok: false, problems: reading.problems }
}

/** A constraint in a few signs: "= 1", "90 to 110", "≥ 0", "best fit". */
export function constraintText(constraint: FitConstraint | undefined): string {
  if (!constraint) return 'free'
  switch (constraint.modifier) {
    case 'best fit':
      return 'best fit'
    case 'from':
      return `${formatValue(constraint.range.min)} to ${formatValue(constraint.range.max)}`
    case '>=':
      return `≥ ${formatValue(constraint.value)}`
    case '<=':
      return `≤ ${formatValue(constraint.value)}`
    default:
      return `${constraint.modifier} ${formatValue(constraint.value)}`
  }
}
