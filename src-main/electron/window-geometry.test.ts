import { describe, expect, it } from 'vitest'
import {
  defaultWindowSize,
  minimumWindowSize,
  parseWindowState,
  placeWindow,
  type Rectangle,
} from './window-geometry.ts'

const laptop: Rectangle = { x: 0, y: 0, width: 1440, height: 860 }
const monitorOnTheRight: Rectangle = { x: 1440, y: 0, width: 2560, height: 1400 }

describe('parseWindowState', () => {
  it('accepts the shape the app writes', () => {
    const state = { x: 10, y: 20, width: 900, height: 700, maximized: true }
    expect(parseWindowState(state)).toEqual(state)
  })

  it.each([
    ['null', null],
    ['a string', 'x=10'],
    ['an array', [10, 20, 900, 700]],
    ['a missing member', { x: 10, y: 20, width: 900, maximized: false }],
    ['a number as text', { x: '10', y: 20, width: 900, height: 700, maximized: false }],
    ['a non-finite number', { x: 10, y: 20, width: Infinity, height: 700, maximized: false }],
    ['a zero width', { x: 10, y: 20, width: 0, height: 700, maximized: false }],
    ['a negative height', { x: 10, y: 20, width: 900, height: -5, maximized: false }],
    ['maximized not a boolean', { x: 10, y: 20, width: 900, height: 700, maximized: 'yes' }],
  ])('refuses %s', (_case, value) => {
    expect(parseWindowState(value)).toBeNull()
  })
})

describe('placeWindow', () => {
  it('centres the default size on the primary screen when nothing was saved', () => {
    expect(placeWindow(null, [laptop], laptop)).toEqual({
      x: (laptop.width - defaultWindowSize.width) / 2,
      y: (laptop.height - defaultWindowSize.height) / 2,
      ...defaultWindowSize,
      maximized: false,
    })
  })

  it('keeps a window that is fully on a screen exactly where it was', () => {
    const saved = { x: 1500, y: 40, width: 1200, height: 900, maximized: true }
    expect(placeWindow(saved, [laptop, monitorOnTheRight], laptop)).toEqual(saved)
  })

  it('moves a window left on an unplugged monitor to the middle of the primary screen', () => {
    const saved = { x: 1600, y: 100, width: 1000, height: 700, maximized: false }
    expect(placeWindow(saved, [laptop], laptop)).toEqual({
      x: 220,
      y: 80,
      width: 1000,
      height: 700,
      maximized: false,
    })
  })

  it('moves a window that is mostly off every screen onto the primary one', () => {
    const mostlyBelow = { x: 100, y: 700, width: 800, height: 600, maximized: false }
    const placed = placeWindow(mostlyBelow, [laptop, monitorOnTheRight], laptop)
    expect(placed).toEqual({ x: 320, y: 130, width: 800, height: 600, maximized: false })
  })

  it('slides a window that is mostly on a screen back inside it', () => {
    const slightlyLeft = { x: -200, y: -50, width: 1000, height: 700, maximized: false }
    expect(placeWindow(slightlyLeft, [laptop], laptop)).toEqual({
      x: 0,
      y: 0,
      width: 1000,
      height: 700,
      maximized: false,
    })
  })

  it('clamps a window larger than its screen to the work area', () => {
    const huge = { x: 0, y: 0, width: 5000, height: 3000, maximized: false }
    expect(placeWindow(huge, [laptop], laptop)).toEqual({ ...laptop, maximized: false })
  })

  it('clamps the size to the primary screen when the window is moved there', () => {
    const small: Rectangle = { x: 0, y: 0, width: 1024, height: 600 }
    const lost = { x: 4000, y: 4000, width: 1900, height: 1200, maximized: true }
    expect(placeWindow(lost, [small], small)).toEqual({ ...small, maximized: true })
  })

  it('follows the work area of a screen that does not start at the origin', () => {
    const leftMonitor: Rectangle = { x: -1920, y: 25, width: 1920, height: 1055 }
    const saved = { x: -1900, y: 0, width: 800, height: 600, maximized: false }
    expect(placeWindow(saved, [laptop, leftMonitor], laptop)).toEqual({
      x: -1900,
      y: 25,
      width: 800,
      height: 600,
      maximized: false,
    })
  })

  it('grows a saved size below the minimum up to the minimum', () => {
    const tiny = { x: 10, y: 10, width: 50, height: 30, maximized: false }
    expect(placeWindow(tiny, [laptop], laptop)).toEqual({
      x: 10,
      y: 10,
      ...minimumWindowSize,
      maximized: false,
    })
  })
})
