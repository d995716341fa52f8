import type { Session, WebContents } from 'electron'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { silentLogger } from '../shared/logger.ts'
import { denyAllPermissions, ExternalLinks, guardWebContents } from './security.ts'
import {
  FakeBrowserWindow,
  FakeSession,
  FakeWebContents,
  fakeElectron,
  resetFakeElectron,
} from './test-support/fake-electron.ts'

vi.mock('electron', async () => (await import('./test-support/fake-electron.ts')).fakeElectron)

beforeEach(() => resetFakeElectron())

describe('denyAllPermissions', () => {
  const permissions = [
    'media',
    'geolocation',
    'notifications',
    'clipboard-read',
    'hid',
    'openExternal',
  ]

  it('answers every permission request with a denial', () => {
    const session = new FakeSession()
    denyAllPermissions(session as unknown as Session, silentLogger)
    const answers: boolean[] = []
    for (const permission of permissions) {
      session.permissionRequestHandler?.(new FakeWebContents(), permission, (granted) =>
        answers.push(granted),
      )
    }
    expect(answers).toEqual(permissions.map(() => false))
  })

  it('answers every permission check with a denial', () => {
    const session = new FakeSession()
    denyAllPermissions(session as unknown as Session, silentLogger)
    expect(session.permissionCheckHandler).not.toBeNull()
    for (const permission of permissions) {
      expect(session.permissionCheckHandler?.(new FakeWebContents(), permission)).toBe(false)
      expect(session.permissionCheckHandler?.(null, permission)).toBe(false)
    }
  })
})

