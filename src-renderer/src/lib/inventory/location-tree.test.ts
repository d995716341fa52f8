import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../../../../src-common/values.ts'
import { rowOf } from '../testing/rows.ts'
import { buildLocationTree, locationPath, treeMove, visibleLocations } from './location-tree.ts'

const locationRows = (records: JsonObject[]) =>
  records.map((record) => rowOf('inventory_locations', record))

const locations = locationRows([
  { id: 3, value: 'Box 10', parent_id: 2, num_rows: 9, num_columns: 9, filled_position_count: 19 },
  { id: 4, value: 'Box 2', parent_id: 2, position_limit: 81 },
  { id: 2, value: 'Rack 1', parent_id: '1' },
  { id: 1, value: 'Freezer A (-20 °C)', parent_id: null },
  { id: 5, value: 'Cabinet', parent_id: null },
  { id: 6, value: 'Shelf 1', parent_id: 5 },
])

const names = (nodes: readonly { name: string }[]) => nodes.map((node) => node.name)

describe('buildLocationTree', () => {
  it('nests locations under their parents, named in natural order', () => {
    const tree = buildLocationTree(locations)
    expect(names(tree.roots)).toEqual(['Cabinet', 'Freezer A (-20 °C)'])
    const rack = tree.byId.get(2)!
    expect(names(rack.children)).toEqual(['Box 2', 'Box 10'])
    expect(rack.depth).toBe(1)
    expect(tree.byId.get(3)).toMatchObject({ capacity: 81, filled: 19, depth: 2 })
    expect(tree.byId.get(4)?.capacity).toBe(81)
  })

  it('makes a location with an unknown parent a root and cuts loops', () => {
    const tree = buildLocationTree(
      locationRows([
        { id: 1, value: 'A', parent_id: 2 },
        { id: 2, value: 'B', parent_id: 1 },
        { id: 3, value: 'Orphan', parent_id: 99 },
        { id: 'x', value: 'no id' },
      ]),
    )
    expect(tree.byId.size).toBe(3)
    expect(names(tree.roots)).toContain('Orphan')
    const all = visibleLocations(tree, new Set([1, 2]))
    expect(all).toHaveLength(3)
  })
})

describe('walking the tree', () => {
  const tree = buildLocationTree(locations)

  it('gives the path from the outermost location', () => {
    expect(names(locationPath(tree, 3))).toEqual(['Freezer A (-20 °C)', 'Rack 1', 'Box 10'])
    expect(locationPath(tree, null)).toEqual([])
    expect(locationPath(tree, 99)).toEqual([])
  })

  it('shows the children of expanded nodes only', () => {
    expect(names(visibleLocations(tree, new Set()))).toEqual(['Cabinet', 'Freezer A (-20 °C)'])
    expect(names(visibleLocations(tree, new Set([1, 2])))).toEqual([
      'Cabinet',
      'Freezer A (-20 °C)',
      'Rack 1',
      'Box 2',
      'Box 10',
    ])
  })

  it('moves as the tree pattern says', () => {
    const expanded = new Set([1])
    const visible = visibleLocations(tree, expanded)
    const freezer = tree.byId.get(1)!
    const rack = tree.byId.get(2)!
    expect(treeMove('ArrowDown', freezer, visible, expanded)).toEqual({ kind: 'focus', id: 2 })
    expect(treeMove('ArrowUp', freezer, visible, expanded)).toEqual({ kind: 'focus', id: 5 })
    expect(treeMove('ArrowRight', rack, visible, expanded)).toEqual({ kind: 'expand', id: 2 })
    expect(treeMove('ArrowRight', freezer, visible, expanded)).toEqual({ kind: 'focus', id: 2 })
    expect(treeMove('ArrowLeft', freezer, visible, expanded)).toEqual({ kind: 'collapse', id: 1 })
    expect(treeMove('ArrowLeft', rack, visible, expanded)).toEqual({ kind: 'focus', id: 1 })
    expect(treeMove('End', freezer, visible, expanded)).toEqual({ kind: 'focus', id: 2 })
    expect(treeMove('Home', rack, visible, expanded)).toEqual({ kind: 'focus', id: 5 })
    expect(treeMove('ArrowRight', tree.byId.get(6)!, visible, expanded)).toEqual({ kind: 'none' })
  })
})
