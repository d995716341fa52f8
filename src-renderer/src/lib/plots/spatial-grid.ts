/**
 * A uniform grid over the unit square for finding the point under the pointer: each cell lists
 * its points, so a hover looks at the few cells within reach of the pointer instead of every
 * point. Built by one counting sort (linear in the points, a few milliseconds for 250,000), whose
 * order is also the order the raster draws in: neighbours in the grid are neighbours in memory.
 *
 * Distances are measured in screen pixels, since the two axes of a plot are scaled apart: a point
 * 5 px away is 5 px away whatever the units or the zoom.
 */

export interface GridOrder {
  /** The grid's cells across and down. */
  columns: number
  rows: number
  /** For each position in grid order, the index of the point it holds. */
  order: Uint32Array
  /** Cell c holds positions cellStart[c] to cellStart[c + 1] - 1. */
  cellStart: Uint32Array
}

/** About this many points per cell: few enough to scan, many enough for a small grid. */
const pointsPerCell = 8
const maxCellsAcross = 512

function cellOf(coordinate: number, cells: number): number {
  const cell = Math.floor(coordinate * cells)
  return cell < 0 ? 0 : cell >= cells ? cells - 1 : cell
}

/** Sorts points (unit coordinates u, v, each in [0, 1]) into grid cells, row by row. */
export function gridOrder(u: ArrayLike<number>, v: ArrayLike<number>, count: number): GridOrder {
  const across = Math.max(1, Math.min(maxCellsAcross, Math.ceil(Math.sqrt(count / pointsPerCell))))
  const cellCount = across * across
  const cellOfPoint = new Uint32Array(count)
  const cellStart = new Uint32Array(cellCount + 1)
  for (let index = 0; index < count; index += 1) {
    const cell = cellOf(v[index]!, across) * across + cellOf(u[index]!, across)
    cellOfPoint[index] = cell
    cellStart[cell + 1]! += 1
  }
  for (let cell = 0; cell < cellCount; cell += 1) cellStart[cell + 1]! += cellStart[cell]!
  const next = cellStart.slice(0, cellCount)
  const order = new Uint32Array(count)
  for (let index = 0; index < count; index += 1) {
    const cell = cellOfPoint[index]!
    order[next[cell]!] = index
    next[cell]! += 1
  }
  return { columns: across, rows: across, order, cellStart }
}

/** How unit coordinates map to screen pixels in the current view (see view-window.ts). */
export interface PixelMapping {
  /** Unit coordinates at the left and bottom edges of the plot. */
  x0: number
  y0: number
  /** Pixels per unit across and up. */
  xScale: number
  yScale: number
}

/**
 * The point nearest to a pixel position (px from the plot's left, py from its top, plotHeight for
 * flipping y) within `radius` pixels, as its position in grid order; -1 when none is that close.
 * Of points equally near, the one drawn last (on top) wins. `u` and `v` are in grid order.
 */
export function nearestPoint(
  grid: GridOrder,
  u: ArrayLike<number>,
  v: ArrayLike<number>,
  mapping: PixelMapping,
  plotHeight: number,
  px: number,
  py: number,
  radius: number,
): number {
  const { columns, rows, cellStart } = grid
  const qu = mapping.x0 + px / mapping.xScale
  const qv = mapping.y0 + (plotHeight - py) / mapping.yScale
  const reachU = radius / mapping.xScale
  const reachV = radius / mapping.yScale
  if (qu + reachU < 0 || qu - reachU > 1 || qv + reachV < 0 || qv - reachV > 1) return -1
  const firstColumn = cellOf(qu - reachU, columns)
  const lastColumn = cellOf(qu + reachU, columns)
  const firstRow = cellOf(qv - reachV, rows)
  const lastRow = cellOf(qv + reachV, rows)
  let best = -1
  let bestDistance = radius * radius
  for (let row = firstRow; row <= lastRow; row += 1) {
    const from = cellStart[row * columns + firstColumn]!
    const to = cellStart[row * columns + lastColumn + 1]!
    for (let position = from; position < to; position += 1) {
      const dx = (u[position]! - qu) * mapping.xScale
      const dy = (v[position]! - qv) * mapping.yScale
      const distance = dx * dx + dy * dy
      if (distance <= bestDistance) {
        bestDistance = distance
        best = position
      }
    }
  }
  return best
}
