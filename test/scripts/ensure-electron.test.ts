/**
 * The `npm start` preflight against a stand-in for the electron package: a folder with its
 * package.json and an `install.js` that plays Electron's installer (it fetches by writing the files
 * the real one extracts, or fails as the real one does offline). Real processes, no network.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ensureElectron, type ElectronCheck } from '../../scripts/ensure-electron.ts'

const version = '45.4.1'
let electronDir: string
let told: string[]

/** What the real installer prints when fetch cannot reach the mirror (seen with a .invalid host). */
const offlineStack = `TypeError: fetch failed
    at node:internal/deps/undici/undici:15270:13
    at async FetchDownloader.download (file:///x/node_modules/@electron/get/dist/FetchDownloader.js:46:30)
    at async downloadArtifact (file:///x/node_modules/@electron/get/dist/index.js:154:12)`

const installers = {
  /** Writes what the real one leaves after extracting the zip. */
  fetches: `
    const fs = require('fs'); const path = require('path')
    fs.writeFileSync(path.join(__dirname, 'ran'), 'yes')
    fs.mkdirSync(path.join(__dirname, 'dist'), { recursive: true })
    fs.writeFileSync(path.join(__dirname, 'dist', 'version'), 'v${version}')
    fs.writeFileSync(path.join(__dirname, 'dist', 'electron'), '#!/bin/sh\\n')
    fs.writeFileSync(path.join(__dirname, 'path.txt'), 'electron')
  `,
  offline: `
    require('fs').writeFileSync(require('path').join(__dirname, 'ran'), 'yes')
    console.error(${JSON.stringify(offlineStack)}); process.exit(1)
  `,
  dnsFails: `
    console.error('RequestError: getaddrinfo ENOTFOUND github.com\\n    at ClientRequest.<anonymous>'); process.exit(1)
  `,
  checksumFails: `
    console.error('Error: Generated checksum for "electron-v${version}-linux-x64.zip" did not match expected checksum.\\n    at validateArtifact (x.js:1:1)'); process.exit(1)
  `,
  succeedsWithoutFetching: `process.exit(0)`,
  hangs: `setInterval(() => {}, 1000)`,
}

function fakeElectronPackage(installer: keyof typeof installers): void {
  fs.writeFileSync(
    path.join(electronDir, 'package.json'),
    JSON.stringify({ name: 'electron', version, bin: { 'install-electron': 'install.js' } }),
  )
  fs.writeFileSync(path.join(electronDir, 'install.js'), installers[installer])
}

function installedBinary(options: { distVersion?: string; pathText?: string } = {}): void {
  fs.mkdirSync(path.join(electronDir, 'dist'), { recursive: true })
  fs.writeFileSync(path.join(electronDir, 'dist', 'version'), options.distVersion ?? version)
  fs.writeFileSync(path.join(electronDir, 'dist', 'electron'), '')
  fs.writeFileSync(path.join(electronDir, 'path.txt'), options.pathText ?? 'electron')
}

const installerRan = () => fs.existsSync(path.join(electronDir, 'ran'))

function check(env: Record<string, string> = {}, installerTimeoutMs?: number) {
  return ensureElectron({
    electronDir,
    env,
    platform: 'linux',
    tell: (line) => told.push(line),
    ...(installerTimeoutMs === undefined ? {} : { installerTimeoutMs }),
  })
}

function failure(result: ElectronCheck): string {
  if (result.status !== 'failed') throw new Error(`expected a failure, got ${result.status}`)
  return result.message
}

beforeEach(() => {
  electronDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-electron-'))
  told = []
})

afterEach(() => {
  fs.rmSync(electronDir, { recursive: true, force: true })
})

describe('ensureElectron', () => {
  it('leaves an installed binary alone, without running the installer', async () => {
    fakeElectronPackage('fetches')
    installedBinary()
    expect(await check()).toEqual({
      status: 'present',
      executable: path.join(electronDir, 'dist', 'electron'),
    })
    expect(installerRan()).toBe(false)
    expect(told).toEqual([])
  })

  it.each([
    ['nothing is there', () => {}, 'there is no dist/version'],
    ['dist/ holds another version', () => installedBinary({ distVersion: 'v44.0.0' }), '44.0.0'],
    [
      'path.txt names another platform',
      () => installedBinary({ pathText: 'electron.exe' }),
      'path.txt',
    ],
    [
      'the binary path.txt names is gone',
      () => {
        installedBinary()
        fs.rmSync(path.join(electronDir, 'dist', 'electron'))
      },
      'is missing',
    ],
  ])('fetches it with its own installer when %s', async (_what, arrange, why) => {
    fakeElectronPackage('fetches')
    arrange()
    expect(await check()).toEqual({
      status: 'fetched',
      executable: path.join(electronDir, 'dist', 'electron'),
    })
    expect(installerRan()).toBe(true)
    expect(told).toHaveLength(1)
    expect(told[0]).toContain(`Electron ${version} is not installed yet (`)
    expect(told[0]).toContain(why)
  })

  it('says there is no network when the download cannot reach its server', async () => {
    fakeElectronPackage('offline')
    const message = failure(await check())
    expect(installerRan()).toBe(true)
    expect(message).toContain(`Electron ${version} is not installed, and it cannot be downloaded`)
    expect(message).toContain('cannot be reached (TypeError: fetch failed)')
    expect(message).toContain('run `npm start` again')
    expect(message).toContain('ELECTRON_EXEC_PATH')
    expect(message).not.toContain('FetchDownloader')

    fakeElectronPackage('dnsFails')
    expect(failure(await check())).toContain(
      'cannot be reached (RequestError: getaddrinfo ENOTFOUND',
    )
  })

  it('tells another installer failure from a missing network, with its cause', async () => {
    fakeElectronPackage('checksumFails')
    const message = failure(await check())
    expect(message).toContain('its installer failed (exit code 1): Error: Generated checksum')
    expect(message).not.toContain('network')
  })

  it('fails clearly when the installer succeeds but leaves no binary', async () => {
    fakeElectronPackage('succeedsWithoutFetching')
    expect(failure(await check())).toContain(
      "Electron's installer finished, but Electron 45.4.1 is still not installed: there is no dist/version",
    )
  })

  it('ends a download that never finishes, saying so', async () => {
    fakeElectronPackage('hangs')
    expect(failure(await check({}, 500))).toContain('did not finish within 1 second.')
  })

  it('trusts ELECTRON_EXEC_PATH as electron-vite does, and names it when it is wrong', async () => {
    fakeElectronPackage('fetches')
    const binary = path.join(electronDir, 'my-electron')
    fs.writeFileSync(binary, '')
    expect(await check({ ELECTRON_EXEC_PATH: binary })).toEqual({
      status: 'present',
      executable: binary,
    })
    const missing = failure(await check({ ELECTRON_EXEC_PATH: `${binary}-gone` }))
    expect(missing).toContain(`ELECTRON_EXEC_PATH names ${binary}-gone, which does not exist`)
    expect(installerRan()).toBe(false)
  })

  it('asks for npm install when the electron package itself is missing or broken', async () => {
    expect(failure(await check())).toContain('Cannot read the electron package')
    fs.writeFileSync(path.join(electronDir, 'package.json'), '{"name": "electron"}')
    expect(failure(await check())).toContain('has no version. Run `npm install` again.')
  })

  it('says when Electron has no build for the platform', async () => {
    fakeElectronPackage('fetches')
    const result = await ensureElectron({ electronDir, env: {}, platform: 'aix', tell: () => {} })
    expect(failure(result)).toContain('Electron has no build for the platform "aix"')
  })
})
