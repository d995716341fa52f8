import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { AppError } from '../shared/app-error.ts'
import { defaultDataDir, prepareDataDir, resolveConfig } from './config.ts'

describe('defaultDataDir', () => {
  it('follows each OS convention for machine-local application data', () => {
    expect(defaultDataDir('linux', {}, '/home/ada')).toBe('/home/ada/.local/share/vault-desk')
    expect(defaultDataDir('linux', { XDG_DATA_HOME: '/data/ada' }, '/home/ada')).toBe(
      '/data/ada/vault-desk',
    )
    expect(defaultDataDir('darwin', {}, '/Users/ada')).toBe(
      '/Users/ada/Library/Application Support/Vault Desk',
    )
    expect(defaultDataDir('win32', { LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local' }, '')).toBe(
      'C:\\Users\\ada\\AppData\\Local\\Vault Desk',
    )
    expect(defaultDataDir('win32', {}, 'C:\\Users\\ada')).toBe(
      'C:\\Users\\ada\\AppData\\Local\\Vault Desk',
    )
  })
})

describe('resolveConfig', () => {
  it('prefers an explicit directory, then VAULT_DESK_DATA_DIR, then the convention', () => {
    const env = { VAULT_DESK_DATA_DIR: '/srv/vd' }
    const base = { host: 'cli', platform: 'linux', homeDir: '/home/ada' } as const
    expect(resolveConfig({ ...base, env, dataDir: '/chosen' }).dataDir).toBe('/chosen')
    expect(resolveConfig({ ...base, env }).dataDir).toBe('/srv/vd')
    expect(resolveConfig({ ...base, env: { VAULT_DESK_DATA_DIR: ' ' } }).dataDir).toBe(
      '/home/ada/.local/share/vault-desk',
    )
    expect(resolveConfig({ ...base, env }).logDir).toBe('/srv/vd/logs')
  })

  it('reads the base URLs to offer from VAULT_DESK_BASE_URLS', () => {
    const base = { host: 'cli', platform: 'linux', homeDir: '/home/ada' } as const
    expect(resolveConfig(base).usualBaseUrls).toEqual([])
    const env = { VAULT_DESK_BASE_URLS: ' https://a.example/api/v1, ,https://b.example/api/v1' }
    expect(resolveConfig({ ...base, env }).usualBaseUrls).toEqual([
      'https://a.example/api/v1',
      'https://b.example/api/v1',
    ])
  })
})

describe.runIf(process.platform !== 'win32')('prepareDataDir', () => {
  let root: string | undefined
  afterEach(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true })
  })
  const modeOf = (file: string) => fs.lstatSync(file).mode & 0o777

  it('creates a new data folder and its logs folder private, whatever the umask', () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-config-'))
    const config = resolveConfig({ host: 'cli', dataDir: path.join(root, 'a', 'vault-desk') })
    const umask = process.umask(0o022)
    try {
      expect(prepareDataDir(config)).toEqual({ madePrivate: 0, problems: [] })
    } finally {
      process.umask(umask)
    }
    for (const folder of [path.join(root, 'a'), config.dataDir, config.logDir]) {
      expect(modeOf(folder), folder).toBe(0o700)
    }
  })

  it('closes what Vault Desk left open, not the person’s own files nor what links point to', () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-config-'))
    const dataDir = path.join(root, 'vault-desk')
    const made = (name: string, mode: number, contents?: string) => {
      const entry = path.join(dataDir, name)
      if (contents === undefined) fs.mkdirSync(entry, { recursive: true })
      else fs.writeFileSync(entry, contents)
      fs.chmodSync(entry, mode)
      return entry
    }
    made('', 0o755)
    made('caches', 0o755)
    made('caches/c1.db', 0o644, '')
    made('caches/c1.db-wal', 0o644, '')
    made('app.db', 0o644, '')
    made('outbox.db.damaged-2024', 0o664, '')
    made('window-state.json', 0o644, '{}')
    made('notes.txt', 0o644, 'mine')
    made('tools', 0o755)
    made('tools/run.sh', 0o755, '#!/bin/sh\n')
    const outside = path.join(root, 'outside.txt')
    fs.writeFileSync(outside, 'x')
    fs.chmodSync(outside, 0o644)
    fs.symlinkSync(outside, path.join(dataDir, 'caches', 'link'))

    const preparation = prepareDataDir(resolveConfig({ host: 'cli', dataDir }))

    expect(preparation).toEqual({ madePrivate: 7, problems: [] })
    for (const name of ['', 'caches', 'logs']) expect(modeOf(path.join(dataDir, name))).toBe(0o700)
    for (const name of ['caches/c1.db', 'caches/c1.db-wal', 'app.db', 'outbox.db.damaged-2024']) {
      expect(modeOf(path.join(dataDir, name)), name).toBe(0o600)
    }
    expect(modeOf(path.join(dataDir, 'window-state.json'))).toBe(0o600)
    expect(modeOf(path.join(dataDir, 'notes.txt'))).toBe(0o644)
    expect(modeOf(path.join(dataDir, 'tools'))).toBe(0o755)
    expect(modeOf(path.join(dataDir, 'tools/run.sh'))).toBe(0o755)
    expect(modeOf(outside)).toBe(0o644)
  })

  it('refuses a data folder that cannot be made, naming it', () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-config-'))
    const blocker = path.join(root, 'a-file')
    fs.writeFileSync(blocker, '')
    const config = resolveConfig({ host: 'cli', dataDir: path.join(blocker, 'vault-desk') })
    expect(() => prepareDataDir(config)).toThrow(AppError)
    expect(() => prepareDataDir(config)).toThrow(
      `Cannot use ${config.dataDir} as the data directory`,
    )
  })
})
