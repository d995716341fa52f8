import { describe, expect, it } from 'vitest'
import {
  displayValue,
  gridTemplate,
  minimumWidth,
  naturalKey,
  navigate,
  nextSort,
  scrollToReveal,
  sortOrder,
  visibleRange,
  type Column,
} from './table-model.ts'

interface Compound {
  id: string
  potency: number | null
}

const potency: Column<Compound> = {
  id: 'potency',
  label: 'Potency',
  value: (row) => row.potency,
  format: (value) => (typeof value === 'number' ? value.toFixed(1) : '—'),
  width: 90,
  align: 'end',
}
const name: Column<Compound> = { id: 'id', label: 'ID', value: (row) => row.id, grow: 2 }

const compounds: Compound[] = [
  { id: 'VD-10', potency: 3 },
  { id: 'VD-9', potency: null },
  { id: 'vd-2', potency: 1 },
  { id: 'VD-1', potency: 3 },
]

const sorted = (column: Column<Compound>, direction: 'ascending' | 'descending') =>
  [...sortOrder(compounds, column, direction)].map((index) => compounds[index]!.id)

describe('sortOrder', () => {
  it('puts rows that are not loaded yet last', () => {
    const rows = [undefined, { id: 'VD-2', potency: 2 }, { id: 'VD-1', potency: 1 }]
    expect([...sortOrder(rows, potency, 'descending')]).toEqual([1, 2, 0])
  })

  it('sorts numbers numerically, keeping equal values in their own order', () => {
    expect(sorted(potency, 'ascending')).toEqual(['vd-2', 'VD-10', 'VD-1', 'VD-9'])
  })

  it('puts empty values last in both directions', () => {
    expect(sorted(potency, 'descending')).toEqual(['VD-10', 'VD-1', 'vd-2', 'VD-9'])
  })

  it('compares text naturally and without regard to case', () => {
    expect(sorted(name, 'ascending')).toEqual(['VD-1', 'vd-2', 'VD-9', 'VD-10'])
    expect(sorted(name, 'descending')).toEqual(['VD-10', 'VD-9', 'vd-2', 'VD-1'])
  })

  it('orders text with accents and case as if they were not there', () => {
    const names: Column<{ name: string }> = { id: 'name', label: 'Name', value: (row) => row.name }
    const rows = [
      { name: 'Épinéphrine' },
      { name: 'amine 10' },
      { name: 'Amine 9' },
      { name: 'ester' },
    ]
    const order = [...sortOrder(rows, names, 'ascending')].map((index) => rows[index]!.name)
    expect(order).toEqual(['Amine 9', 'amine 10', 'Épinéphrine', 'ester'])
    expect(naturalKey('VD-007')).toBe(naturalKey('vd-7'))
  })

  it('does not reorder the rows themselves', () => {
    sortOrder(compounds, name, 'ascending')
    expect(compounds.map((row) => row.id)).toEqual(['VD-10', 'VD-9', 'vd-2', 'VD-1'])
  })
})

describe('nextSort', () => {
  it('cycles ascending, descending, unsorted, and starts over on another column', () => {
    const first = nextSort(null, 'potency')
    expect(first).toEqual({ columnId: 'potency', direction: 'ascending' })
    const second = nextSort(first, 'potency')
    expect(second).toEqual({ columnId: 'potency', direction: 'descending' })
    expect(nextSort(second, 'potency')).toBeNull()
    expect(nextSort(second, 'id')).toEqual({ columnId: 'id', direction: 'ascending' })
  })
})

describe('columns', () => {
  it('lays columns out by their narrowest width and their share of the rest', () => {
    const columns = [potency, name] as Column<unknown>[]
    expect(gridTemplate(columns)).toBe('minmax(90px, 1fr) minmax(120px, 2fr)')
    expect(minimumWidth(columns)).toBe(210)
  })

  it('shows formatted values, and nothing for a missing value without a format', () => {
    expect(displayValue(potency, compounds[1]!)).toBe('—')
    expect(displayValue(potency, compounds[0]!)).toBe('3.0')
    expect(displayValue({ ...potency, format: undefined }, compounds[1]!)).toBe('')
  })
})

describe('visibleRange', () => {
  it('covers the viewport plus the overscan, clamped to the rows', () => {
    expect(visibleRange(0, 320, 32, 100_000, 5)).toEqual({ start: 0, end: 15 })
    expect(visibleRange(32 * 1000 + 16, 320, 32, 100_000, 5)).toEqual({ start: 995, end: 1016 })
    expect(visibleRange(32 * 99_990, 320, 32, 100_000, 5)).toEqual({ start: 99_985, end: 100_000 })
  })

  it('renders nothing for no rows and stays inside the rows after they shrink', () => {
    expect(visibleRange(0, 320, 32, 0)).toEqual({ start: 0, end: 0 })
    expect(visibleRange(32 * 5000, 320, 32, 10, 2)).toEqual({ start: 9, end: 10 })
  })
})

describe('scrollToReveal', () => {
  it('scrolls only as far as needed to show the whole row', () => {
    expect(scrollToReveal(5, 32, 0, 320)).toBe(0)
    expect(scrollToReveal(10, 32, 0, 320)).toBe(32)
    expect(scrollToReveal(2, 32, 320, 320)).toBe(64)
  })
})

describe('navigate', () => {
  it('moves by one, by a page and to the ends, never past them', () => {
    expect(navigate('ArrowDown', 3, 10, 4)).toBe(4)
    expect(navigate('ArrowUp', 0, 10, 4)).toBe(0)
    expect(navigate('PageDown', 8, 10, 4)).toBe(9)
    expect(navigate('PageUp', 5, 10, 4)).toBe(1)
    expect(navigate('Home', 5, 10, 4)).toBe(0)
    expect(navigate('End', 5, 10, 4)).toBe(9)
  })

  it('starts at the first row, or the last for End, when no row is active', () => {
    expect(navigate('ArrowDown', null, 10, 4)).toBe(0)
    expect(navigate('PageUp', null, 10, 4)).toBe(0)
    expect(navigate('End', null, 10, 4)).toBe(9)
    expect(navigate('ArrowDown', null, 0, 4)).toBeNull()
  })
})
