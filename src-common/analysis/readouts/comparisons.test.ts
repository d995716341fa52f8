import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import {
  comparisonSql,
  escapeLike,
  indexedCellOf,
  meetsComparison,
  type Bound,
  type Comparison,
  type IndexedCell,
} from './comparisons.ts'
import { readReadoutCell } from './readout-value.ts'

function cell(raw: unknown, unit: string | null = 'uM'): IndexedCell {
  return indexedCellOf(readReadoutCell(raw, { valueType: 'any', unit }).value, unit)
}

const bound = (value: number, inclusive: boolean): Bound => ({ value, inclusive })
const below = (value: number, inclusive = false): Comparison => ({
  kind: 'range',
  scale: 'number',
  lower: null,
  upper: bound(value, inclusive),
})
const above = (value: number, inclusive = false): Comparison => ({
  kind: 'range',
  scale: 'number',
  lower: bound(value, inclusive),
  upper: null,
})
const equal = (value: number): Comparison => ({
  kind: 'range',
  scale: 'number',
  lower: bound(value, true),
  upper: bound(value, true),
})
const between = (low: number, high: number): Comparison => ({
  kind: 'range',
  scale: 'number',
  lower: bound(low, true),
  upper: bound(high, true),
})
const notEqual = (value: number): Comparison => ({ kind: 'not equal', scale: 'number', value })

describe('comparing qualified values: met only when every value they stand for is', () => {
  it('>30 meets > 10, >= 30, > 30 and != 30, but not < 40, = 30, from 10 to 100 or != 50', () => {
    const inactive = cell('>30')
    expect(meetsComparison(above(10), inactive)).toBe(true)
    expect(meetsComparison(above(30, true), inactive)).toBe(true)
    expect(meetsComparison(above(30), inactive)).toBe(true)
    expect(meetsComparison(notEqual(30), inactive)).toBe(true)
    expect(meetsComparison(notEqual(5), inactive)).toBe(true)
    expect(meetsComparison(below(40), inactive)).toBe(false)
    expect(meetsComparison(equal(30), inactive)).toBe(false)
    expect(meetsComparison(between(10, 100), inactive)).toBe(false)
    expect(meetsComparison(notEqual(50), inactive)).toBe(false)
    expect(meetsComparison(above(31), inactive)).toBe(false)
  })

  it('<1 meets < 1, <= 1 and < 5, but not > 0.5; <=1 does not meet < 1', () => {
    const potent = cell('<1')
    expect(meetsComparison(below(1), potent)).toBe(true)
    expect(meetsComparison(below(1, true), potent)).toBe(true)
    expect(meetsComparison(below(5), potent)).toBe(true)
    expect(meetsComparison(above(0.5), potent)).toBe(false)
    expect(meetsComparison(below(0.9), potent)).toBe(false)
    expect(meetsComparison(below(1), cell('<=1'))).toBe(false)
    expect(meetsComparison(below(1, true), cell('<=1'))).toBe(true)
    expect(meetsComparison(above(30), cell('>=30'))).toBe(false)
    expect(meetsComparison(notEqual(30), cell('>=30'))).toBe(false)
    expect(meetsComparison(notEqual(29), cell('>=30'))).toBe(true)
  })

  it('compares plain and approximate values as their number, bounds inclusive as written', () => {
    expect(meetsComparison(between(1, 3), cell(3))).toBe(true)
    expect(meetsComparison(below(3), cell(3))).toBe(false)
    expect(meetsComparison(below(3, true), cell('~3'))).toBe(true)
    expect(meetsComparison(equal(3), cell('~3'))).toBe(true)
    expect(meetsComparison(notEqual(3), cell(3))).toBe(false)
  })

  it('compares in the definition’s unit: 300 nM is below 1 µM', () => {
    expect(cell('300 nM', 'uM')).toMatchObject({ kind: 'number', number: 0.3 })
    expect(meetsComparison(below(1), cell('300 nM', 'uM'))).toBe(true)
    expect(meetsComparison(below(1000), cell(300, 'nM'))).toBe(true)
    expect(cell('5 kg', 'uM')).toEqual({
      kind: 'text',
      number: null,
      modifier: null,
      text: '5 kg',
    })
  })
})

