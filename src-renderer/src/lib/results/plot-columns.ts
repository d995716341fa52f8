/**
 * The columns a results plot can show: the table's numeric readouts and the molecular properties,
 * each with the name its axis gives it and the scale it is first read on (a concentration on a
 * log axis, as potencies are read), and the columns each axis shows when the person has not
 * chosen one: the first two readouts against each other, a single readout against molecular
 * weight, or without a numeric readout molecular weight against cLogP.
 */
import type { ResultsColumn } from '../../../../src-common/analysis/readouts/results-table.ts'
import {
  molecularProperties,
  molecularPropertyNames,
} from '../../../../src-common/chem/molecular-properties.ts'
import type { RequestArgs } from '../bridge.ts'
import type { ScaleKind } from '../plots/scales.ts'
import { isConcentration } from './colour-scale.ts'
import type { ColumnKey, PlotAxis, PlotChoices, PlotColumnKey } from './results-address.ts'

/** A column as `results.points` takes it. */
export type PointColumn = RequestArgs<'results.points'>['columns'][number]

/** `results.points` reads at most this many columns at once. */
export const pointColumnsPerRead = 8

/** A readout column of the table, as the table's state describes it. */
export interface TableReadout {
  key: ColumnKey
  column: ResultsColumn
  label: string
  protocolName: string
  unit: string | null
  numeric: boolean
}

export interface PlotChoice {
  key: PlotColumnKey
  /** For axes, legends and pickers: the readout's name, with its protocol's where two share it. */
  label: string
  unit: string | null
  kind: 'readout' | 'property'
  request: PointColumn
  /** How the column is first read; the person may switch. */
  scale: ScaleKind
}

export type ChosenAxes = Record<PlotAxis, PlotChoice | null>

/** The table's numeric readouts, in its order, then the molecular properties. */
export function plotChoices(readouts: readonly TableReadout[]): PlotChoice[] {
  const numeric = readouts.filter((readout) => readout.numeric)
  const readoutChoices = numeric.map((readout): PlotChoice => {
    const shared = numeric.some(
      (other) => other !== readout && other.label.toLowerCase() === readout.label.toLowerCase(),
    )
    return {
      key: readout.key,
      label: shared ? `${readout.protocolName}: ${readout.label}` : readout.label,
      unit: readout.unit,
      kind: 'readout',
      request: { protocolId: readout.column.protocolId, definitionId: readout.column.definitionId },
      scale: isConcentration(readout.unit) ? 'log' : 'linear',
    }
  })
  const properties = molecularPropertyNames.map((name): PlotChoice => ({
    key: name,
    label: molecularProperties[name].label,
    unit: molecularProperties[name].unit ?? null,
    kind: 'property',
    request: { property: name },
    scale: 'linear',
  }))
  return [...readoutChoices, ...properties]
}

/** What each axis shows: the person's choice where it is one of `choices`, else its default. */
export function chosenAxes(choices: readonly PlotChoice[], chosen: PlotChoices = {}): ChosenAxes {
  const byKey = new Map(choices.map((choice) => [choice.key, choice]))
  const pick = (axis: PlotAxis) => {
    const key = chosen[axis]
    return key === undefined ? null : (byKey.get(key) ?? null)
  }
  const readouts = choices.filter((choice) => choice.kind === 'readout')
  const weight = byKey.get('molecularWeight') ?? null
  const logP = byKey.get('logP') ?? null
  const fallbacks = [...readouts, weight, logP, ...choices]
  const firstOf = (candidates: (PlotChoice | null | undefined)[], other: PlotChoice | null) =>
    candidates.find((candidate) => candidate && candidate.key !== other?.key) ?? null
  const xDefault = readouts.length >= 2 ? readouts[0] : weight
  const yDefault = readouts.length >= 2 ? readouts[1] : readouts.length === 1 ? readouts[0] : logP
  const chosenY = pick('y')
  const x = pick('x') ?? firstOf([xDefault, ...fallbacks], chosenY)
  const y = chosenY ?? firstOf([yDefault, ...fallbacks], x)
  return {
    x,
    y,
    colour: pick('colour'),
    size: pick('size'),
    histogram: pick('histogram') ?? readouts[0] ?? y,
  }
}

/**
 * The readouts that decide which molecules the plot has: those with a number in one of them, as
 * the table has those with a result in its readouts. At most one read's worth, so that a wide
 * table does not read every column of every molecule.
 */
export function memberReadouts(choices: readonly PlotChoice[]): ColumnKey[] {
  return choices
    .filter((choice) => choice.kind === 'readout')
    .slice(0, pointColumnsPerRead)
    .map((choice) => choice.key as ColumnKey)
}
