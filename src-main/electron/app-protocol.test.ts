import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { contentSecurityPolicy } from '../shared/content-security-policy.ts'
import { silentLogger } from '../shared/logger.ts'
import { appScheme, appStartUrl } from './app-origin.ts'
import { registerAppScheme, serveRenderer } from './app-protocol.ts'
import { fakeElectron, resetFakeElectron } from './test-support/fake-electron.ts'

vi.mock('electron', async () => (await import('./test-support/fake-electron.ts')).fakeElectron)

let root: string
let rendererDir: string

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-protocol-'))
  rendererDir = path.join(root, 'renderer')
  fs.mkdirSync(path.join(rendererDir, 'assets'), { recursive: true })
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Vault Desk</title>')
  fs.writeFileSync(path.join(rendererDir, 'assets', 'index-abc.js'), 'console.log(1)')
  fs.writeFileSync(path.join(rendererDir, 'assets', 'index-abc.css'), 'body{}')
  fs.writeFileSync(path.join(rendererDir, 'assets', 'blob.bin'), 'raw')
  fs.writeFileSync(path.join(root, 'secret.txt'), 'token=abc')
})

afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

beforeEach(() => {
  resetFakeElectron()
  serveRenderer(rendererDir, silentLogger)
})

const get = (url: string, init?: RequestInit) => fakeElectron.protocol.fetch(url, init)

describe('registerAppScheme', () => {
  it('registers vault-desk as a standard, secure scheme that does not bypass the CSP', () => {
    registerAppScheme()
    expect(fakeElectron.protocol.privilegedSchemes).toEqual([
      {
        scheme: appScheme,
        privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
      },
    ])
  })
})

describe('serveRenderer', () => {
  it('serves index.html at the start URL with the strict CSP and no connect sources', async () => {
    const response = await get(appStartUrl)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('content-security-policy')).toBe(contentSecurityPolicy())
    expect(response.headers.get('content-security-policy')).toContain("connect-src 'none'")
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(await response.text()).toBe('<!doctype html><title>Vault Desk</title>')
  })

  it.each([
    ['assets/index-abc.js', 'text/javascript; charset=utf-8'],
    ['assets/index-abc.css', 'text/css; charset=utf-8'],
    ['assets/blob.bin', 'application/octet-stream'],
  ])('serves %s as %s, with the CSP', async (file, type) => {
    const response = await get(`${appStartUrl}${file}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe(type)
    expect(response.headers.get('content-security-policy')).toBe(contentSecurityPolicy())
  })

  it.each([
    ['encoded dot segments', 'vault-desk://app/%2e%2e/secret.txt'],
    ['encoded slashes', 'vault-desk://app/..%2fsecret.txt'],
    ['encoded backslashes', 'vault-desk://app/..%5csecret.txt'],
    ['encoded slashes climbing out of a subfolder', 'vault-desk://app/assets/..%2f..%2fsecret.txt'],
    ['a NUL byte', 'vault-desk://app/index.html%00.png'],
    ['malformed escapes', 'vault-desk://app/%E0%A4%A'],
    ['another host', 'vault-desk://evil/index.html'],
  ])('answers 404 for %s', async (_case, url) => {
    const response = await get(url)
    expect(response.status).toBe(404)
    expect(await response.text()).not.toContain('token')
    expect(response.headers.get('content-security-policy')).toBe(contentSecurityPolicy())
  })

  it('answers 404 for files that do not exist and for folders', async () => {
    expect((await get(`${appStartUrl}missing.js`)).status).toBe(404)
    expect((await get(`${appStartUrl}assets`)).status).toBe(404)
  })

  it('answers 405 to anything but GET and HEAD', async () => {
    const response = await get(appStartUrl, { method: 'POST', body: 'x' })
    expect(response.status).toBe(405)
    const head = await get(appStartUrl, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
  })
})
