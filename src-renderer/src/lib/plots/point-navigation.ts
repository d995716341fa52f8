/**
 * Moving a keyboard focus between a plot's points with the arrow keys: from the focused point to
 * the nearest point in view in the arrow's direction, looking first within 45° of it and then in
 * the whole half-plane, so that every point in view can be reached and a key never jumps back.
 */
import type { PixelMapping } from './spatial-grid.ts'

export type Direction = 'left' | 'right' | 'up' | 'down'

const directions: Record<Direction, readonly [number, number]> = {
  left: [-1, 0],
  right: [1, 0],
  up: [0, -1],
  down: [0, 1],
}

/** Pixel position of a point (y down, as on screen). */
function screenX(u: number, mapping: PixelMapping): number {
  return (u - mapping.x0) * mapping.xScale
}

function screenY(v: number, mapping: PixelMapping, height: number): number {
  return height - (v - mapping.y0) * mapping.yScale
}

/**
 * The position of the next point from `from` in a direction, among the points inside the plot
 * (width × height pixels); -1 when there is none. Of points in the 45° cone, the nearest wins, a
 * sideways step counting double; failing that, the nearest ahead at all.
 */
export function nextPoint(
  u: ArrayLike<number>,
  v: ArrayLike<number>,
  count: number,
  from: number,
  direction: Direction,
  mapping: PixelMapping,
  width: number,
  height: number,
): number {
  if (from < 0 || from >= count) return -1
  const [ax, ay] = directions[direction]
  const fromX = screenX(u[from]!, mapping)
  const fromY = screenY(v[from]!, mapping, height)
  let bestInCone = -1
  let bestConeCost = Number.POSITIVE_INFINITY
  let bestAhead = -1
  let bestAheadCost = Number.POSITIVE_INFINITY
  for (let position = 0; position < count; position += 1) {
    if (position === from) continue
    const x = screenX(u[position]!, mapping)
    const y = screenY(v[position]!, mapping, height)
    if (x < 0 || x > width || y < 0 || y > height) continue
    const dx = x - fromX
    const dy = y - fromY
    const ahead = dx * ax + dy * ay
    // Points on the same pixel are reached in drawing order, so none is ever skipped.
    if (ahead < 0 || (ahead === 0 && (dx !== 0 || dy !== 0 || position < from))) continue
    const aside = Math.abs(dx * ay - dy * ax)
    if (aside <= ahead) {
      const cost = ahead * ahead + 4 * aside * aside
      if (cost < bestConeCost) {
        bestConeCost = cost
        bestInCone = position
      }
    } else {
      const cost = ahead * ahead + aside * aside
      if (cost < bestAheadCost) {
        bestAheadCost = cost
        bestAhead = position
      }
    }
  }
  return bestInCone >= 0 ? bestInCone : bestAhead
}

/** The point in view nearest the plot's centre, where a keyboard focus starts; -1 if none. */
export function centralPoint(
  u: ArrayLike<number>,
  v: ArrayLike<number>,
  count: number,
  mapping: PixelMapping,
  width: number,
  height: number,
): number {
  let best = -1
  let bestDistance = Number.POSITIVE_INFINITY
  for (let position = 0; position < count; position += 1) {
    const dx = screenX(u[position]!, mapping) - width / 2
    const dy = screenY(v[position]!, mapping, height) - height / 2
    const distance = dx * dx + dy * dy
    if (distance < bestDistance && Math.abs(dx) <= width / 2 && Math.abs(dy) <= height / 2) {
      bestDistance = distance
      best = position
    }
  }
  return best
}
