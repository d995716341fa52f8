/**
 * Aggregates of readout values per molecule or batch, protocol and readout definition, computed
 * here with the function the definition names; the vault's own aggregate rows are the caller's
 * to prefer where it sent them. Every aggregate says it was computed here, its n, and what it
 * left out and why.
 *
 * ## What goes in
 * Outliers and control wells (`+`, `-`, `#`) are left out and counted. Numbers are taken in the
 * definition's unit; one whose unit cannot be converted, and text (`ND`), dates or booleans in
 * a numeric readout are left out of the number, counted, and listed once each in
 * `notAggregated`, so `ND` is never silently lost. When no number is left, the aggregate shows
 * the texts instead ("ND; inactive").
 *
 * ## Qualified values (`<`, `<=`, `>`, `>=`)
 * By the rule vault services of this kind publish for their averages: a qualified value is set
 * aside when another measurement is consistent with it and more specific (its interval lies
 * inside), exact values are always kept, and of two equal bounds one is kept. Then each
 * remaining value stands for an interval (`<2` is anything below 2), and the aggregate for the
 * interval the function maps them to; every function here but the spreads is monotone, so that
 * interval runs from the function of the lower ends to the function of the upper ends:
 *
 * - mean(<1, <10) = <1 (<10 set aside); mean(>30, >30) = >30
 * - mean(20, 30, <100) = 25 and mean(80, <100, 150) = 115 (<100 is consistent with 80)
 * - mean(<2, 8) = <5 (8 is not below 2, so both stay: the mean is below (2 + 8) / 2)
 * - mean(12, >30) = >21; median(<2, 8, 9) = 8 exactly; max(12, >30) = >30; min(12, >30) = 12
 * - mean(<2, >30): below and above the measurable range, no value (a problem says so). Once
 *   less specific bounds are set aside, the interval always has an infinite end or none, so
 *   this is the only case without a value.
 * - the result is `<=` or `>=` only when every bound on that side is inclusive; `~` values count
 *   as exact and make an exact result `~`
 * - standard deviation and standard error are not defined with qualified values (a problem).
 *
 * ## Functions
 * Arithmetic and geometric mean, median (mean of the middle two for an even n), minimum,
 * maximum, count (every value that is not an outlier or control, text included), sample
 * standard deviation (n - 1) and standard error of the mean (sd / √n). A definition without an
 * aggregation is averaged arithmetically, the vault's default. Text readouts list their distinct
 * values (or count them); date readouts give the earliest (minimum), the latest (maximum), a
 * count, or their distinct values.
 */
import { summarize } from '../statistics.ts'
import {
  EMPTY,
  inDefinitionUnit,
  type Modifier,
  type ReadCell,
  type ReadoutValue,
  type ValueType,
} from './readout-value.ts'

export type Aggregation =
  | 'arithmetic mean'
  | 'geometric mean'
  | 'median'
  | 'minimum'
  | 'maximum'
  | 'count'
  | 'standard deviation'
  | 'standard error'

const AGGREGATION_NAMES: Record<string, Aggregation> = {
  'arithmetic mean': 'arithmetic mean',
  'arithmetic average': 'arithmetic mean',
  mean: 'arithmetic mean',
  average: 'arithmetic mean',
  avg: 'arithmetic mean',
  'geometric mean': 'geometric mean',
  'geometric average': 'geometric mean',
  geomean: 'geometric mean',
  'geo mean': 'geometric mean',
  gmean: 'geometric mean',
  median: 'median',
  minimum: 'minimum',
  min: 'minimum',
  maximum: 'maximum',
  max: 'maximum',
  count: 'count',
  n: 'count',
  'standard deviation': 'standard deviation',
  'std dev': 'standard deviation',
  stdev: 'standard deviation',
  stddev: 'standard deviation',
  sd: 'standard deviation',
  'standard error': 'standard error',
  'standard error of the mean': 'standard error',
  sem: 'standard error',
  se: 'standard error',
}

/** The aggregation a definition names ("Geometric Mean", "geometric_mean"); null if unknown. */
export function parseAggregation(name: string): Aggregation | null {
  const key = name
    .trim()
    .toLowerCase()
    .replace(/[_\-.]+/g, ' ')
    .replace(/\s+/g, ' ')
  return AGGREGATION_NAMES[key] ?? null
}

/** What aggregation needs to know of a readout definition. */
export interface AggregateDefinition {
  valueType?: ValueType
  unit?: string | null
  /** As the definition names it; the arithmetic mean when absent or blank. */
  aggregation?: string | null
}

