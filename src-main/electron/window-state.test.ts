import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { BrowserWindow } from 'electron'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Logger } from '../shared/logger.ts'
import { FakeBrowserWindow } from './test-support/fake-electron.ts'
import { readWindowState, rememberWindowState, writeWindowState } from './window-state.ts'

let dir: string
let file: string
let warnings: string[]
const log: Logger = {
  debug() {},
  info() {},
  warn: (message) => warnings.push(message),
  error() {},
  child: () => log,
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-window-state-'))
  file = path.join(dir, 'window-state.json')
  warnings = []
})

afterEach(() => {
  vi.useRealTimers()
  fs.rmSync(dir, { recursive: true, force: true })
})

describe('readWindowState', () => {
  it('reads what writeWindowState wrote', () => {
    const state = { x: 40, y: 60, width: 1000, height: 700, maximized: false }
    writeWindowState(file, state)
    expect(readWindowState(file, log)).toEqual(state)
    expect(fs.readdirSync(dir)).toEqual(['window-state.json'])
    // Private like everything in the data folder: written again and again, never widened.
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600)
  })

  it('answers null without a warning when there is no file yet', () => {
    expect(readWindowState(file, log)).toBeNull()
    expect(warnings).toEqual([])
  })

  it.each([
    ['text that is not JSON', '{"x": 10, "y":'],
    ['JSON of the wrong shape', '{"x": 10, "y": 20, "width": "wide"}'],
    ['an empty file', ''],
  ])('answers null and warns for %s', (_case, content) => {
    fs.writeFileSync(file, content)
    expect(readWindowState(file, log)).toBeNull()
    expect(warnings).toEqual(['the window state file is unusable; using the default'])
  })

  it('answers null and warns when the path cannot be read as a file', () => {
    fs.mkdirSync(file)
    expect(readWindowState(file, log)).toBeNull()
    expect(warnings).toEqual(['cannot read the window state; using the default'])
  })
})

describe('rememberWindowState', () => {
  function trackedWindow(): FakeBrowserWindow {
    const window = new FakeBrowserWindow({ x: 0, y: 0, width: 800, height: 600 })
    rememberWindowState(window as unknown as BrowserWindow, file, log)
    return window
  }

  it('writes once the window has settled, with the latest bounds', () => {
    vi.useFakeTimers()
    const window = trackedWindow()
    window.moveTo({ x: 10, y: 10, width: 900, height: 600 })
    window.moveTo({ x: 30, y: 50, width: 1000, height: 650 })
    expect(fs.existsSync(file)).toBe(false)

    vi.runAllTimers()
    expect(readWindowState(file, log)).toEqual({
      x: 30,
      y: 50,
      width: 1000,
      height: 650,
      maximized: false,
    })
  })

  it('records maximizing, keeping the normal bounds to restore to', () => {
    vi.useFakeTimers()
    const window = trackedWindow()
    window.moveTo({ x: 30, y: 50, width: 1000, height: 650 })
    window.maximize()
    vi.runAllTimers()
    expect(readWindowState(file, log)).toMatchObject({ x: 30, width: 1000, maximized: true })
  })

  it('writes at once when the window closes, without waiting for it to settle', () => {
    vi.useFakeTimers()
    const window = trackedWindow()
    window.moveTo({ x: 70, y: 80, width: 1100, height: 750 })
    window.close()
    expect(readWindowState(file, log)).toEqual({
      x: 70,
      y: 80,
      width: 1100,
      height: 750,
      maximized: false,
    })
    vi.runAllTimers()
    expect(warnings).toEqual([])
  })

  it('warns instead of throwing when the file cannot be written', () => {
    const window = trackedWindow()
    fs.rmSync(dir, { recursive: true })
    expect(() => window.close()).not.toThrow()
    expect(warnings).toEqual(['cannot save the window state'])
  })
})
