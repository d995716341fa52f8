/**
 * Box and lasso selection over points in unit coordinates. A box takes the points on its edges
 * too; a lasso is a closed polygon (its last vertex joins its first) read with the even-odd rule,
 * so a lasso that crosses itself leaves out what it wraps twice, as in every drawing program.
 * Both work in unit coordinates: each axis maps to pixels on its own linear terms, so a point
 * inside on screen is inside here.
 */

export interface UnitBox {
  u0: number
  u1: number
  v0: number
  v1: number
}

/** Positions (indices into u and v) of the points inside a box, in order. */
export function pointsInBox(
  u: ArrayLike<number>,
  v: ArrayLike<number>,
  count: number,
  box: UnitBox,
): number[] {
  const left = Math.min(box.u0, box.u1)
  const right = Math.max(box.u0, box.u1)
  const bottom = Math.min(box.v0, box.v1)
  const top = Math.max(box.v0, box.v1)
  const inside: number[] = []
  for (let position = 0; position < count; position += 1) {
    const x = u[position]!
    const y = v[position]!
    if (x >= left && x <= right && y >= bottom && y <= top) inside.push(position)
  }
  return inside
}

/**
 * Whether (x, y) lies inside a polygon given as flat [x0, y0, x1, y1, ...] (even-odd rule, by
 * casting a ray to the right and counting the edges it crosses).
 */
export function pointInPolygon(x: number, y: number, polygon: ArrayLike<number>): boolean {
  const corners = polygon.length >> 1
  let inside = false
  for (let i = 0, j = corners - 1; i < corners; j = i, i += 1) {
    const xi = polygon[2 * i]!
    const yi = polygon[2 * i + 1]!
    const xj = polygon[2 * j]!
    const yj = polygon[2 * j + 1]!
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside
  }
  return inside
}

/** Positions of the points inside a lasso (flat [u0, v0, u1, v1, ...]); none for under 3 corners. */
export function pointsInPolygon(
  u: ArrayLike<number>,
  v: ArrayLike<number>,
  count: number,
  polygon: ArrayLike<number>,
): number[] {
  if (polygon.length < 6) return []
  let left = Number.POSITIVE_INFINITY
  let right = Number.NEGATIVE_INFINITY
  let bottom = Number.POSITIVE_INFINITY
  let top = Number.NEGATIVE_INFINITY
  for (let index = 0; index < polygon.length; index += 2) {
    left = Math.min(left, polygon[index]!)
    right = Math.max(right, polygon[index]!)
    bottom = Math.min(bottom, polygon[index + 1]!)
    top = Math.max(top, polygon[index + 1]!)
  }
  const inside: number[] = []
  for (let position = 0; position < count; position += 1) {
    const x = u[position]!
    const y = v[position]!
    if (x < left || x > right || y < bottom || y > top) continue
    if (pointInPolygon(x, y, polygon)) inside.push(position)
  }
  return inside
}