export interface AggregateInput {
  cell: ReadCell
  /** The row's control state (`+`, `-`, `#`); any non-blank state makes it a control well. */
  controlState?: string | null
}

export interface ExcludedCounts {
  outliers: number
  controls: number
  /** Cells with a note and no value. */
  empty: number
  /** Text, dates and booleans in a numeric readout. */
  text: number
  /** Numbers whose own unit does not convert to the definition's. */
  unconvertible: number
  /** Qualified values set aside for a consistent, more specific measurement. */
  lessSpecific: number
}

export interface ComputedAggregate {
  source: 'computed'
  /** The function applied; null when the definition names one this module does not compute. */
  aggregation: Aggregation | null
  /** In the definition's unit; empty when there is nothing to show or `problem` explains. */
  value: ReadoutValue
  /** The values the function was applied to. */
  n: number
  excluded: ExcludedCounts
  /** Values of a numeric readout left out of its number, each once, as given. */
  notAggregated: string[]
  /** Why there is no value, or what limits it; null when all is well. */
  problem: string | null
}

interface Measurement {
  value: number
  modifier: Modifier | null
}

/** The values a measurement stands for, from `low` to `high` (infinite when unbounded). */
interface Interval {
  low: number
  high: number
}

const TEXT_SEPARATOR = '; '

/** Aggregates the cells of one molecule or batch for one protocol and readout definition. */
export function aggregateCells(
  inputs: Iterable<AggregateInput>,
  definition: AggregateDefinition = {},
): ComputedAggregate {
  const named = definition.aggregation?.trim() ?? ''
  const aggregation = named === '' ? 'arithmetic mean' : parseAggregation(named)
  const excluded: ExcludedCounts = {
    outliers: 0,
    controls: 0,
    empty: 0,
    text: 0,
    unconvertible: 0,
    lessSpecific: 0,
  }
  const numbers: Measurement[] = []
  const others: ReadoutValue[] = []
  const notAggregated: string[] = []
  const valueType = definition.valueType ?? 'any'
  const numeric = valueType === 'number' || valueType === 'any'
  for (const { cell, controlState } of inputs) {
    if (controlState !== null && controlState !== undefined && controlState.trim() !== '') {
      excluded.controls += 1
      continue
    }
    if (cell.outlier) {
      excluded.outliers += 1
      continue
    }
    const given = cell.value
    if (given.kind === 'number' && given.unit === null && numeric) {
      numbers.push({ value: given.value, modifier: given.modifier })
      continue
    }
    const { value, unconvertible } = inDefinitionUnit(given, definition.unit)
    if (value.kind === 'empty') excluded.empty += 1
    else if (value.kind === 'number' && numeric) {
      numbers.push({ value: value.value, modifier: value.modifier })
    } else {
      others.push(value)
      if (numeric) {
        if (unconvertible !== null) excluded.unconvertible += 1
        else excluded.text += 1
        if (!notAggregated.includes(value.text)) notAggregated.push(value.text)
      }
    }
  }
  const result = (value: ReadoutValue, n: number, problem: string | null): ComputedAggregate => {
    return { source: 'computed', aggregation, value, n, excluded, notAggregated, problem }
  }
  const count = numbers.length + others.length
  if (aggregation === 'count') return result(exact(count, null), count, null)
  if (aggregation === null) {
    return result(EMPTY, count, `Vault Desk does not compute the aggregation "${named}"`)
  }
  if (!numeric) return result(nonNumeric(others, aggregation, valueType), others.length, null)
  if (numbers.length === 0) return result(distinctTexts(others), others.length, null)
  const retained = withoutLessSpecific(numbers)
  excluded.lessSpecific = numbers.length - retained.length
  const computed = compute(aggregation, retained)
  return result(computed.value, retained.length, computed.problem)
}

function exact(value: number, modifier: Modifier | null): ReadoutValue {
  return { kind: 'number', value, modifier, unit: null, text: String(value) }
}

function distinctTexts(values: readonly ReadoutValue[]): ReadoutValue {
  const texts: string[] = []
  for (const value of values) {
    if (value.kind !== 'empty' && !texts.includes(value.text)) texts.push(value.text)
  }
  return texts.length === 0 ? EMPTY : { kind: 'text', text: texts.join(TEXT_SEPARATOR) }
}

function nonNumeric(
  values: readonly ReadoutValue[],
  aggregation: Aggregation,
  valueType: ValueType,
): ReadoutValue {
  if (valueType === 'date' && (aggregation === 'minimum' || aggregation === 'maximum')) {
    let chosen: ReadoutValue | null = null
    for (const value of values) {
      if (value.kind !== 'date') continue
      if (
        chosen === null ||
        (chosen.kind === 'date' &&
          (aggregation === 'minimum'
            ? value.epochMs < chosen.epochMs
            : value.epochMs > chosen.epochMs))
      )
        chosen = value
    }
    if (chosen !== null) return chosen
  }
  return distinctTexts(values)
}

