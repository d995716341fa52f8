import { describe, expect, it } from 'vitest'
import { targetAt } from './heat-map.ts'
import { drawLayoutMap, keyMove, layoutDrawn, layoutGeometry } from './layout-map.ts'
import { plateWells, wellState, type PlateWell, type WellState } from './plate-layout.ts'

/**
 * A 2D context that records what is drawn: each filled path's colour and circles, each stroked
 * rectangle. The canvas is the boundary here: Node has none.
 */
function recordingContext() {
  const fills: { style: string; centres: [number, number][] }[] = []
  const rectangles: { style: string; x: number; y: number; size: number }[] = []
  let path: [number, number][] = []
  const context = {
    fillStyle: '',
    strokeStyle: '',
    lineWidth: 1,
    font: '',
    textAlign: '',
    textBaseline: '',
    clearRect() {},
    setLineDash() {},
    fillText() {},
    beginPath() {
      path = []
    },
    moveTo() {},
    arc(x: number, y: number) {
      path.push([x, y])
    },
    fill() {
      fills.push({ style: context.fillStyle, centres: path })
    },
    stroke() {},
    strokeRect(x: number, y: number, size: number) {
      rectangles.push({ style: context.strokeStyle, x, y, size })
    },
  }
  return { context: context as unknown as CanvasRenderingContext2D, fills, rectangles }
}

const states: WellState[] = ['sample', 'positive', 'negative', 'reference', 'empty']
const colour = (prefix: string) =>
  Object.fromEntries(states.map((state) => [state, `${prefix}-${state}`])) as Record<
    WellState,
    string
  >

function screeningPlate(): PlateWell[][] {
  const contents = []
  for (let row = 1; row <= 32; row += 1) {
    contents.push(
      { row, column: 1, control: '-' as const },
      { row, column: 48, control: '+' as const },
    )
    for (let column = 3; column <= 46; column += 1) contents.push({ row, column, batchId: column })
  }
  contents.push({ row: 5, column: 2, control: '#' as const })
  return plateWells(1536, contents)
}

describe('the drawn plate layout', () => {
  it('draws plates of more than 384 wells, lays out smaller ones as elements', () => {
    expect(layoutDrawn(plateWells(96, []))).toBe(false)
    expect(layoutDrawn(plateWells(384, []))).toBe(false)
    expect(layoutDrawn(plateWells(1536, []))).toBe(true)
    expect(layoutDrawn([])).toBe(false)
  })

  it('draws every well once, in its state’s colour, where a click finds it', () => {
    const wells = screeningPlate()
    const geometry = layoutGeometry(32, 48)
    const { context, fills, rectangles } = recordingContext()
    drawLayoutMap(context, {
      wells,
      geometry,
      colours: {
        fill: colour('fill'),
        border: colour('border'),
        axis: 'axis',
        focus: 'focus',
        selected: 'ink',
      },
      font: '10px sans-serif',
      focused: { row: 32, column: 48 },
      selected: { row: 5, column: 2 },
    })
    const expected = new Map<WellState, string[]>()
    for (const row of wells) {
      for (const well of row) {
        const state = wellState(well)
        expected.set(state, [...(expected.get(state) ?? []), well.position])
      }
    }
    expect(fills.map((fill) => fill.style).sort()).toEqual(
      [...expected.keys()].map((state) => `fill-${state}`).sort(),
    )
    for (const fill of fills) {
      const state = fill.style.replace('fill-', '') as WellState
      const found = fill.centres.map(([x, y]) => {
        const target = targetAt(geometry, 32, 48, x, y)
        return target?.kind === 'well' ? wells[target.row - 1]![target.column - 1]!.position : null
      })
      expect(found).toEqual(expected.get(state))
    }
    expect(expected.get('reference')).toEqual(['E02'])
    expect(expected.get('empty')).toHaveLength(32 * 2 - 1)
    const ringed = rectangles.map(({ style, x, y, size }) => {
      const target = targetAt(geometry, 32, 48, x + size / 2, y + size / 2)
      return [style, target]
    })
    expect(ringed).toEqual([
      ['ink', { kind: 'well', row: 5, column: 2 }],
      ['focus', { kind: 'well', row: 32, column: 48 }],
    ])
  })

  it('moves the focus by arrows, Home, End, Page Up and Down, and stays at the edges', () => {
    const at = { row: 4, column: 10 }
    expect(keyMove('ArrowRight', at, 32, 48)).toEqual({ row: 4, column: 11 })
    expect(keyMove('ArrowLeft', at, 32, 48)).toEqual({ row: 4, column: 9 })
    expect(keyMove('ArrowDown', at, 32, 48)).toEqual({ row: 5, column: 10 })
    expect(keyMove('ArrowUp', at, 32, 48)).toEqual({ row: 3, column: 10 })
    expect(keyMove('Home', at, 32, 48)).toEqual({ row: 4, column: 1 })
    expect(keyMove('End', at, 32, 48)).toEqual({ row: 4, column: 48 })
    expect(keyMove('PageUp', at, 32, 48)).toEqual({ row: 1, column: 10 })
    expect(keyMove('PageDown', at, 32, 48)).toEqual({ row: 32, column: 10 })
    expect(keyMove('ArrowLeft', { row: 1, column: 1 }, 32, 48)).toEqual({ row: 1, column: 1 })
    expect(keyMove('ArrowDown', { row: 32, column: 48 }, 32, 48)).toEqual({ row: 32, column: 48 })
    expect(keyMove('a', at, 32, 48)).toBeNull()
  })
})
