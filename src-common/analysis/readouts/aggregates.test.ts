import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { requirement } from '../../../test/support/environment.ts'
import {
  aggregateCells,
  aggregateRows,
  parseAggregation,
  type AggregatableRow,
  type AggregateDefinition,
  type AggregateInput,
  type ComputedAggregate,
} from './aggregates.ts'
import { givenText, readReadoutCell, type ReadCell } from './readout-value.ts'

const micromolar: AggregateDefinition = { valueType: 'number', unit: 'uM' }

/** Cells as the vault sends them; `{control}` marks a control well. */
function inputs(...raws: unknown[]): AggregateInput[] {
  return raws.map((raw) => {
    if (typeof raw === 'object' && raw !== null && 'control' in raw) {
      const { control, ...cell } = raw as { control: string }
      return { cell: readReadoutCell(cell, micromolar), controlState: control }
    }
    return { cell: readReadoutCell(raw, micromolar) }
  })
}

function aggregate(aggregation: string, ...raws: unknown[]): ComputedAggregate {
  return aggregateCells(inputs(...raws), { ...micromolar, aggregation })
}

/** The aggregate as a person reads it: "<5", "25", "ND; inactive", or "" with a problem. */
function shown(aggregation: string, ...raws: unknown[]): string {
  return givenText(aggregate(aggregation, ...raws).value)
}

describe('aggregation names', () => {
  it('reads the names definitions use, in any case and spelling', () => {
    expect(
      ['Arithmetic Mean', 'geometric_mean', 'GeoMean', 'Std Dev', 'average', 'SEM', 'Max', 'n'].map(
        parseAggregation,
      ),
    ).toEqual([
      'arithmetic mean',
      'geometric mean',
      'geometric mean',
      'standard deviation',
      'arithmetic mean',
      'standard error',
      'maximum',
      'count',
    ])
    expect(parseAggregation('harmonic mean')).toBeNull()
  })

  it('averages arithmetically when the definition names no aggregation', () => {
    expect(aggregateCells(inputs(2, 4), micromolar).value).toMatchObject({ value: 3 })
    expect(aggregateCells(inputs(2, 4), { ...micromolar, aggregation: ' ' }).aggregation).toBe(
      'arithmetic mean',
    )
  })

  it('says when it does not compute the aggregation a definition names', () => {
    const result = aggregate('harmonic mean', 2, 4)
    expect(result.value).toEqual({ kind: 'empty' })
    expect(result.aggregation).toBeNull()
    expect(result.problem).toBe('Vault Desk does not compute the aggregation "harmonic mean"')
    expect(result.n).toBe(2)
  })
})