function intervalOf({ value, modifier }: Measurement): Interval {
  if (modifier === '<' || modifier === '<=') return { low: -Infinity, high: value }
  if (modifier === '>' || modifier === '>=') return { low: value, high: Infinity }
  return { low: value, high: value }
}

function isBounded(measurement: Measurement): boolean {
  return measurement.modifier !== null && measurement.modifier !== '~'
}

/**
 * Sets aside qualified values that another, consistent measurement makes more specific: `<10`
 * beside `<1` or beside 3, `<=5` beside `<5` or 5; of equal bounds the first is kept. Linear in
 * the number of values: a reference compound may have thousands.
 */
function withoutLessSpecific(measurements: readonly Measurement[]): readonly Measurement[] {
  if (!measurements.some(isBounded)) return measurements
  let lowestExact = Infinity
  let highestExact = -Infinity
  const lowest = { '<': Infinity, '<=': Infinity }
  const highest = { '>': -Infinity, '>=': -Infinity }
  for (const { value, modifier } of measurements) {
    if (modifier === '<' || modifier === '<=') lowest[modifier] = Math.min(lowest[modifier], value)
    else if (modifier === '>' || modifier === '>=')
      highest[modifier] = Math.max(highest[modifier], value)
    else {
      lowestExact = Math.min(lowestExact, value)
      highestExact = Math.max(highestExact, value)
    }
  }
  const seen = new Set<string>()
  return measurements.filter(({ value: bound, modifier }) => {
    if (modifier === null || modifier === '~') return true
    const key = `${modifier}${bound}`
    if (seen.has(key)) return false
    seen.add(key)
    switch (modifier) {
      case '<':
        return !(lowestExact < bound || lowest['<'] < bound || lowest['<='] < bound)
      case '<=':
        return !(lowestExact <= bound || lowest['<'] <= bound || lowest['<='] < bound)
      case '>':
        return !(highestExact > bound || highest['>'] > bound || highest['>='] > bound)
      case '>=':
        return !(highestExact >= bound || highest['>'] >= bound || highest['>='] > bound)
    }
  })
}

type Computed = { value: ReadoutValue; problem: string | null }

function compute(
  aggregation: Exclude<Aggregation, 'count'>,
  values: readonly Measurement[],
): Computed {
  const qualified = values.filter(isBounded)
  if (aggregation === 'standard deviation' || aggregation === 'standard error') {
    if (qualified.length > 0) {
      return none(`a ${aggregation} is not defined with qualified values (${listed(qualified)})`)
    }
    const summary = summarize(values.map((measurement) => measurement.value))
    if (summary === null || summary.standardDeviation === null) {
      return none(`a ${aggregation} needs at least two values`)
    }
    const spread =
      aggregation === 'standard deviation'
        ? summary.standardDeviation
        : summary.standardDeviation / Math.sqrt(summary.n)
    return { value: exact(spread, null), problem: null }
  }
  if (aggregation === 'geometric mean') {
    const notPositive = values.find((measurement) => !(measurement.value > 0))
    if (notPositive) {
      return none(`a geometric mean needs values above zero: ${listed([notPositive])} is not`)
    }
  }
  const apply = aggregation === 'geometric mean' ? geometricMean : FUNCTIONS[aggregation]
  if (qualified.length === 0) {
    const result = apply(values.map((measurement) => measurement.value))
    return classify(aggregation, result, result, values, qualified)
  }
  const intervals = values.map(intervalOf)
  const low = apply(intervals.map((interval) => interval.low))
  const high = apply(intervals.map((interval) => interval.high))
  return classify(aggregation, low, high, values, qualified)
}

const FUNCTIONS: Record<
  'arithmetic mean' | 'median' | 'minimum' | 'maximum',
  (values: number[]) => number
> = {
  'arithmetic mean': arithmeticMean,
  median,
  minimum: (values) => values.reduce((least, value) => Math.min(least, value), Infinity),
  maximum: (values) => values.reduce((most, value) => Math.max(most, value), -Infinity),
}

/** exp(mean(ln x)); equal values give themselves exactly, -∞ (no lower end) stays -∞. */
function geometricMean(values: readonly number[]): number {
  if (values.every((value) => value === values[0])) return values[0]!
  if (values.includes(-Infinity)) return -Infinity
  return Math.exp(arithmeticMean(values.map(Math.log)))
}

