import { describe, expect, it } from 'vitest'
import type { ResultsCell } from '../../../../src-common/analysis/readouts/results-table.ts'
import {
  cellColours,
  columnScale,
  contrastRatio,
  goodness,
  palette,
  relativeLuminance,
  scaleGradient,
  scalePosition,
  sequentialColour,
} from './colour-scale.ts'

const steps = Array.from({ length: 201 }, (_, index) => index / 200)

const number = (value: number, modifier: string | null = null): ResultsCell => ({
  kind: 'number',
  number: value,
  modifier,
  text: String(value),
  n: 2,
  source: 'computed',
})

describe('the sequential palette', () => {
  it('grows darker from the poor end to the good end, so it reads in greyscale too', () => {
    const luminances = steps.map((step) => relativeLuminance(sequentialColour(step).background))
    for (let index = 1; index < luminances.length; index++) {
      expect(luminances[index]!).toBeLessThan(luminances[index - 1]!)
    }
    expect(sequentialColour(0).background).toBe(palette[0])
    expect(sequentialColour(1).background).toBe(palette.at(-1))
  })

  it('puts text on every colour with at least the 4.5:1 contrast WCAG AA asks', () => {
    for (const step of steps) {
      const { background, text } = sequentialColour(step)
      expect(contrastRatio(background, text)).toBeGreaterThanOrEqual(4.5)
    }
    expect(sequentialColour(0).text).toBe('#000000')
    expect(sequentialColour(1).text).toBe('#ffffff')
  })

  it('computes WCAG contrast as the standard defines it', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 6)
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2)
    expect(() => relativeLuminance('blue')).toThrow('blue is not a colour of the form #rrggbb.')
  })

  it('draws its legend from the low end to the high end of a column', () => {
    expect(scaleGradient('high')).toBe(`linear-gradient(to right, ${palette.join(', ')})`)
    expect(scaleGradient('low')).toContain(`${palette.at(-1)}, ${palette.at(-2)}`)
  })
})

describe('a column scale', () => {
  it('puts concentrations on a log scale, as potencies are read', () => {
    const scale = columnScale(0.001, 10, 'uM')!
    expect(scale.kind).toBe('log')
    expect(scalePosition(0.1, scale)).toBeCloseTo(0.5, 12)
    expect(columnScale(0.001, 10, 'µg/mL')!.kind).toBe('log')
  })

  it('stays linear for percentages and short spans, and goes log for wide positive spans', () => {
    const percent = columnScale(-10, 110, '%')!
    expect(percent.kind).toBe('linear')
    expect(scalePosition(50, percent)).toBeCloseTo(0.5, 12)
    expect(columnScale(1, 50, 'RLU')!.kind).toBe('linear')
    expect(columnScale(10, 200_000, 'RLU')!.kind).toBe('log')
    // Not every value is positive: a log scale cannot place them.
    expect(columnScale(0, 200_000, 'uM')!.kind).toBe('linear')
  })

  it('clamps values outside its ends and centres a column of one value', () => {
    const scale = columnScale(1, 3, null)!
    expect(scalePosition(-5, scale)).toBe(0)
    expect(scalePosition(9, scale)).toBe(1)
    expect(scalePosition(5, columnScale(5, 5, null)!)).toBe(0.5)
    expect(columnScale(Number.NaN, 1, null)).toBeNull()
    expect(columnScale(3, 1, null)).toBeNull()
  })

  it('colours the good end deepest, whichever end the person calls good', () => {
    const scale = columnScale(0.01, 30, 'uM')!
    const potent = cellColours(number(0.01), scale, 'low')!
    const inactive = cellColours(number(30, '>'), scale, 'low')!
    expect(potent.background).toBe(palette.at(-1))
    expect(inactive.background).toBe(palette[0])
    expect(cellColours(number(0.01), scale, 'high')!.background).toBe(palette[0])
    expect(goodness(0.25, 'low')).toBe(0.75)
  })

  it('leaves text, empty cells and columns without a scale uncoloured', () => {
    const scale = columnScale(0, 1, null)
    const text: ResultsCell = { ...number(0), kind: 'text', number: null, text: 'ND' }
    expect(cellColours(text, scale, 'high')).toBeNull()
    expect(cellColours(null, scale, 'high')).toBeNull()
    expect(cellColours(number(0.5), null, 'high')).toBeNull()
  })
})
