import { describe, expect, it } from 'vitest'
import { DOSE_RESPONSE_MODELS } from './dose-response-models.ts'
import {
  drawDoseResponsePlot,
  PLOT_COLORS,
  renderDoseResponsePng,
  type DoseResponsePlot,
} from './dose-response-plot.ts'

const truth = { min: 0, max: 100, slope: -1, ic50: 1e-7 }
const curve = (x: number): number => DOSE_RESPONSE_MODELS.Hill.evaluate(x, truth)
const plot: DoseResponsePlot = {
  title: 'IC50',
  xLabel: 'Concentration (M)',
  yLabel: '% inhibition',
  logX: true,
  points: [
    { x: 1e-9, y: 99 },
    { x: 1e-8, y: 91 },
    { x: 1e-7, y: 50 },
    { x: 1e-6, y: 60, outlier: true },
    { x: 1e-5, y: 1 },
    { x: 0, y: 100 },
  ],
  curves: [curve],
}

const same = (a: readonly number[], b: readonly number[]): boolean =>
  a.every((value, index) => value === b[index])

describe('drawDoseResponsePlot', () => {
  it('draws measured points as filled discs and outliers as hollow rings', () => {
    const { raster, toPixel } = drawDoseResponsePlot(plot)
    const filled = toPixel(1e-8, 91)
    expect(raster.getPixel(Math.round(filled.column), Math.round(filled.row))).toEqual(
      PLOT_COLORS.point,
    )
    const outlier = toPixel(1e-6, 60)
    const centre = raster.getPixel(Math.round(outlier.column), Math.round(outlier.row))
    expect(same(centre, PLOT_COLORS.point)).toBe(false)
    expect(raster.getPixel(Math.round(outlier.column) + 4, Math.round(outlier.row))).toEqual(
      PLOT_COLORS.point,
    )
  })

  it('draws the fitted curve through its own values', () => {
    const { raster, toPixel } = drawDoseResponsePlot({ ...plot, points: [] })
    for (const x of [3e-9, 2e-7, 4e-6]) {
      const at = toPixel(x, curve(x))
      expect(raster.getPixel(Math.round(at.column), Math.round(at.row)), `x=${x}`).toEqual(
        PLOT_COLORS.curve,
      )
    }
  })

  it('has no curve pixels when there is no fit', () => {
    const { raster } = drawDoseResponsePlot({ ...plot, curves: [] })
    let curvePixels = 0
    for (let y = 0; y < raster.height; y += 1) {
      for (let x = 0; x < raster.width; x += 1) {
        if (same(raster.getPixel(x, y), PLOT_COLORS.curve)) curvePixels += 1
      }
    }
    expect(curvePixels).toBe(0)
  })

  it('scales the image with the size multiplier and refuses absurd ones', () => {
    expect(drawDoseResponsePlot({ ...plot, scale: 2 }).raster.width).toBe(960)
    expect(drawDoseResponsePlot({ ...plot, scale: 0.5 }).raster.height).toBe(180)
    expect(() => drawDoseResponsePlot({ ...plot, scale: 100 })).toThrow(
      'plot size multiplier must be between 0.25 and 8, not 100',
    )
  })

  it('plots linear concentration axes too', () => {
    const { toPixel } = drawDoseResponsePlot({
      ...plot,
      logX: false,
      points: [
        { x: 0, y: 0 },
        { x: 10, y: 20 },
      ],
      curves: [(x) => 2 * x],
    })
    expect(toPixel(5, 10).column).toBeCloseTo((toPixel(0, 0).column + toPixel(10, 20).column) / 2)
  })
})

describe('renderDoseResponsePng', () => {
  it('encodes the drawing as a PNG of the plot size', () => {
    const png = renderDoseResponsePng(plot)
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG')
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([480, 360])
  })
})
