/**
 * The Electron end of the contract: one `ipcMain.handle` per request channel, each answered by the
 * shared dispatcher, and every service event sent on to the window. The only main-side module that
 * touches `ipcMain` (ESLint enforces it).
 */
import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron'
import { ipcPrefix, requestChannels } from '../ipc/channels.ts'
import type { Dispatch } from '../ipc/dispatcher.ts'
import type { EventBus } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import { fail, type Result } from '../shared/result.ts'

export interface IpcHostOptions {
  dispatch: Dispatch
  events: EventBus
  /** The app's window, if one is open: only its main frame may call, and it receives events. */
  window(): BrowserWindow | undefined
  isAppUrl(url: string): boolean
  log: Logger
}

export interface IpcHost {
  /** Removes every handler and stops forwarding events (on quit). */
  dispose(): void
}

export function startIpcHost(options: IpcHostOptions): IpcHost {
  const { dispatch, events, window, isAppUrl, log } = options
  for (const channel of requestChannels) {
    ipcMain.handle(ipcPrefix + channel, async (event, args: unknown): Promise<Result<unknown>> => {
      const refusal = senderRefusal(event, window(), isAppUrl)
      if (!refusal) return dispatch(channel, args)
      log.warn('refused a request from a foreign sender', {
        channel,
        reason: refusal,
        url: event.senderFrame?.url,
      })
      return fail({ code: 'forbidden_sender', message: `Refused ${channel}: ${refusal}.` })
    })
  }

  const stopForwarding = events.onAny((event, payload) => {
    const target = window()
    if (!target || target.isDestroyed() || target.webContents.isDestroyed()) return
    target.webContents.send(ipcPrefix + event, payload)
  })

  return {
    dispose() {
      stopForwarding()
      for (const channel of requestChannels) ipcMain.removeHandler(ipcPrefix + channel)
    },
  }
}

/** Why a request must be refused, or undefined when it comes from the app's own page. */
function senderRefusal(
  event: IpcMainInvokeEvent,
  window: BrowserWindow | undefined,
  isAppUrl: (url: string) => boolean,
): string | undefined {
  if (!window || window.isDestroyed()) return 'the app window is not open'
  const frame = event.senderFrame
  if (!frame) return 'the sender frame is gone'
  // Distinct WebFrameMain objects may stand for the same frame: compare what identifies it.
  const mainFrame = window.webContents.mainFrame
  const isMainFrame =
    frame.processId === mainFrame.processId && frame.frameToken === mainFrame.frameToken
  if (!isMainFrame) return 'the sender is not the main frame of the app window'
  if (!isAppUrl(frame.url)) return 'the sender is not showing the app'
  return undefined
}
