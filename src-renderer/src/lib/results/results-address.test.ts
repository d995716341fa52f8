import { describe, expect, it } from 'vitest'
import {
  emptyQuestion,
  parseResultsQuery,
  resultsHref,
  resultsQuery,
  sameRows,
  withColumns,
  withRange,
  type ResultsQuestion,
} from './results-address.ts'

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
