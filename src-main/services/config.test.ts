import { describe, expect, it } from 'vitest'
import { defaultDataDir, resolveConfig } from './config.ts'

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
