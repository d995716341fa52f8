import { describe, expect, it } from 'vitest'
import {
  emptyQuestion,
  parseResultsQuery,
  resultsHref,
  resultsQuery,
  sameRows,
  sameTable,
  withColumns,
  withPicked,
  withPlotColumn,
  withRange,
  withView,
  type ResultsQuestion,
} from './results-address.ts'
import { picks } from './molecule-pick.ts'

const question: ResultsQuestion = {
  level: 'batch',
  columns: [
    { protocolId: 3, definitionId: 12 },
    { protocolId: 3, definitionId: 15 },
  ],
  sort: { column: '3:12', direction: 'desc' },
  ranges: [{ column: '3:12', min: null, max: 1 }],
  criteria: ['Kinase IC50 (ADP-Glo): IC50 < 1 uM', 'Solubility: Kinetic >= 10 uM'],
  text: 'VD-00 & co',
}

describe('a results table in its address', () => {
  it('writes every part readably and reads it back the same', () => {
    const href = resultsHref(question)
    expect(href).toBe(
      '#/results?level=batch&columns=3:12,3:15&sort=3:12&order=desc&range=3:12,,1' +
        '&criterion=Kinase%20IC50%20(ADP-Glo):%20IC50%20%3C%201%20uM' +
        '&criterion=Solubility:%20Kinetic%20%3E%3D%2010%20uM&q=VD-00%20%26%20co',
    )
    expect(parseResultsQuery(href.split('?')[1]!)).toEqual(question)
    expect(resultsHref()).toBe('#/results')
    expect(parseResultsQuery('')).toEqual(emptyQuestion)
  })

  it('keeps a plus sign in a criterion as a plus', () => {
    const withExponent = { ...emptyQuestion, criteria: ['Potency: IC50 < 1e+3 nM'] }
    expect(parseResultsQuery(resultsQuery(withExponent)).criteria).toEqual([
      'Potency: IC50 < 1e+3 nM',
    ])
  })

  it('leaves out what it cannot read instead of refusing the address', () => {
    const read = parseResultsQuery(
      'level=plates&columns=3:12,x,3:12,4:-1,5:6&sort=9:9&range=3:12,a,2&range=5:6,4,1' +
        '&range=3:12,,&range=7:7,1,2&criterion=%20%20&q=',
    )
    expect(read).toEqual({
      ...emptyQuestion,
      columns: [
        { protocolId: 3, definitionId: 12 },
        { protocolId: 5, definitionId: 6 },
      ],
    })
    expect(parseResultsQuery('columns=1:2&sort=name&order=sideways').sort).toEqual({
      column: 'name',
      direction: 'asc',
    })
  })

  it('tells a new order of the same rows from new rows', () => {
    expect(sameRows(question, { ...question, sort: null })).toBe(true)
    expect(sameRows(question, { ...question, text: 'VD-01' })).toBe(false)
    expect(sameRows(question, { ...question, level: 'molecule' })).toBe(false)
  })

  it('drops the sort and ranges of columns taken away', () => {
    const fewer = withColumns(question, [{ protocolId: 3, definitionId: 15 }])
    expect(fewer.sort).toBeNull()
    expect(fewer.ranges).toEqual([])
    expect(withColumns(question, question.columns)).toEqual(question)
  })

  it('sets and clears one column range, keeping the columns order', () => {
    const both = withRange(question, '3:15', { min: 5, max: null })
    expect(both.ranges).toEqual([
      { column: '3:12', min: null, max: 1 },
      { column: '3:15', min: 5, max: null },
    ])
    const again = withRange(withRange(question, '3:12', null), '3:12', { min: null, max: 1 })
    expect(resultsQuery(again)).toBe(resultsQuery(question))
    expect(withRange(both, '3:15', { min: null, max: null }).ranges).toEqual(question.ranges)
  })
})

describe('the plot of a results table in its address', () => {
  const plotted: ResultsQuestion = {
    ...question,
    view: 'plot',
    plot: { x: '3:15', y: 'molecularWeight', histogram: '3:12' },
    picked: picks.pick([40, 41, 42, 90]),
  }

  it('writes the view, the chosen columns and the picked molecules, and reads them back', () => {
    const href = resultsHref(plotted)
    expect(href.split('&q=VD-00%20%26%20co')[1]).toBe(
      '&view=plot&x=3:15&y=molecularWeight&hist=3:12&picked=14-2.1c',
    )
    expect(parseResultsQuery(href.split('?')[1]!)).toEqual(plotted)
    // As a table, with no column chosen and nothing picked, it says nothing of a plot.
    expect(resultsHref(withPicked(withView(plotted, 'table'), null))).not.toMatch(/view|picked/)
  })

  it('leaves out plot columns that are not the table’s readouts nor properties', () => {
    const read = parseResultsQuery(
      'columns=3:12&view=table&x=4:1&y=weight&colour=3:12&size=logP&hist=&picked=5..2',
    )
    expect(read).toEqual({
      ...emptyQuestion,
      columns: [{ protocolId: 3, definitionId: 12 }],
      plot: { colour: '3:12', size: 'logP' },
    })
  })

  it('drops the plot columns of readouts taken away, keeping properties', () => {
    const fewer = withColumns(plotted, [{ protocolId: 3, definitionId: 12 }])
    expect(fewer.plot).toEqual({ y: 'molecularWeight', histogram: '3:12' })
    expect(withColumns(plotted, []).plot).toEqual({ y: 'molecularWeight' })
    expect(withPlotColumn(withPlotColumn(fewer, 'y', null), 'histogram', null).plot).toBeUndefined()
  })

  it('names a pick too large for an address by its key, and keeps a key it cannot read', () => {
    const many = Array.from({ length: 3000 }, (_, index) => 7 * index + (index % 5))
    const large = withPicked(question, picks.pick(many))
    const href = resultsHref(large)
    expect(href).toMatch(/&picked=~[0-9a-z]{14}$/)
    expect(href.length).toBeLessThan(250)
    expect(parseResultsQuery(href.split('?')[1]!).picked?.ids).toEqual(many)
    // Kept by another window (or forgotten): still named, so the screen can say it is not applied.
    const foreign = parseResultsQuery('columns=3:12&picked=~0000000000000a')
    expect(foreign.picked).toEqual({ ids: null, token: '~0000000000000a' })
    expect(resultsQuery(foreign)).toBe('columns=3:12&picked=~0000000000000a')
    expect(parseResultsQuery('columns=3:12&picked=~not%20a%20key').picked).toBeUndefined()
  })

  it('tells the same table shown another way from a table of other rows', () => {
    const table = withView(plotted, 'table')
    expect(sameTable(plotted, withPlotColumn(table, 'colour', 'logP'))).toBe(true)
    expect(sameRows(plotted, table)).toBe(true)
    expect(sameRows(plotted, withPicked(plotted, picks.pick([40])))).toBe(false)
    expect(sameRows(plotted, withPicked(plotted, null))).toBe(false)
  })
})
