import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { comparisonSql } from '../../../../src-common/analysis/readouts/comparisons.ts'
import { chosenAxes, plotChoices, type TableReadout } from './plot-columns.ts'
import { columnsOf, PlotColumns, plotPoints, type RawColumn } from './plot-points.ts'
import type { ColumnKey, ColumnRange, PlotColumnKey } from './results-address.ts'

const readout = (definitionId: number, label: string, unit: string | null): TableReadout => ({
  key: `3:${definitionId}`,
  column: { protocolId: 3, definitionId },
  label,
  protocolName: 'Kinase',
  unit,
  numeric: true,
})
const ic50 = readout(12, 'IC50', 'uM')
const inhibition = readout(15, '% Inhibition', '%')
const choices = plotChoices([ic50, inhibition])
const axes = chosenAxes(choices, { colour: 'logP' })
const members: ColumnKey[] = ['3:12', '3:15']

/** Six molecules: 10 and 11 have both readouts, 12 only IC50, 13 only % inhibition, 14 neither. */
const ids = [10, 11, 12, 13, 14, 15]
const read = new Map<PlotColumnKey, RawColumn>([
  ['3:12', { values: [0.5, 30, 2, null, null, 8], modifiers: [null, '>', '~', null, null, '<'] }],
  [
    '3:15',
    { values: [80, 5, null, 40, null, null], modifiers: [null, null, null, null, null, null] },
  ],
  [
    'logP',
    { values: [1.5, 2.5, 3.5, 4.5, 5.5, null], modifiers: [null, null, null, null, null, null] },
  ],
])

describe('the points of a results plot', () => {
  it('has the molecules with a number in a readout, each column over them', () => {
    expect(columnsOf({ axes, members, ranges: [] })).toEqual(['3:12', '3:15', 'logP'])
    const points = plotPoints(ids, read, { axes, members, ranges: [] }, null)
    expect([...points.ids]).toEqual([10, 11, 12, 13, 15])
    expect(points.inScope).toBe(6)
    const ic50Values = points.columns.get('3:12')!
    expect([...ic50Values.values]).toEqual([0.5, 30, 2, Number.NaN, 8])
    expect(ic50Values.modifiers).toEqual([null, '>', '~', null, '<'])
    expect([...points.columns.get('logP')!.values]).toEqual([1.5, 2.5, 3.5, 4.5, Number.NaN])
  })

  it('keeps the objects of columns that did not change, for the plot to keep its view', () => {
    const first = plotPoints(ids, read, { axes, members, ranges: [] }, null)
    const again = plotPoints(ids, new Map(read), { axes, members, ranges: [] }, first)
    expect(again.ids).toBe(first.ids)
    expect(again.columns.get('3:12')).toBe(first.columns.get('3:12'))
    const changed = new Map(read).set('3:15', {
      values: [81, 5, null, 40, null, null],
      modifiers: [null, null, null, null, null, null],
    })
    const after = plotPoints(ids, changed, { axes, members, ranges: [] }, first)
    expect(after.columns.get('3:15')).not.toBe(first.columns.get('3:15'))
    expect(after.columns.get('3:12')).toBe(first.columns.get('3:12'))

    const columns = new PlotColumns()
    const x = axes.x!
    const made = columns.of(x, first.columns.get(x.key)!)
    expect(made).toMatchObject({ label: 'IC50', unit: 'uM', scale: 'log' })
    expect(columns.of(x, again.columns.get(x.key)!)).toBe(made)
    expect(columns.of({ ...x, scale: 'linear' }, first.columns.get(x.key)!)).not.toBe(made)
  })

  it('keeps within a range exactly the molecules the table’s range filter keeps', () => {
    // Every modifier at, below and above the bounds, as the index stores them.
    const numbers = [0.1, 0.5, 1, 2, 5, 10, 30]
    const modifiers = [null, '<', '<=', '>', '>=', '~']
    const cells = numbers.flatMap((number) => modifiers.map((modifier) => ({ number, modifier })))
    const cellIds = cells.map((_, index) => index + 1)
    const column = {
      values: cells.map((cell) => cell.number),
      modifiers: cells.map((cell) => cell.modifier),
    }
    const db = new Database(':memory:')
    db.exec('CREATE TABLE c (id INTEGER, kind TEXT, number REAL, modifier TEXT, text TEXT)')
    const insert = db.prepare("INSERT INTO c VALUES (?, 'number', ?, ?, NULL)")
    cells.forEach((cell, index) => insert.run(cellIds[index], cell.number, cell.modifier))
    const ranges: ColumnRange[] = [
      { column: '3:12', min: 0.5, max: 5 },
      { column: '3:12', min: null, max: 1 },
      { column: '3:12', min: 2, max: null },
      { column: '3:12', min: 5, max: 5 },
    ]
    for (const range of ranges) {
      const predicate = comparisonSql(
        {
          kind: 'range',
          scale: 'number',
          lower: range.min === null ? null : { value: range.min, inclusive: true },
          upper: range.max === null ? null : { value: range.max, inclusive: true },
        },
        { kind: 'kind', number: 'number', modifier: 'modifier', text: 'text' },
      )
      const bySql = db
        .prepare(`SELECT id FROM c WHERE ${predicate.sql} ORDER BY id`)
        .pluck()
        .all(...predicate.params) as number[]
      const points = plotPoints(
        cellIds,
        new Map([['3:12', column]]),
        { axes, members: ['3:12'], ranges: [range] },
        null,
      )
      expect([...points.ids], JSON.stringify(range)).toEqual(bySql)
      expect(bySql.length).toBeGreaterThan(0)
      expect(bySql.length).toBeLessThan(cells.length)
    }
    db.close()
  })
})
