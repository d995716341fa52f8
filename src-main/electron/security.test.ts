import type { Session, WebContents } from 'electron'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { silentLogger } from '../shared/logger.ts'
import { denyAllPermissions, guardWebContents } from './security.ts'
import {
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

describe('guardWebContents', () => {
  function guarded(): FakeWebContents {
    const contents = new FakeWebContents()
    guardWebContents(contents as unknown as WebContents, {
      isAppUrl: (url) => url.startsWith('vault-desk://app/'),
      log: silentLogger,
    })
    return contents
  }

  it('lets the page navigate within the app', () => {
    const contents = guarded()
    expect(contents.navigate('will-navigate', 'vault-desk://app/index.html')).toBe(true)
    expect(contents.navigate('will-redirect', 'vault-desk://app/')).toBe(true)
  })

  it.each(['https://example.com/', 'file:///etc/passwd', 'vault-desk://evil/', 'javascript:1'])(
    'prevents navigating or redirecting to %s',
    (url) => {
      const contents = guarded()
      expect(contents.navigate('will-navigate', url)).toBe(false)
      expect(contents.navigate('will-redirect', url)).toBe(false)
      expect(fakeElectron.shell.openExternal).not.toHaveBeenCalled()
    },
  )

  it('denies every new window and hands https links to the browser', () => {
    const contents = guarded()
    expect(contents.windowOpenHandler?.({ url: 'https://vault.example.org/docs' })).toEqual({
      action: 'deny',
    })
    expect(fakeElectron.shell.openExternal).toHaveBeenCalledWith('https://vault.example.org/docs')
  })

  it.each(['http://example.com/', 'file:///etc/passwd', 'vault-desk://app/', 'smb://share/x'])(
    'denies a new window for %s without opening anything',
    (url) => {
      const contents = guarded()
      expect(contents.windowOpenHandler?.({ url })).toEqual({ action: 'deny' })
      expect(fakeElectron.shell.openExternal).not.toHaveBeenCalled()
    },
  )

  it('prevents attaching a webview', () => {
    const contents = guarded()
    const event = { preventDefault: vi.fn() }
    contents.emit('will-attach-webview', event, {}, { src: 'https://example.com/' })
    expect(event.preventDefault).toHaveBeenCalled()
  })
})
