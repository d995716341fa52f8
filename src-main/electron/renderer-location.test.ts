import { describe, expect, it } from 'vitest'
import { AppError } from '../shared/app-error.ts'
import { resolveRendererLocation } from './renderer-location.ts'

describe('resolveRendererLocation', () => {
  it('loads the built renderer from the app scheme and trusts only that origin', () => {
    const location = resolveRendererLocation({ isPackaged: true, devServerUrl: undefined })
    expect(location.startUrl).toBe('vault-desk://app/')
    expect(location.isAppUrl('vault-desk://app/index.html#/molecules')).toBe(true)
    expect(location.isAppUrl('vault-desk://other/index.html')).toBe(false)
    expect(location.isAppUrl('http://localhost:5173/')).toBe(false)
    expect(location.isAppUrl('file:///etc/passwd')).toBe(false)
    expect(location.isAppUrl('not a url')).toBe(false)
  })

  it('ignores the dev server URL in a packaged app', () => {
    const location = resolveRendererLocation({
      isPackaged: true,
      devServerUrl: 'http://localhost:5173',
    })
    expect(location.startUrl).toBe('vault-desk://app/')
    expect(location.isAppUrl('http://localhost:5173/')).toBe(false)
  })

  it('loads the dev server in development and trusts only its origin', () => {
    const location = resolveRendererLocation({
      isPackaged: false,
      devServerUrl: 'http://localhost:5173',
    })
    expect(location.startUrl).toBe('http://localhost:5173/')
    expect(location.isAppUrl('http://localhost:5173/src/main.ts')).toBe(true)
    expect(location.isAppUrl('http://localhost:5174/')).toBe(false)
    expect(location.isAppUrl('vault-desk://app/')).toBe(false)
  })

  it('uses the built renderer in development when no dev server runs', () => {
    const location = resolveRendererLocation({ isPackaged: false, devServerUrl: ' ' })
    expect(location.startUrl).toBe('vault-desk://app/')
  })

  it.each(['https://example.com/', 'http://192.168.1.20:5173/', 'localhost:5173', 'ftp://[::1]/'])(
    'refuses %s as a dev server, naming the variable',
    (devServerUrl) => {
      const attempt = () => resolveRendererLocation({ isPackaged: false, devServerUrl })
      expect(attempt).toThrow(AppError)
      expect(attempt).toThrow(`ELECTRON_RENDERER_URL must be an http:// URL on localhost`)
    },
  )
})