describe('aggregates of plain values, by hand', () => {
  it('computes each function and marks it computed here', () => {
    // (2 + 4 + 4 + 4 + 5 + 5 + 7 + 9) / 8 = 40 / 8 = 5
    const values = [2, 4, 4, 4, 5, 5, 7, 9]
    const mean = aggregate('arithmetic mean', ...values)
    expect(mean).toMatchObject({ source: 'computed', aggregation: 'arithmetic mean', n: 8 })
    expect(mean.value).toEqual({ kind: 'number', value: 5, modifier: null, unit: null, text: '5' })
    // Squared deviations 9+1+1+1+0+0+4+16 = 32; sample variance 32 / 7.
    const sd = aggregate('standard deviation', ...values).value
    expect(sd).toMatchObject({ value: Math.sqrt(32 / 7) })
    expect(aggregate('standard error', ...values).value).toMatchObject({
      value: Math.sqrt(32 / 7) / Math.sqrt(8),
    })
    // Sorted 2 4 4 4 5 5 7 9: the middle two are 4 and 5.
    expect(shown('median', ...values)).toBe('4.5')
    expect(shown('median', 9, 1, 5)).toBe('5')
    expect(shown('minimum', ...values)).toBe('2')
    expect(shown('maximum', ...values)).toBe('9')
    expect(shown('count', ...values)).toBe('8')
  })

  it('computes geometric means: the n-th root of the product', () => {
    // (2 × 8)^(1/2) = 4; (1 × 10 × 100)^(1/3) = 10; (0.1 × 1000)^(1/2) = 10
    expect(aggregate('geometric mean', 2, 8).value).toMatchObject({ value: 4 })
    const decades = aggregate('geometric mean', 1, 10, 100).value
    expect(decades.kind === 'number' && decades.value).toBeCloseTo(10, 12)
    const wide = aggregate('geometric mean', 0.1, 1000).value
    expect(wide.kind === 'number' && wide.value).toBeCloseTo(10, 12)
  })

  it('refuses a geometric mean of values at or below zero, and spreads of fewer than two', () => {
    expect(aggregate('geometric mean', 4, -3, 2).problem).toBe(
      'a geometric mean needs values above zero: -3 is not',
    )
    expect(aggregate('geometric mean', 0, 2).value).toEqual({ kind: 'empty' })
    expect(aggregate('standard deviation', 4).problem).toBe(
      'a standard deviation needs at least two values',
    )
  })

  it('leaves out outliers, control wells and cells with only a note, and counts them', () => {
    // Used: 10, 20, 30 → mean 60 / 3 = 20. Left out: outlier 40, control 1000, the note.
    const result = aggregate(
      'arithmetic mean',
      10,
      { value: 20 },
      { value: 40, outlier: true, note: 'pipetting error' },
      { value: 1000, control: '+' },
      { value: -2, control: '-' },
      '30',
      { note: 'precipitate' },
    )
    expect(result.value).toMatchObject({ value: 20, modifier: null })
    expect(result.n).toBe(3)
    expect(result.excluded).toEqual({
      outliers: 1,
      controls: 2,
      empty: 1,
      text: 0,
      unconvertible: 0,
      lessSpecific: 0,
    })
  })

  it('converts values with their own unit, and lists text and unconvertible values left out', () => {
    // In µM: 300 nM = 0.3, 0.5; mean (0.3 + 0.5) / 2 = 0.4. Left out: ND twice, 5 kg.
    const result = aggregate('arithmetic mean', '300 nM', 0.5, 'ND', { value: 'ND' }, '5 kg')
    expect(result.value).toMatchObject({ value: 0.4 })
    expect(result.n).toBe(2)
    expect(result.notAggregated).toEqual(['ND', '5 kg'])
    expect(result.excluded).toMatchObject({ text: 2, unconvertible: 1 })
    expect(shown('count', '300 nM', 0.5, 'ND', { value: 'ND' }, '5 kg')).toBe('5')
  })

  it('shows the texts when no number is left', () => {
    const result = aggregate('geometric mean', 'ND', 'inactive', 'ND', { value: 3, outlier: true })
    expect(result.value).toEqual({ kind: 'text', text: 'ND; inactive' })
    expect(result.n).toBe(3)
    expect(result.problem).toBeNull()
    expect(aggregate('arithmetic mean').value).toEqual({ kind: 'empty' })
  })

  it('lists the distinct values of text readouts and picks dates of date readouts', () => {
    const text = aggregateCells(
      ['precipitate', 'ok', 'precipitate'].map((raw) => ({
        cell: readReadoutCell(raw, { valueType: 'text' }),
      })),
      { valueType: 'text', aggregation: 'arithmetic mean' },
    )
    expect(text.value).toEqual({ kind: 'text', text: 'precipitate; ok' })
    expect(text.notAggregated).toEqual([])
    const dates = ['2024-03-05', '2023-12-01', '2024-01-20'].map((raw) => ({
      cell: readReadoutCell(raw, { valueType: 'date' }),
    }))
    expect(givenText(aggregateCells(dates, { valueType: 'date', aggregation: 'min' }).value)).toBe(
      '2023-12-01',
    )
    expect(givenText(aggregateCells(dates, { valueType: 'date', aggregation: 'max' }).value)).toBe(
      '2024-03-05',
    )
    expect(
      givenText(aggregateCells(dates, { valueType: 'date', aggregation: 'count' }).value),
    ).toBe('3')
  })
})

