import { describe, expect, it } from 'vitest'
import { molecularPropertyNames } from '../../../../src-common/chem/molecular-properties.ts'
import {
  chosenAxes,
  memberReadouts,
  plotChoices,
  type PlotChoice,
  type TableReadout,
} from './plot-columns.ts'
import type { ColumnKey } from './results-address.ts'

function readout(
  protocolId: number,
  definitionId: number,
  label: string,
  unit: string | null,
  numeric = true,
): TableReadout {
  return {
    key: `${protocolId}:${definitionId}`,
    column: { protocolId, definitionId },
    label,
    protocolName: `Protocol ${protocolId}`,
    unit,
    numeric,
  }
}

const ic50 = readout(3, 12, 'IC50', 'uM')
const inhibition = readout(3, 15, '% Inhibition', '%')
const comment = readout(3, 16, 'Comment', null, false)
const otherIc50 = readout(7, 2, 'IC50', 'nM')

const keysOf = (axes: ReturnType<typeof chosenAxes>) =>
  Object.fromEntries(Object.entries(axes).map(([axis, choice]) => [axis, choice?.key ?? null]))

describe('the columns a results plot can show', () => {
  it('offers the numeric readouts, then every molecular property', () => {
    const choices = plotChoices([ic50, comment, inhibition, otherIc50])
    expect(choices.map((choice) => choice.key)).toEqual([
      '3:12',
      '3:15',
      '7:2',
      ...molecularPropertyNames,
    ])
    expect(choices[0]).toEqual<PlotChoice>({
      key: '3:12',
      // Two readouts named alike are told apart by their protocols.
      label: 'Protocol 3: IC50',
      unit: 'uM',
      kind: 'readout',
      request: { protocolId: 3, definitionId: 12 },
      scale: 'log',
    })
    expect(choices[1]).toMatchObject({ label: '% Inhibition', scale: 'linear' })
    expect(choices.find((choice) => choice.key === 'molecularWeight')).toMatchObject({
      label: 'Molecular weight',
      unit: 'g/mol',
      kind: 'property',
      request: { property: 'molecularWeight' },
    })
  })

  it('plots the first two readouts, one against molecular weight, or weight against cLogP', () => {
    expect(keysOf(chosenAxes(plotChoices([inhibition, ic50, otherIc50])))).toEqual({
      x: '3:15',
      y: '3:12',
      colour: null,
      size: null,
      histogram: '3:15',
    })
    expect(keysOf(chosenAxes(plotChoices([ic50, comment])))).toEqual({
      x: 'molecularWeight',
      y: '3:12',
      colour: null,
      size: null,
      histogram: '3:12',
    })
    expect(keysOf(chosenAxes(plotChoices([comment])))).toEqual({
      x: 'molecularWeight',
      y: 'logP',
      colour: null,
      size: null,
      histogram: 'logP',
    })
  })

  it('takes the person’s choices, moving a default out of the way of a chosen axis', () => {
    const choices = plotChoices([inhibition, ic50])
    expect(
      keysOf(chosenAxes(choices, { x: '3:12', colour: 'logP', size: '3:15', histogram: 'logP' })),
    ).toEqual({ x: '3:12', y: '3:15', colour: 'logP', size: '3:15', histogram: 'logP' })
    // The default x is the chosen y: x takes the next column instead.
    expect(keysOf(chosenAxes(choices, { y: '3:15' }))).toMatchObject({ x: '3:12', y: '3:15' })
    // A readout no longer among the choices (or a text one) is no choice.
    expect(
      keysOf(chosenAxes(choices, { x: '9:9' as ColumnKey, colour: comment.key })),
    ).toMatchObject({ x: '3:15', y: '3:12', colour: null })
  })

  it('counts a molecule in by at most one read of readouts', () => {
    const many = Array.from({ length: 12 }, (_, index) => readout(4, index + 1, `R${index}`, null))
    expect(memberReadouts(plotChoices(many))).toEqual(many.slice(0, 8).map((one) => one.key))
    expect(memberReadouts(plotChoices([comment]))).toEqual([])
  })
})