/** Lets every question, answer and open already under way run to its end. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

const { dialog, shell } = fakeElectron
const openButton = 0
const cancelButton = 1

describe('guardWebContents', () => {
  let links: ExternalLinks

  beforeEach(() => {
    links = new ExternalLinks()
  })

  function guarded(contents = new FakeWebContents()): FakeWebContents {
    guardWebContents(contents as unknown as WebContents, {
      isAppUrl: (url) => url.startsWith('vault-desk://app/'),
      log: silentLogger,
      links,
    })
    return contents
  }

  /** The page asks for a new window on `url`; resolves once the guard has finished with it. */
  async function openWindow(contents: FakeWebContents, url: string) {
    expect(contents.windowOpenHandler?.({ url })).toEqual({ action: 'deny' })
    await settle()
  }

  it('lets the page navigate within the app', () => {
    const contents = guarded()
    expect(contents.navigate('will-navigate', 'vault-desk://app/index.html')).toBe(true)
    expect(contents.navigate('will-redirect', 'vault-desk://app/')).toBe(true)
  })

  it.each(['https://example.com/', 'file:///etc/passwd', 'vault-desk://evil/', 'javascript:1'])(
    'prevents navigating or redirecting to %s',
    async (url) => {
      const contents = guarded()
      expect(contents.navigate('will-navigate', url)).toBe(false)
      expect(contents.navigate('will-redirect', url)).toBe(false)
      await settle()
      expect(shell.openExternal).not.toHaveBeenCalled()
    },
  )

  it('asks, showing the whole address, before a new window goes to the browser', async () => {
    const window = new FakeBrowserWindow()
    const contents = guarded(window.webContents)
    const address = 'https://vault.example.org/docs/entry?id=42#results'
    dialog.responses.push(openButton)
    await openWindow(contents, address)

    expect(dialog.showMessageBox).toHaveBeenCalledOnce()
    const [parent, options] = dialog.showMessageBox.mock.calls[0] ?? []
    expect(parent).toBe(window)
    expect(options).toMatchObject({
      type: 'question',
      message: 'Open a page on vault.example.org in your browser?',
      buttons: ['Open in Browser', 'Cancel'],
      defaultId: cancelButton,
      cancelId: cancelButton,
    })
    expect((options as { detail: string }).detail).toContain(address)
    expect(shell.openExternal).toHaveBeenCalledExactlyOnceWith(address)
  })

  it('opens nothing when the person declines, and asks again next time', async () => {
    const contents = guarded()
    dialog.responses.push(cancelButton)
    await openWindow(contents, 'https://evil.example/phish')
    expect(shell.openExternal).not.toHaveBeenCalled()

    await openWindow(contents, 'https://evil.example/phish')
    expect(dialog.showMessageBox).toHaveBeenCalledTimes(2)
    expect(shell.openExternal).not.toHaveBeenCalled()
  })

  it('asks once per host, in every window, for as long as the app runs', async () => {
    const first = guarded()
    const second = guarded()
    dialog.responses.push(openButton, openButton, openButton, openButton)
    await openWindow(first, 'https://vault.example.org/a')
    await openWindow(second, 'https://vault.example.org/b')
    expect(dialog.showMessageBox).toHaveBeenCalledOnce()

    await openWindow(first, 'https://other.example.org/')
    await openWindow(first, 'https://vault.example.org:8443/')
    expect(dialog.showMessageBox).toHaveBeenCalledTimes(3)
    expect(shell.openExternal.mock.calls.map(([url]) => url)).toEqual([
      'https://vault.example.org/a',
      'https://vault.example.org/b',
      'https://other.example.org/',
      'https://vault.example.org:8443/',
    ])

    // A new run starts with nothing allowed.
    links = new ExternalLinks()
    await openWindow(guarded(), 'https://vault.example.org/c')
    expect(dialog.showMessageBox).toHaveBeenCalledTimes(4)
    expect(shell.openExternal).toHaveBeenCalledTimes(5)
  })

  it('asks once when the same host is clicked again while the question is open', async () => {
    const contents = guarded()
    dialog.responses.push(openButton)
    contents.windowOpenHandler?.({ url: 'https://vault.example.org/1' })
    contents.windowOpenHandler?.({ url: 'https://vault.example.org/2' })
    await settle()
    expect(dialog.showMessageBox).toHaveBeenCalledOnce()
    expect(shell.openExternal).toHaveBeenCalledTimes(2)
  })

  it('names the real host of an address dressed as another', async () => {
    const contents = guarded()
    await openWindow(contents, 'https://vault.example.org@evil.example/login')
    await openWindow(contents, 'https://vаult.example.org/')
    const messages = dialog.showMessageBox.mock.calls.map(
      (call) => (call.at(-1) as { message: string }).message,
    )
    expect(messages[0]).toBe('Open a page on evil.example in your browser?')
    // The Cyrillic "а" never reaches the question: the name is shown in its ASCII form.
    expect(messages[1]).toMatch(/^Open a page on xn--[a-z\d-]+\.example\.org in your browser\?$/)
    expect(shell.openExternal).not.toHaveBeenCalled()
  })

  it('keeps the link closed when the question cannot be shown', async () => {
    const contents = guarded()
    dialog.showMessageBox.mockRejectedValueOnce(new Error('no display'))
    await openWindow(contents, 'https://vault.example.org/')
    expect(shell.openExternal).not.toHaveBeenCalled()
  })

  it('offers an https link clicked in the page to the browser, after asking', async () => {
    const contents = guarded()
    dialog.responses.push(openButton)
    expect(contents.navigate('will-navigate', 'https://vault.example.org/x')).toBe(false)
    await settle()
    expect(dialog.showMessageBox).toHaveBeenCalledOnce()
    expect(shell.openExternal).toHaveBeenCalledExactlyOnceWith('https://vault.example.org/x')

    // A redirect is the server's doing, not the person's: it is stopped, never offered.
    expect(contents.navigate('will-redirect', 'https://vault.example.org/y')).toBe(false)
    await settle()
    expect(shell.openExternal).toHaveBeenCalledOnce()
  })

  it.each(['http://example.com/', 'file:///etc/passwd', 'vault-desk://app/', 'smb://share/x'])(
    'denies a new window for %s without asking or opening anything',
    async (url) => {
      const contents = guarded()
      dialog.responses.push(openButton)
      await openWindow(contents, url)
      contents.navigate('will-navigate', url)
      await settle()
      expect(dialog.showMessageBox).not.toHaveBeenCalled()
      expect(shell.openExternal).not.toHaveBeenCalled()
    },
  )

  it('prevents attaching a webview', () => {
    const contents = guarded()
    const event = { preventDefault: vi.fn() }
    contents.emit('will-attach-webview', event, {}, { src: 'https://example.com/' })
    expect(event.preventDefault).toHaveBeenCalled()
  })
})