describe('comparing text, booleans, dates and empty cells', () => {
  it('never meets a numeric comparison with text; text equality ignores ASCII case', () => {
    const notDone = cell('ND')
    for (const comparison of [below(5), above(-1), notEqual(5), between(-1e9, 1e9)]) {
      expect(meetsComparison(comparison, notDone)).toBe(false)
    }
    expect(meetsComparison({ kind: 'text equal', text: 'nd' }, notDone)).toBe(true)
    expect(meetsComparison({ kind: 'text equal', text: 'N.D.' }, notDone)).toBe(false)
    expect(meetsComparison({ kind: 'text not equal', text: 'inactive' }, notDone)).toBe(true)
    expect(meetsComparison({ kind: 'text not equal', text: 'ND' }, notDone)).toBe(false)
    expect(meetsComparison({ kind: 'text equal', text: '30' }, cell(30))).toBe(false)
  })

  it('finds text literally in any cell with a value, numbers by their text as given', () => {
    expect(meetsComparison({ kind: 'contains', text: 'PRECIP' }, cell('precipitate'))).toBe(true)
    expect(meetsComparison({ kind: 'contains', text: '20E' }, cell('1.20E+2'))).toBe(true)
    expect(meetsComparison({ kind: 'contains', text: '>' }, cell('>30'))).toBe(false)
    expect(meetsComparison({ kind: 'contains', text: '%_' }, cell('50%_x'))).toBe(true)
    expect(meetsComparison({ kind: 'contains', text: '%' }, cell('abc'))).toBe(false)
    expect(meetsComparison({ kind: 'does not contain', text: 'x' }, cell('abc'))).toBe(true)
    expect(meetsComparison({ kind: 'does not contain', text: 'x' }, cell(null))).toBe(false)
    expect(meetsComparison({ kind: 'contains', text: '' }, cell(null))).toBe(false)
  })

  it('compares booleans and dates by their own kind; present is any cell', () => {
    expect(meetsComparison({ kind: 'boolean', value: true }, cell(true))).toBe(true)
    expect(meetsComparison({ kind: 'boolean', value: true }, cell(false))).toBe(false)
    expect(meetsComparison({ kind: 'boolean', value: true }, cell(1))).toBe(false)
    const day = cell('2024-03-05')
    const march: Comparison = {
      kind: 'range',
      scale: 'date',
      lower: bound(Date.UTC(2024, 2, 1), true),
      upper: null,
    }
    expect(meetsComparison(march, day)).toBe(true)
    expect(meetsComparison({ ...march, scale: 'number' }, day)).toBe(false)
    expect(meetsComparison({ kind: 'present' }, cell({ note: 'no fit' }))).toBe(true)
  })

  it('escapes LIKE patterns', () => {
    expect(escapeLike('50%_a\\b')).toBe('50\\%\\_a\\\\b')
  })
})

describe('the SQL written for the index agrees with the evaluator', () => {
  const raws: unknown[] = [null, { note: 'no fit' }, 'ND', 'nd', 'Precipitate', '50%_x', 'a\\b']
  const points = [-1, 0, 0.5, 1, 2.5, 30, 100]
  for (const point of points) {
    raws.push(point, `~${point}`)
    for (const mark of ['<', '<=', '>', '>=']) raws.push(`${mark}${point}`)
  }
  raws.push(true, false, '2024-03-05', '2024-03-05T12:00:00Z', '300 nM', '5 kg', 1.2e-7)
  const cells = raws.map((raw) => cell(raw))

  const comparisons: Comparison[] = [{ kind: 'present' }]
  for (const point of points) {
    for (const inclusive of [true, false]) {
      comparisons.push(below(point, inclusive), above(point, inclusive))
      comparisons.push({
        kind: 'range',
        scale: 'number',
        lower: bound(point, inclusive),
        upper: bound(point + 2, !inclusive),
      })
    }
    comparisons.push(equal(point), notEqual(point), between(point, point * 3 + 1))
  }
  comparisons.push(
    { kind: 'range', scale: 'date', lower: bound(Date.UTC(2024, 2, 5), true), upper: null },
    { kind: 'range', scale: 'date', lower: null, upper: bound(Date.UTC(2024, 2, 5, 12), false) },
    { kind: 'not equal', scale: 'date', value: Date.UTC(2024, 2, 5) },
    { kind: 'boolean', value: true },
    { kind: 'boolean', value: false },
  )
  for (const text of ['nd', 'ND', 'precipitate', '%', '%_', '_', 'a\\b', '\\', '30', 'Yes']) {
    comparisons.push(
      { kind: 'text equal', text },
      { kind: 'text not equal', text },
      { kind: 'contains', text },
      { kind: 'does not contain', text },
    )
  }

  it('selects the same cells for every comparison in SQLite', () => {
    const db = new Database(':memory:')
    try {
      db.exec(
        `CREATE TABLE cells (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, number REAL, modifier TEXT, text TEXT)`,
      )
      const insert = db.prepare(
        `INSERT INTO cells (id, kind, number, modifier, text) VALUES (?, ?, ?, ?, ?)`,
      )
      cells.forEach((indexed, id) =>
        insert.run(id, indexed.kind, indexed.number, indexed.modifier, indexed.text),
      )
      let matched = 0
      for (const comparison of comparisons) {
        const { sql, params } = comparisonSql(comparison, {
          kind: 'kind',
          number: 'number',
          modifier: 'modifier',
          text: 'text',
        })
        const fromSql = (
          db.prepare(`SELECT id FROM cells WHERE ${sql} ORDER BY id`).all(...params) as {
            id: number
          }[]
        ).map((row) => row.id)
        const fromEvaluator = cells.flatMap((indexed, id) =>
          meetsComparison(comparison, indexed) ? [id] : [],
        )
        expect(fromSql, JSON.stringify(comparison)).toEqual(fromEvaluator)
        matched += fromSql.length
      }
      // Most comparisons select some cells and leave others: the agreement is not vacuous.
      expect(matched).toBeGreaterThan(comparisons.length * 5)
      expect(matched).toBeLessThan(comparisons.length * cells.length * 0.8)
    } finally {
      db.close()
    }
  })
})
