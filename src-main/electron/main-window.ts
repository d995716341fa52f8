/**
 * The one application window: sandboxed, isolated, no Node, our preload only, placed where the
 * person left it (if that place is still on a screen).
 */
import { BrowserWindow, screen } from 'electron'
import type { Logger } from '../shared/logger.ts'
import { minimumWindowSize, placeWindow } from './window-geometry.ts'
import { readWindowState, rememberWindowState } from './window-state.ts'

export interface MainWindowOptions {
  title: string
  preloadPath: string
  /** Unpackaged runs only: packaged builds get their icon from the installer. */
  iconPath?: string
  startUrl: string
  stateFile: string
  log: Logger
}

export function openMainWindow(options: MainWindowOptions): BrowserWindow {
  const { log } = options
  const placement = placeWindow(
    readWindowState(options.stateFile, log),
    screen.getAllDisplays().map((display) => display.workArea),
    screen.getPrimaryDisplay().workArea,
  )
  const window = new BrowserWindow({
    title: options.title,
    x: placement.x,
    y: placement.y,
    width: placement.width,
    height: placement.height,
    minWidth: minimumWindowSize.width,
    minHeight: minimumWindowSize.height,
    show: false,
    ...(options.iconPath ? { icon: options.iconPath } : {}),
    webPreferences: {
      preload: options.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      // Chromium's PDF viewer, for an attachment's preview: a blob: frame the window makes, the
      // only frame source the CSP allows.
      plugins: true,
      // Chemical names and identifiers are "misspelled" everywhere, and on Linux the spellchecker
      // would download dictionaries from Google's servers.
      spellcheck: false,
    },
  })
  rememberWindowState(window, options.stateFile, log)
  const reveal = () => {
    if (window.isDestroyed() || window.isVisible()) return
    // Maximizing a hidden window shows it, so it waits until the page has painted.
    if (placement.maximized) window.maximize()
    window.show()
  }
  window.once('ready-to-show', reveal)
  window.loadURL(options.startUrl).catch((error: unknown) => {
    log.error('cannot load the app page', { url: options.startUrl, error: String(error) })
    reveal()
  })
  return window
}

/** A second launch of the app shows the existing window instead. */
export function bringToFront(window: BrowserWindow): void {
  if (window.isDestroyed()) return
  if (window.isMinimized()) window.restore()
  window.show()
  window.focus()
}