describe('aggregates of qualified values', () => {
  it('sets aside a bound that a consistent, more specific measurement makes less specific', () => {
    expect(shown('arithmetic mean', '<1', '<10')).toBe('<1')
    // <100 is consistent with 20: (20 + 30) / 2 = 25
    expect(shown('arithmetic mean', 20, 30, '<100')).toBe('25')
    // <100 is consistent with 80: (80 + 150) / 2 = 115
    expect(shown('arithmetic mean', 80, '<100', 150)).toBe('115')
    const result = aggregate('arithmetic mean', 80, '<100', 150)
    expect(result.n).toBe(2)
    expect(result.excluded.lessSpecific).toBe(1)
    expect(shown('arithmetic mean', '>30', '>30')).toBe('>30')
    expect(aggregate('arithmetic mean', '>30', '>30').n).toBe(1)
    expect(shown('arithmetic mean', '>30', '>100')).toBe('>100')
    // <=5 holds 5 and <5; <5 does not hold <=5.
    expect(shown('arithmetic mean', '<=5', 5)).toBe('5')
    expect(shown('arithmetic mean', '<=5', '<5')).toBe('<5')
    expect(shown('arithmetic mean', '>=5', '>5')).toBe('>5')
  })

  it('keeps a bound no measurement is consistent with, and bounds the result', () => {
    // 8 is not below 2: the mean lies below (2 + 8) / 2 = 5.
    expect(shown('arithmetic mean', '<2', 8)).toBe('<5')
    expect(shown('arithmetic mean', '<=2', 8)).toBe('<=5')
    // 12 is not above 30: the mean lies above (12 + 30) / 2 = 21.
    expect(shown('arithmetic mean', 12, '>30')).toBe('>21')
    // Geometric: (1 × 4)^(1/2) = 2, and <1 makes it less.
    expect(shown('geometric mean', '<1', 4)).toBe('<2')
    // Geometric: (30 × 0.3)^(1/2) = 3, and >30 makes it more (exp of mean logs: to rounding).
    const geometric = aggregate('geometric mean', 0.3, '>30').value
    expect(geometric).toMatchObject({ kind: 'number', modifier: '>' })
    expect(geometric.kind === 'number' && geometric.value).toBeCloseTo(3, 12)
    expect(shown('median', '<2', 8, 9)).toBe('8')
    expect(shown('median', '<2', 8)).toBe('<5')
    expect(shown('maximum', 12, '>30')).toBe('>30')
    expect(shown('minimum', 12, '>30')).toBe('12')
    expect(shown('minimum', '<2', 8)).toBe('<2')
    expect(shown('count', '<2', 8, '>30')).toBe('3')
  })

  it('gives no value where the result has no single-number form, and says why', () => {
    const crossed = aggregate('arithmetic mean', '<2', '>30')
    expect(crossed.value).toEqual({ kind: 'empty' })
    expect(crossed.problem).toBe(
      'values below and above the measurable range do not give one arithmetic mean (<2, >30)',
    )
    // >30 is set aside for 40; lower ends -∞ 3 40 and upper ends 2 3 40 both give 3.
    expect(shown('median', '<2', 3, '>30', 40)).toBe('3')
    expect(aggregate('median', '<2', '>30').problem).toBe(
      'values below and above the measurable range do not give one median (<2, >30)',
    )
    expect(aggregate('standard deviation', 3, '<1', 5).problem).toBe(
      'a standard deviation is not defined with qualified values (<1)',
    )
  })

  it('marks a result of approximate values as approximate', () => {
    expect(shown('arithmetic mean', '~3', 5)).toBe('~4')
    expect(shown('arithmetic mean', 3, 5)).toBe('4')
  })
})

