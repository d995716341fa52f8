import { describe, expect, it } from 'vitest'
import {
  bodyHeightLimit,
  displayValue,
  gridTemplate,
  minimumWidth,
  naturalKey,
  navigate,
  nextSort,
  offsetAt,
  offsetOfScrollTop,
  scrollScale,
  scrollToReveal,
  scrollTopOfOffset,
  sortOrder,
  visibleRange,
  wheelPixels,
  windowTop,
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

describe('scrolling past the height limit', () => {
  // A million molecules with 60-pixel thumbnails, seen through 400 pixels below the header.
  const rows = 1_000_000
  const rowHeight = 60
  const seen = 400
  const scale = scrollScale(rows, rowHeight, seen)
  const firstRowAt = (scrollTop: number) =>
    Math.floor(offsetOfScrollTop(scale, scrollTop) / rowHeight)

  it('lays short tables out at their natural height, one scroll pixel to one pixel of rows', () => {
    const short = scrollScale(100_000, 32, seen)
    expect(short).toEqual({
      scaled: false,
      bodyHeight: 3_200_000,
      maxOffset: 3_200_000 - seen,
      maxScrollTop: 3_200_000 - seen,
    })
    for (const scrollTop of [0, 1, 12_345, 3_199_600]) {
      expect(offsetOfScrollTop(short, scrollTop)).toBe(scrollTop)
      expect(scrollTopOfOffset(short, scrollTop)).toBe(scrollTop)
      expect(offsetAt(short, scrollTop, { scrollTop, offset: 7 })).toBe(scrollTop)
    }
    expect(windowTop(995, 32, 32_000, 32_000)).toBe(995 * 32)
  })

  it('stops at the limit: a table exactly at it keeps its height, one row more is scaled', () => {
    const rowsAtLimit = bodyHeightLimit / 40
    expect(scrollScale(rowsAtLimit, 40, seen).scaled).toBe(false)
    const over = scrollScale(rowsAtLimit + 1, 40, seen)
    expect(over.scaled).toBe(true)
    expect(over.bodyHeight).toBe(bodyHeightLimit)
    expect(over.maxOffset).toBe(bodyHeightLimit + 40 - seen)
  })

  it('keeps the body of a million 60-pixel rows far below what Chromium can lay out', () => {
    expect(scale.scaled).toBe(true)
    expect(scale.bodyHeight).toBe(bodyHeightLimit)
    expect(scale.bodyHeight).toBeLessThan(33_554_431 / 3)
    expect(scale.maxOffset).toBe(rows * rowHeight - seen)
    expect(scale.maxScrollTop).toBe(bodyHeightLimit - seen)
  })

  it('maps the scroll position to the rows proportionally, both ways', () => {
    const half = scale.maxScrollTop / 2
    expect(offsetOfScrollTop(scale, half)).toBe(scale.maxOffset / 2)
    expect(scrollTopOfOffset(scale, scale.maxOffset / 2)).toBe(half)
    // The brief's form: scroll top / (scroll height - viewport) * (rows - visible rows).
    const scrollTop = 2_718_281
    const visibleRows = seen / rowHeight
    const expectedRow = (scrollTop / scale.maxScrollTop) * (rows - visibleRows)
    expect(Math.abs(offsetOfScrollTop(scale, scrollTop) / rowHeight - expectedRow)).toBeLessThan(
      1 / rowHeight,
    )
    for (const offset of [0, 1, 59_999_999 - seen, 123_456_789 % scale.maxOffset]) {
      const there = offsetOfScrollTop(scale, scrollTopOfOffset(scale, offset))
      // Round trips land within the pixels one scroll pixel stands for.
      expect(Math.abs(there - offset)).toBeLessThanOrEqual(
        Math.ceil(scale.maxOffset / scale.maxScrollTop),
      )
    }
  })

  it('shows the first row at the top and the last row whole at the bottom', () => {
    expect(offsetOfScrollTop(scale, 0)).toBe(0)
    expect(offsetOfScrollTop(scale, -20)).toBe(0)
    const end = offsetOfScrollTop(scale, scale.maxScrollTop)
    expect(end).toBe(rows * rowHeight - seen)
    const range = visibleRange(end, seen, rowHeight, rows, 0)
    expect(range.end).toBe(rows)
    // The last row's bottom meets the viewport's bottom.
    expect((rows - 1) * rowHeight + rowHeight - end).toBe(seen)
    // A zoomed page may stop a fraction short of the end; the last row still shows whole.
    expect(offsetOfScrollTop(scale, scale.maxScrollTop - 0.4)).toBe(scale.maxOffset)
    expect(scrollTopOfOffset(scale, scale.maxOffset)).toBe(scale.maxScrollTop)
    expect(scrollTopOfOffset(scale, scale.maxOffset + 10_000)).toBe(scale.maxScrollTop)
  })

  it('moves less than a screen for the smallest scroll, anywhere in the rows', () => {
    for (let scrollTop = 0; scrollTop < scale.maxScrollTop; scrollTop += 99_991) {
      const moved = offsetOfScrollTop(scale, scrollTop + 1) - offsetOfScrollTop(scale, scrollTop)
      expect(moved).toBeGreaterThan(0)
      expect(moved).toBeLessThan(seen)
      expect(firstRowAt(scrollTop + 1) - firstRowAt(scrollTop)).toBeLessThanOrEqual(1)
    }
  })

  it('reaches every row: each has a scroll position that shows it', () => {
    for (const row of [0, 1, 558_000, 559_240, 999_993, 999_998, 999_999]) {
      const offset = scrollToReveal(row, rowHeight, 0, seen)
      const shown = visibleRange(
        offsetOfScrollTop(scale, scrollTopOfOffset(scale, offset)),
        seen,
        rowHeight,
        rows,
        0,
      )
      expect(row).toBeGreaterThanOrEqual(shown.start)
      expect(row).toBeLessThan(shown.end)
    }
  })

  it('keeps an offset the table scrolled to itself while the viewport stays there', () => {
    const offset = 59_999_000 - seen - 60
    const scrollTop = scrollTopOfOffset(scale, offset)
    expect(offsetOfScrollTop(scale, scrollTop)).not.toBe(offset)
    expect(offsetAt(scale, scrollTop, { scrollTop, offset })).toBe(offset)
    // The scrollbar moved it: the position speaks again.
    expect(offsetAt(scale, scrollTop + 3, { scrollTop, offset })).toBe(
      offsetOfScrollTop(scale, scrollTop + 3),
    )
    expect(offsetAt(scale, scrollTop, null)).toBe(offsetOfScrollTop(scale, scrollTop))
    // A table that shrank under an old anchor does not show past its end.
    expect(offsetAt(scale, scrollTop, { scrollTop, offset: 1e12 })).toBe(scale.maxOffset)
  })

  it('places the rendered rows relative to the viewport', () => {
    const scrollTop = 4_000_000
    const offset = offsetOfScrollTop(scale, scrollTop)
    const { start } = visibleRange(offset, seen, rowHeight, rows)
    const top = windowTop(start, rowHeight, scrollTop, offset)
    // The first row in view sits at the viewport's top, less the part scrolled past.
    const firstInView = Math.floor(offset / rowHeight)
    expect(top + (firstInView - start) * rowHeight - scrollTop).toBe(
      firstInView * rowHeight - offset,
    )
    expect(top + (rows - start) * rowHeight).toBeGreaterThan(scrollTop)
    expect(top).toBeLessThanOrEqual(scrollTop)
  })

  it('turns wheel lines and pages into pixels', () => {
    expect(wheelPixels(100, 0, seen)).toBe(100)
    expect(wheelPixels(3, 1, seen)).toBe(120)
    expect(wheelPixels(-1, 2, seen)).toBe(-seen)
  })

  it('scales nothing for an empty table', () => {
    const empty = scrollScale(0, 60, seen)
    expect(empty).toEqual({ scaled: false, bodyHeight: 0, maxOffset: 0, maxScrollTop: 0 })
    expect(scrollTopOfOffset(empty, 500)).toBe(0)
  })
})
