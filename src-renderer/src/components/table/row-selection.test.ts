import { describe, expect, it } from 'vitest'
import { RowSelection } from './row-selection.svelte.ts'

const keys = ['a', 'b', 'c', 'd', 'e']
const keyAt = (position: number) => keys[position]!
const selected = (selection: RowSelection) => [...selection.keys].sort()

describe('RowSelection', () => {
  it('selects one row on a plain click and anchors there', () => {
    const selection = new RowSelection()
    selection.selectOnly(1, keyAt)
    selection.selectOnly(3, keyAt)
    expect(selected(selection)).toEqual(['d'])
    expect(selection.anchor).toBe(3)
  })

  it('extends from the anchor in either direction, replacing the previous extension', () => {
    const selection = new RowSelection()
    selection.selectOnly(2, keyAt)
    selection.extendTo(4, keyAt)
    expect(selected(selection)).toEqual(['c', 'd', 'e'])
    selection.extendTo(0, keyAt)
    expect(selected(selection)).toEqual(['a', 'b', 'c'])
    expect(selection.anchor).toBe(2)
  })

  it('toggles single rows and moves the anchor to them', () => {
    const selection = new RowSelection()
    selection.selectOnly(0, keyAt)
    selection.toggle(2, keyAt)
    selection.toggle(0, keyAt)
    expect(selected(selection)).toEqual(['c'])
    expect(selection.anchor).toBe(0)
    expect(selection.has('c')).toBe(true)
    expect(selection.size).toBe(1)
  })

  it('selects all, clears, and drops keys of rows that are gone', () => {
    const selection = new RowSelection()
    selection.selectAll(keys.length, keyAt)
    expect(selection.size).toBe(5)
    selection.retain((key) => key !== 'b' && key !== 'e')
    expect(selected(selection)).toEqual(['a', 'c', 'd'])
    selection.clear()
    expect(selection.size).toBe(0)
    expect(selection.anchor).toBeNull()
  })

  it('extends from the row itself when there is no anchor yet', () => {
    const selection = new RowSelection()
    selection.extendTo(3, keyAt)
    expect(selected(selection)).toEqual(['d'])
  })
})

describe('RowSelection over rows not loaded yet', () => {
  const sparse = ['a', null, 'c']
  const sparseKeyAt = (position: number) => sparse[position] ?? null

  it('selects only the loaded rows of a range and ignores the others', () => {
    const selection = new RowSelection()
    selection.selectOnly(0, sparseKeyAt)
    selection.extendTo(2, sparseKeyAt)
    expect(selected(selection)).toEqual(['a', 'c'])
    selection.toggle(1, sparseKeyAt)
    expect(selected(selection)).toEqual(['a', 'c'])
    selection.selectOnly(1, sparseKeyAt)
    expect(selection.size).toBe(0)
    expect(selection.anchor).toBe(1)
    selection.selectAll(3, sparseKeyAt)
    expect(selected(selection)).toEqual(['a', 'c'])
  })
})