function arithmeticMean(values: readonly number[]): number {
  let sum = 0
  for (const value of values) sum += value
  return sum / values.length
}

function median(values: number[]): number {
  const sorted = [...values].sort((first, second) => first - second)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

function classify(
  aggregation: Exclude<Aggregation, 'count'>,
  low: number,
  high: number,
  values: readonly Measurement[],
  qualified: readonly Measurement[],
): Computed {
  if (low === high) {
    const approximate = values.some((measurement) => measurement.modifier === '~')
    return { value: exact(low, approximate ? '~' : null), problem: null }
  }
  const lowFinite = Number.isFinite(low)
  const highFinite = Number.isFinite(high)
  if (!lowFinite && highFinite) {
    const inclusive = qualified.every((measurement) => measurement.modifier !== '<')
    return { value: exact(high, inclusive ? '<=' : '<'), problem: null }
  }
  if (lowFinite && !highFinite) {
    const inclusive = qualified.every((measurement) => measurement.modifier !== '>')
    return { value: exact(low, inclusive ? '>=' : '>'), problem: null }
  }
  // Both ends are infinite: with less specific bounds set aside, every `<` bound left lies at or
  // below every exact value and every `>` bound at or above, so a finite low and a different
  // finite high cannot both come out of a monotone function.
  return none(
    `values below and above the measurable range do not give one ${aggregation} (${listed(qualified)})`,
  )
}

function none(problem: string): Computed {
  return { value: EMPTY, problem }
}

function listed(measurements: readonly Measurement[]): string {
  return measurements
    .map((measurement) => `${measurement.modifier ?? ''}${measurement.value}`)
    .join(', ')
}

/** A readout row as aggregation and criteria need it (see `readResultRow`). */
export interface AggregatableRow {
  protocolId: number | null
  batchId: number | null
  moleculeId: number | null
  aggregateRow: boolean
  controlState: string | null
  cells: ReadonlyMap<number, ReadCell>
}

export interface GroupAggregate {
  /** The molecule or batch. */
  subjectId: number
  protocolId: number
  definitionId: number
  /** Detail rows when the group has a value of the definition in one, else the vault's aggregate rows (a curve fit's IC50 per run). */
  inputs: 'detail rows' | 'aggregate rows'
  aggregate: ComputedAggregate
}

/**
 * Aggregates rows per molecule or batch, protocol and readout definition. A definition whose
 * cells of a group are all on aggregate rows (a result the vault calculated per run) is
 * aggregated over those; otherwise over detail rows only. Rows without the molecule or batch
 * (control wells) belong to no group. Sorted by subject, protocol, then definition id.
 */
export function aggregateRows(
  rows: Iterable<AggregatableRow>,
  definitions: ReadonlyMap<number, AggregateDefinition>,
  level: 'molecule' | 'batch',
): GroupAggregate[] {
  interface Group {
    subjectId: number
    protocolId: number
    definitionId: number
    detail: AggregateInput[]
    aggregate: AggregateInput[]
  }
  const bySubject = new Map<number, Map<number, Map<number, Group>>>()
  const groups: Group[] = []
  for (const row of rows) {
    const subjectId = level === 'molecule' ? row.moleculeId : row.batchId
    const protocolId = row.protocolId
    if (subjectId === null || protocolId === null) continue
    let byProtocol = bySubject.get(subjectId)
    if (!byProtocol) bySubject.set(subjectId, (byProtocol = new Map()))
    let byDefinition = byProtocol.get(protocolId)
    if (!byDefinition) byProtocol.set(protocolId, (byDefinition = new Map()))
    for (const [definitionId, cell] of row.cells) {
      let group = byDefinition.get(definitionId)
      if (!group) {
        group = { subjectId, protocolId, definitionId, detail: [], aggregate: [] }
        byDefinition.set(definitionId, group)
        groups.push(group)
      }
      ;(row.aggregateRow ? group.aggregate : group.detail).push({
        cell,
        controlState: row.controlState,
      })
    }
  }
  groups.sort(
    (first, second) =>
      first.subjectId - second.subjectId ||
      first.protocolId - second.protocolId ||
      first.definitionId - second.definitionId,
  )
  return groups.map(({ subjectId, protocolId, definitionId, detail, aggregate }) => {
    const useDetail = detail.some((input) => input.cell.value.kind !== 'empty')
    const inputs = useDetail || aggregate.length === 0 ? detail : aggregate
    return {
      subjectId,
      protocolId,
      definitionId,
      inputs: inputs === detail ? 'detail rows' : 'aggregate rows',
      aggregate: aggregateCells(inputs, definitions.get(definitionId) ?? {}),
    }
  })
}
