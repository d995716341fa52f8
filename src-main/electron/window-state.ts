/**
 * Remembers the window's bounds in `<dataDir>/window-state.json`: read once when the window
 * opens, written when the window has stopped moving for a moment and again when it closes.
 */
import fs from 'node:fs'
import type { BrowserWindow } from 'electron'
import type { Logger } from '../shared/logger.ts'
import { parseWindowState, type WindowState } from './window-geometry.ts'

/** Moving or resizing fires many events; the file is written once the window has settled. */
const settleDelayMs = 500

/** The saved state, or null when there is none or it is unusable (which is logged, not thrown). */
export function readWindowState(file: string, log: Logger): WindowState | null {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      log.warn('cannot read the window state; using the default', { file, error: String(error) })
    }
    return null
  }
  let state: WindowState | null = null
  try {
    state = parseWindowState(JSON.parse(text))
  } catch {
    // Not JSON at all: treated like any other unusable content below.
  }
  if (!state) log.warn('the window state file is unusable; using the default', { file })
  return state
}

/** Writes atomically (temporary file, then rename) so that a crash never leaves half a file. */
export function writeWindowState(file: string, state: WindowState): void {
  const temporary = `${file}.tmp`
  fs.writeFileSync(temporary, `${JSON.stringify(state)}\n`, { mode: 0o600 })
  fs.renameSync(temporary, file)
}

/** Saves the window's bounds whenever it settles after a move or resize, and when it closes. */
export function rememberWindowState(window: BrowserWindow, file: string, log: Logger): void {
  let pending: ReturnType<typeof setTimeout> | undefined
  const save = () => {
    clearTimeout(pending)
    pending = undefined
    if (window.isDestroyed()) return
    try {
      writeWindowState(file, { ...window.getNormalBounds(), maximized: window.isMaximized() })
    } catch (error) {
      log.warn('cannot save the window state', { file, error: String(error) })
    }
  }
  const saveWhenSettled = () => {
    clearTimeout(pending)
    pending = setTimeout(save, settleDelayMs)
  }
  window.on('move', saveWhenSettled)
  window.on('resize', saveWhenSettled)
  window.on('maximize', saveWhenSettled)
  window.on('unmaximize', saveWhenSettled)
  window.on('close', save)
}
