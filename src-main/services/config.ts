import os from 'node:os'
import path from 'node:path'
import packageJson from '../../package.json' with { type: 'json' }
import type { HostKind } from '../shared/app-info.ts'

export interface Config {
  host: HostKind
  appName: string
  appVersion: string
  /** Caches, the outbox, queued attachments and logs live here. */
  dataDir: string
  logDir: string
  /**
   * Base URLs to offer when a person adds a connection: the hosts their organisation uses, set
   * once by whoever installs Vault Desk (`VAULT_DESK_BASE_URLS`, comma-separated).
   */
  usualBaseUrls: string[]
}

export interface ConfigSources {
  host: HostKind
  /** An explicit choice (the CLI's --data-dir) beats the environment. */
  dataDir?: string
  env?: NodeJS.ProcessEnv
  platform?: NodeJS.Platform
  homeDir?: string
}

export const appName = 'Vault Desk'

export function resolveConfig(sources: ConfigSources): Config {
  const env = sources.env ?? process.env
  const chosen = sources.dataDir ?? nonEmpty(env.VAULT_DESK_DATA_DIR)
  const dataDir = chosen
    ? path.resolve(chosen)
    : defaultDataDir(sources.platform ?? process.platform, env, sources.homeDir ?? os.homedir())
  return {
    host: sources.host,
    appName,
    appVersion: packageJson.version,
    dataDir,
    logDir: path.join(dataDir, 'logs'),
    usualBaseUrls: (env.VAULT_DESK_BASE_URLS ?? '')
      .split(',')
      .map((url) => url.trim())
      .filter((url) => url !== ''),
  }
}

/**
 * Per-OS convention for application data that is local to the machine (a cache of the server and
 * the queue of work not yet sent, which must not roam between Windows machines).
 */
export function defaultDataDir(
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
  homeDir: string,
): string {
  switch (platform) {
    case 'win32':
      return path.win32.join(
        nonEmpty(env.LOCALAPPDATA) ?? path.win32.join(homeDir, 'AppData', 'Local'),
        appName,
      )
    case 'darwin':
      return path.posix.join(homeDir, 'Library', 'Application Support', appName)
    default:
      return path.posix.join(
        nonEmpty(env.XDG_DATA_HOME) ?? path.posix.join(homeDir, '.local', 'share'),
        'vault-desk',
      )
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.trim() !== '' ? value : undefined
}