describe('aggregates per molecule and batch', () => {
  const IC50 = 5
  const INHIBITION = 6
  const definitions = new Map<number, AggregateDefinition>([
    [IC50, { valueType: 'number', unit: 'uM', aggregation: 'geometric mean' }],
    [INHIBITION, { valueType: 'number', unit: '%' }],
  ])

  function row(
    batchId: number | null,
    moleculeId: number | null,
    cells: Record<number, unknown>,
    extra: Partial<AggregatableRow> = {},
  ): AggregatableRow {
    const read = new Map<number, ReadCell>()
    for (const [id, raw] of Object.entries(cells)) read.set(Number(id), readReadoutCell(raw))
    return {
      protocolId: 1,
      batchId,
      moleculeId,
      aggregateRow: false,
      controlState: null,
      cells: read,
      ...extra,
    }
  }

  const rows = [
    row(null, null, { [INHIBITION]: 100 }, { controlState: '+' }),
    row(11, 100, { [INHIBITION]: 20 }),
    row(11, 100, { [INHIBITION]: { value: 90, outlier: true } }),
    row(11, 100, { [INHIBITION]: 40 }),
    row(12, 100, { [INHIBITION]: 60 }),
    row(12, 100, { [INHIBITION]: 5 }, { controlState: '#' }),
    // The vault's per-run curve results: IC50 on aggregate rows only.
    row(11, 100, { [IC50]: 0.5 }, { aggregateRow: true }),
    row(12, 100, { [IC50]: 2 }, { aggregateRow: true }),
    row(13, 200, { [IC50]: '>30' }, { aggregateRow: true, protocolId: 2 }),
  ]

  it('groups by batch, from detail rows or else the vault’s aggregate rows', () => {
    const byBatch = aggregateRows(rows, definitions, 'batch')
    expect(
      byBatch.map((group) => [
        group.subjectId,
        group.protocolId,
        group.definitionId,
        group.inputs,
        givenText(group.aggregate.value),
        group.aggregate.n,
      ]),
    ).toEqual([
      [11, 1, IC50, 'aggregate rows', '0.5', 1],
      // (20 + 40) / 2 = 30, the outlier 90 left out
      [11, 1, INHIBITION, 'detail rows', '30', 2],
      [12, 1, IC50, 'aggregate rows', '2', 1],
      // 60; the reference well (#) left out
      [12, 1, INHIBITION, 'detail rows', '60', 1],
      [13, 2, IC50, 'aggregate rows', '>30', 1],
    ])
  })

  it('groups by molecule across its batches', () => {
    const byMolecule = aggregateRows(rows, definitions, 'molecule')
    const ic50 = byMolecule.find((group) => group.subjectId === 100 && group.definitionId === IC50)
    // Geometric mean of 0.5 and 2: (0.5 × 2)^(1/2) = 1
    expect(ic50?.aggregate.value).toMatchObject({ value: 1 })
    const inhibition = byMolecule.find(
      (group) => group.subjectId === 100 && group.definitionId === INHIBITION,
    )
    // (20 + 40 + 60) / 3 = 40
    expect(inhibition?.aggregate.value).toMatchObject({ value: 40 })
    expect(inhibition?.aggregate.excluded).toMatchObject({ outliers: 1, controls: 1 })
  })
})

describe('aggregates against SciPy', () => {
  const python = '/usr/bin/python3'
  const scipy =
    fs.existsSync(python) &&
    (() => {
      try {
        execFileSync(python, ['-c', 'import scipy.stats'], { stdio: 'ignore' })
        return true
      } catch {
        return false
      }
    })()
  const run = requirement(scipy, 'Debian python3 with SciPy (/usr/bin/python3, python3-scipy)')

  it.runIf(run)('agrees with scipy.stats and numpy on random lognormal replicates', () => {
    let state = 20_240_305
    const random = () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
      return state / 2_147_483_648
    }
    const samples = Array.from({ length: 60 }, (_, index) =>
      Array.from({ length: 2 + (index % 9) }, () => {
        const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
        return Number((10 ** (normal * 1.5 - 1)).toPrecision(4))
      }),
    )
    const script = `
import json, sys
import numpy as np
from scipy import stats
out = []
for xs in json.load(sys.stdin):
    a = np.array(xs, dtype=float)
    out.append({
        'arithmetic mean': float(np.mean(a)),
        'geometric mean': float(stats.gmean(a)),
        'median': float(np.median(a)),
        'minimum': float(np.min(a)),
        'maximum': float(np.max(a)),
        'standard deviation': float(stats.tstd(a)),
        'standard error': float(stats.sem(a)),
    })
json.dump(out, sys.stdout)
`
    const reference = JSON.parse(
      execFileSync(python, ['-c', script], { input: JSON.stringify(samples) }).toString(),
    ) as Record<string, number>[]
    samples.forEach((sample, index) => {
      for (const [aggregation, expected] of Object.entries(reference[index]!)) {
        const computed = aggregate(aggregation, ...sample).value
        expect(computed.kind, `${aggregation} of ${sample.join(', ')}`).toBe('number')
        const value = computed.kind === 'number' ? computed.value : Number.NaN
        expect(
          Math.abs(value - expected),
          `${aggregation} of ${sample.join(', ')}`,
        ).toBeLessThanOrEqual(Math.abs(expected) * 1e-12)
      }
    })
  })
})
