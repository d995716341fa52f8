import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { BrowserWindow } from 'electron'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { silentLogger } from '../shared/logger.ts'
import { bringToFront, openMainWindow, type MainWindowOptions } from './main-window.ts'
import type { FakeBrowserWindow, FakeWebContents } from './test-support/fake-electron.ts'
import { fakeElectron, resetFakeElectron } from './test-support/fake-electron.ts'
import { writeWindowState } from './window-state.ts'

vi.mock('electron', async () => (await import('./test-support/fake-electron.ts')).fakeElectron)

let dir: string
let options: MainWindowOptions

beforeEach(() => {
  resetFakeElectron()
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-main-window-'))
  options = {
    title: 'Vault Desk',
    preloadPath: '/app/out/preload/index.cjs',
    iconPath: '/app/resources/icon.png',
    startUrl: 'vault-desk://app/',
    stateFile: path.join(dir, 'window-state.json'),
    log: silentLogger,
  }
})

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

function open(): FakeBrowserWindow {
  return openMainWindow(options) as unknown as FakeBrowserWindow
}

describe('openMainWindow', () => {
  it('isolates and sandboxes the page, with our preload and nothing of Node', () => {
    const window = open()
    expect(window.options.webPreferences).toEqual({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      plugins: true,
      spellcheck: false,
    })
  })

  it('loads the start URL and shows the window only once it is ready', () => {
    const window = open()
    expect(window.webContents.getURL()).toBe('vault-desk://app/')
    expect(window.isVisible()).toBe(false)
    window.emit('ready-to-show')
    expect(window.isVisible()).toBe(true)
  })

  it('shows the window even when the page cannot be loaded, logging why', async () => {
    const errors: string[] = []
    options.log = { ...silentLogger, error: (message) => errors.push(message) }
    fakeElectron.app.once('web-contents-created', (_event, contents: FakeWebContents) => {
      contents.loadFailure = new Error('ERR_CONNECTION_REFUSED')
    })
    const window = open()
    await vi.waitFor(() => expect(window.isVisible()).toBe(true))
    expect(errors).toEqual(['cannot load the app page'])
  })

  it('opens centred on the primary screen at the default size the first time', () => {
    const window = open()
    expect(window.bounds).toEqual({ x: 320, y: 120, width: 1280, height: 800 })
  })

  it('reopens where it was saved, maximized once shown if it was', () => {
    writeWindowState(options.stateFile, { x: 50, y: 60, width: 1000, height: 700, maximized: true })
    const window = open()
    expect(window.bounds).toEqual({ x: 50, y: 60, width: 1000, height: 700 })
    expect(window.isMaximized()).toBe(false)
    window.emit('ready-to-show')
    expect(window.isMaximized()).toBe(true)
  })

  it('moves a window saved on a screen that is gone onto the primary screen', () => {
    writeWindowState(options.stateFile, {
      x: 3000,
      y: 0,
      width: 1000,
      height: 700,
      maximized: false,
    })
    expect(open().bounds).toEqual({ x: 460, y: 170, width: 1000, height: 700 })
  })

  it('opens at the default place when the state file is corrupt', () => {
    fs.writeFileSync(options.stateFile, '{"x": 10, "y": 20, "wid')
    expect(open().bounds).toEqual({ x: 320, y: 120, width: 1280, height: 800 })
  })

  it('saves its bounds when closed', () => {
    const window = open()
    window.moveTo({ x: 100, y: 90, width: 900, height: 650 })
    window.close()
    expect(JSON.parse(fs.readFileSync(options.stateFile, 'utf8'))).toEqual({
      x: 100,
      y: 90,
      width: 900,
      height: 650,
      maximized: false,
    })
  })
})

describe('bringToFront', () => {
  it('restores a minimized window, shows and focuses it', () => {
    const window = open()
    window.minimize()
    bringToFront(window as unknown as BrowserWindow)
    expect(window.isMinimized()).toBe(false)
    expect(window.isVisible()).toBe(true)
    expect(window.focused).toBe(true)
  })
})
