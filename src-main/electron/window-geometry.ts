/**
 * Where the window opens: the remembered bounds, checked against the screens attached now. Pure
 * functions of plain rectangles, so that every case is tested without Electron.
 */

export interface Rectangle {
  x: number
  y: number
  width: number
  height: number
}

/** What `<dataDir>/window-state.json` holds: the normal (not maximized) bounds and the mode. */
export interface WindowState extends Rectangle {
  maximized: boolean
}

export const defaultWindowSize = { width: 1280, height: 800 }
export const minimumWindowSize = { width: 720, height: 480 }

/** Below this share of its area on any one screen, a window counts as lost off-screen. */
const visibleShareRequired = 0.5

/** The saved state if `value` has exactly the shape it needs, otherwise null. */
export function parseWindowState(value: unknown): WindowState | null {
  if (typeof value !== 'object' || value === null) return null
  const { x, y, width, height, maximized } = value as Record<string, unknown>
  const finite = [x, y, width, height].every(
    (number) => typeof number === 'number' && Number.isFinite(number),
  )
  if (!finite || typeof maximized !== 'boolean') return null
  const bounds = { x, y, width, height } as Rectangle
  if (bounds.width <= 0 || bounds.height <= 0) return null
  return { ...bounds, maximized }
}

/**
 * The bounds to open with. A window mostly off every screen (a monitor was unplugged) moves to the
 * middle of the primary screen; a window larger than its screen's work area shrinks to fit it; a
 * window partly off its screen slides back inside. Without a saved state, the default size is
 * centred on the primary screen.
 */
export function placeWindow(
  saved: WindowState | null,
  workAreas: readonly Rectangle[],
  primaryWorkArea: Rectangle,
): WindowState {
  if (!saved) {
    return { ...centredIn(primaryWorkArea, defaultWindowSize), maximized: false }
  }
  const size = {
    width: Math.max(saved.width, minimumWindowSize.width),
    height: Math.max(saved.height, minimumWindowSize.height),
  }
  const home = mostOverlapping({ x: saved.x, y: saved.y, ...size }, workAreas)
  if (!home) {
    return { ...centredIn(primaryWorkArea, size), maximized: saved.maximized }
  }
  const width = Math.min(size.width, home.width)
  const height = Math.min(size.height, home.height)
  return {
    x: Math.round(clamp(saved.x, home.x, home.x + home.width - width)),
    y: Math.round(clamp(saved.y, home.y, home.y + home.height - height)),
    width: Math.round(width),
    height: Math.round(height),
    maximized: saved.maximized,
  }
}

/** The work area holding most of `bounds`, if it holds at least the required share. */
function mostOverlapping(
  bounds: Rectangle,
  workAreas: readonly Rectangle[],
): Rectangle | undefined {
  let best: Rectangle | undefined
  let bestArea = 0
  for (const workArea of workAreas) {
    const shared = overlapArea(bounds, workArea)
    if (shared > bestArea) {
      best = workArea
      bestArea = shared
    }
  }
  return bestArea >= visibleShareRequired * bounds.width * bounds.height ? best : undefined
}

function overlapArea(a: Rectangle, b: Rectangle): number {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y)
  return width > 0 && height > 0 ? width * height : 0
}

function centredIn(workArea: Rectangle, size: { width: number; height: number }): Rectangle {
  const width = Math.min(size.width, workArea.width)
  const height = Math.min(size.height, workArea.height)
  return {
    x: Math.round(workArea.x + (workArea.width - width) / 2),
    y: Math.round(workArea.y + (workArea.height - height) / 2),
    width: Math.round(width),
    height: Math.round(height),
  }
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high)
}
