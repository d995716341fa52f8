/**
 * Inventory locations form a tree by `parent_id` (freezer > rack > box). The vault sends them as a
 * flat list, in no promised order, and a damaged list may name a missing parent or even loop: a
 * location whose parent is unknown becomes a root, and a loop is cut where it closes.
 */
import { naturalKey } from '../../components/table/table-model.ts'
import type { CachedRecord } from '../bridge.ts'
import { toId, toNumber, toText } from '../../../../src-common/values.ts'

export interface LocationNode {
  id: number
  name: string
  parentId: number | null
  /** Places in a box (rows × columns, or a position limit) and how many are filled. */
  capacity: number | null
  filled: number | null
  children: LocationNode[]
  depth: number
}

export interface LocationTree {
  roots: LocationNode[]
  byId: ReadonlyMap<number, LocationNode>
}

export function buildLocationTree(locations: readonly CachedRecord[]): LocationTree {
  const byId = new Map<number, LocationNode>()
  for (const { id, columns, json } of locations) {
    if (id === null || byId.has(id)) continue
    const rows = toNumber(json.num_rows)
    const places = toNumber(json.num_columns)
    byId.set(id, {
      id,
      name: toText(columns.name) ?? `Location ${id}`,
      parentId: toId(columns.parent_id),
      capacity: toNumber(json.position_limit) ?? (rows && places ? rows * places : null),
      filled: toNumber(json.filled_position_count),
      children: [],
      depth: 0,
    })
  }
  const roots: LocationNode[] = []
  for (const node of byId.values()) {
    const parent = node.parentId === null ? undefined : byId.get(node.parentId)
    if (parent && !isAncestor(node, parent, byId)) parent.children.push(node)
    else roots.push(node)
  }
  const order = (nodes: LocationNode[], depth: number) => {
    nodes.sort((a, b) => compareNames(a.name, b.name))
    for (const node of nodes) {
      node.depth = depth
      order(node.children, depth + 1)
    }
  }
  order(roots, 0)
  return { roots, byId }
}

/** True when `node` is `candidate` or one of its ancestors: linking them would close a loop. */
function isAncestor(
  node: LocationNode,
  candidate: LocationNode,
  byId: ReadonlyMap<number, LocationNode>,
): boolean {
  const seen = new Set<number>()
  for (let at: LocationNode | undefined = candidate; at;) {
    if (at === node) return true
    if (seen.has(at.id)) return false
    seen.add(at.id)
    at = at.parentId === null ? undefined : byId.get(at.parentId)
  }
  return false
}

function compareNames(a: string, b: string): number {
  const left = naturalKey(a)
  const right = naturalKey(b)
  return left < right ? -1 : left > right ? 1 : 0
}

/** The location and its parents, outermost first ("Freezer A", "Rack 1", "Box 1"). */
export function locationPath(tree: LocationTree, id: number | null): LocationNode[] {
  const path: LocationNode[] = []
  const seen = new Set<number>()
  for (let at = id === null ? undefined : tree.byId.get(id); at && !seen.has(at.id);) {
    seen.add(at.id)
    path.unshift(at)
    at = at.parentId === null ? undefined : tree.byId.get(at.parentId)
  }
  return path
}

/** The nodes a tree view shows, in order: roots, and the children of every expanded node. */
export function visibleLocations(
  tree: LocationTree,
  expanded: ReadonlySet<number>,
): LocationNode[] {
  const visible: LocationNode[] = []
  const visit = (nodes: readonly LocationNode[]) => {
    for (const node of nodes) {
      visible.push(node)
      if (expanded.has(node.id)) visit(node.children)
    }
  }
  visit(tree.roots)
  return visible
}

export type TreeKey = 'ArrowDown' | 'ArrowUp' | 'ArrowRight' | 'ArrowLeft' | 'Home' | 'End'

export type TreeMove =
  | { kind: 'focus'; id: number }
  | { kind: 'expand'; id: number }
  | { kind: 'collapse'; id: number }
  | { kind: 'none' }

/** What a key does in the tree view, following the WAI-ARIA tree pattern. */
export function treeMove(
  key: TreeKey,
  current: LocationNode,
  visible: readonly LocationNode[],
  expanded: ReadonlySet<number>,
): TreeMove {
  const index = visible.findIndex((node) => node.id === current.id)
  const focus = (node: LocationNode | undefined): TreeMove =>
    node ? { kind: 'focus', id: node.id } : { kind: 'none' }
  switch (key) {
    case 'ArrowDown':
      return focus(visible[index + 1])
    case 'ArrowUp':
      return focus(visible[index - 1])
    case 'Home':
      return focus(visible[0])
    case 'End':
      return focus(visible.at(-1))
    case 'ArrowRight':
      if (current.children.length === 0) return { kind: 'none' }
      return expanded.has(current.id)
        ? focus(current.children[0])
        : { kind: 'expand', id: current.id }
    case 'ArrowLeft':
      if (expanded.has(current.id)) return { kind: 'collapse', id: current.id }
      return current.parentId === null
        ? { kind: 'none' }
        : focus(visible.find((node) => node.id === current.parentId))
  }
}
