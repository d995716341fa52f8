/**
 * What a page may do beyond rendering itself: nothing. It may not navigate away from the app, open
 * windows, embed webviews or use any permission (camera, notifications, clipboard reads, USB...).
 * A link to an https page (a notebook entry's, say: text from the vault, which anyone with write
 * access to it wrote) opens in the person's browser, but only once they have seen the whole address
 * and said yes; they are asked once per host for as long as the app runs.
 */
import { BrowserWindow, dialog, shell, type Session, type WebContents } from 'electron'
import type { Logger } from '../shared/logger.ts'

export function denyAllPermissions(session: Session, log: Logger): void {
  session.setPermissionRequestHandler((contents, permission, callback) => {
    log.warn('denied a permission request', { permission, url: contents.getURL() })
    callback(false)
  })
  session.setPermissionCheckHandler(() => false)
}

const openButton = 0
const cancelButton = 1

/** Opens https links in the browser after asking; remembers the hosts the person allowed. */
export class ExternalLinks {
  readonly #allowedHosts = new Set<string>()
  /** A question on screen, per host: a second click on the same host waits for its answer. */
  readonly #asking = new Map<string, Promise<boolean>>()

  /** Resolves once the link is opened, refused or declined; never rejects. */
  async open(address: string, contents: WebContents, log: Logger): Promise<void> {
    const url = URL.parse(address)
    if (url?.protocol !== 'https:') {
      log.warn('blocked a link that is not https', { url: address })
      return
    }
    if (!(await this.#allowed(url, contents, log))) {
      log.info('the person declined to open a link', { host: url.host })
      return
    }
    // The address as shown, parsed: what was asked about is exactly what opens.
    await shell.openExternal(url.href).catch((error: unknown) => {
      log.warn('cannot open a link in the browser', { url: url.href, error: String(error) })
    })
  }

  #allowed(url: URL, contents: WebContents, log: Logger): Promise<boolean> {
    if (this.#allowedHosts.has(url.host)) return Promise.resolve(true)
    const pending = this.#asking.get(url.host)
    if (pending) return pending
    const answer = ask(url, contents, log).then((allowed) => {
      if (allowed) this.#allowedHosts.add(url.host)
      this.#asking.delete(url.host)
      return allowed
    })
    this.#asking.set(url.host, answer)
    return answer
  }
}

async function ask(url: URL, contents: WebContents, log: Logger): Promise<boolean> {
  // `host` is in ASCII (punycode), so a look-alike name cannot pass for the real one.
  const options = {
    type: 'question' as const,
    title: 'Open a link',
    message: `Open a page on ${url.host} in your browser?`,
    detail: `The link goes to:\n\n${url.href}\n\nVault Desk will not ask again about ${url.host} until it is restarted.`,
    buttons: ['Open in Browser', 'Cancel'],
    defaultId: cancelButton,
    cancelId: cancelButton,
    noLink: true,
  }
  const window = contents.isDestroyed() ? null : BrowserWindow.fromWebContents(contents)
  try {
    const { response } = window
      ? await dialog.showMessageBox(window, options)
      : await dialog.showMessageBox(options)
    return response === openButton
  } catch (error) {
    log.warn('cannot ask about a link, so it stays closed', { error: String(error) })
    return false
  }
}

/** One for the whole app, so that every window shares what the person allowed. */
const appLinks = new ExternalLinks()

export interface GuardOptions {
  isAppUrl(url: string): boolean
  log: Logger
  /** The app's own unless given (tests give their own). */
  links?: ExternalLinks
}

export function guardWebContents(
  contents: WebContents,
  { isAppUrl, log, links = appLinks }: GuardOptions,
): void {
  contents.on('will-navigate', (event) => {
    if (isAppUrl(event.url)) return
    event.preventDefault()
    // A plain link clicked in the page: offered to the browser like one opening a new window.
    if (isHttpsUrl(event.url)) void links.open(event.url, contents, log)
    else log.warn('blocked navigation away from the app', { url: event.url })
  })
  contents.on('will-redirect', (event) => {
    if (isAppUrl(event.url)) return
    event.preventDefault()
    log.warn('blocked a redirect away from the app', { url: event.url })
  })

  contents.setWindowOpenHandler(({ url }) => {
    if (isHttpsUrl(url)) void links.open(url, contents, log)
    else log.warn('blocked a new window', { url })
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
