/**
 * An axis' tick marks and labels: where they go (shared by the SVG axis of Axis.svelte and the
 * scatter plot's canvas), and how the scatter plot draws them on a canvas. There they move with
 * every frame of a pan or a zoom, which a canvas redraws in a fraction of a millisecond where new
 * SVG nodes cost the page a new style, layout, paint and layering each frame.
 */

export interface AxisTick {
  /** Pixels from the axis' start (left for a bottom axis, top for a left one). */
  offset: number
  label: string
  value: number
}

/** A tick mark's length, outwards from the axis line. */
export const tickSize = 5
/** A bottom axis' label baseline, below the axis line. */
export const bottomLabelBaseline = tickSize + 12
/** A left axis' label end, left of the axis line. */
export const leftLabelEnd = tickSize + 4
/** How far below its tick a left axis' label baseline sits, in ems (centres the digits). */
export const leftLabelDrop = 0.32

export interface TickStyle {
  /** CSS colours. */
  tickColour: string
  labelColour: string
  /** A CSS font, its size in pixels. */
  font: string
  fontSize: number
}

/**
 * Draws one axis' ticks and labels on a canvas whose CSS pixel (0, 0) is its top-left corner;
 * the axis line starts at (x, y) in CSS pixels. Tick marks fall on whole device pixels, crisp as
 * the SVG axis' `shape-rendering: crispEdges`.
 */
export function drawTicks(
  context: CanvasRenderingContext2D,
  side: 'bottom' | 'left',
  ticks: readonly AxisTick[],
  x: number,
  y: number,
  ratio: number,
  style: TickStyle,
): void {
  const lineWidth = Math.max(1, Math.round(ratio))
  const crisp = (css: number) => Math.round(css * ratio - lineWidth / 2) + lineWidth / 2
  context.setTransform(1, 0, 0, 1, 0, 0)
  context.strokeStyle = style.tickColour
  context.lineWidth = lineWidth
  context.beginPath()
  for (const tick of ticks) {
    if (side === 'bottom') {
      const at = crisp(x + tick.offset)
      context.moveTo(at, Math.round(y * ratio))
      context.lineTo(at, Math.round((y + tickSize) * ratio))
    } else {
      const at = crisp(y + tick.offset)
      context.moveTo(Math.round((x - tickSize) * ratio), at)
      context.lineTo(Math.round(x * ratio), at)
    }
  }
  context.stroke()
  context.setTransform(ratio, 0, 0, ratio, 0, 0)
  context.fillStyle = style.labelColour
  context.font = style.font
  context.textBaseline = 'alphabetic'
  context.textAlign = side === 'bottom' ? 'center' : 'right'
  for (const tick of ticks) {
    if (side === 'bottom') {
      context.fillText(tick.label, x + tick.offset, y + bottomLabelBaseline)
    } else {
      context.fillText(
        tick.label,
        x - leftLabelEnd,
        y + tick.offset + leftLabelDrop * style.fontSize,
      )
    }
  }
  context.setTransform(1, 0, 0, 1, 0, 0)
}
