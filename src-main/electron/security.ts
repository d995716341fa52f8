/**
 * What a page may do beyond rendering itself: nothing. It may not navigate away from the app, open
 * windows, embed webviews or use any permission (camera, notifications, clipboard reads, USB...).
 * A link to an https page opens in the person's browser instead.
 */
import { shell, type Session, type WebContents } from 'electron'
import type { Logger } from '../shared/logger.ts'

export function denyAllPermissions(session: Session, log: Logger): void {
  session.setPermissionRequestHandler((contents, permission, callback) => {
    log.warn('denied a permission request', { permission, url: contents.getURL() })
    callback(false)
  })
  session.setPermissionCheckHandler(() => false)
}

export interface GuardOptions {
  isAppUrl(url: string): boolean
  log: Logger
}

export function guardWebContents(contents: WebContents, { isAppUrl, log }: GuardOptions): void {
  const keepInApp = (event: Electron.Event<{ url: string }>) => {
    if (isAppUrl(event.url)) return
    event.preventDefault()
    log.warn('blocked navigation away from the app', { url: event.url })
  }
  contents.on('will-navigate', keepInApp)
  contents.on('will-redirect', keepInApp)

  contents.setWindowOpenHandler(({ url }) => {
    if (isHttpsUrl(url)) {
      shell.openExternal(url).catch((error: unknown) => {
        log.warn('cannot open a link in the browser', { url, error: String(error) })
      })
    } else {
      log.warn('blocked a new window', { url })
    }
    return { action: 'deny' }
  })

  contents.on('will-attach-webview', (event) => {
    event.preventDefault()
    log.warn('blocked a webview')
  })
}

function isHttpsUrl(url: string): boolean {
  return URL.parse(url)?.protocol === 'https:'
}
