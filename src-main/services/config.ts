import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import packageJson from '../../package.json' with { type: 'json' }
import { AppError } from '../shared/app-error.ts'
import { defaultAttachmentBudgetBytes } from '../sync/attachments/budget.ts'
import type { HostKind } from '../shared/app-info.ts'
import { createPrivateFolder, makeTreePrivate, privateFolderMode } from '../shared/private-files.ts'

export interface Config {
  host: HostKind
  appName: string
  appVersion: string
  /** Caches, the outbox, queued attachments and logs live here. */
  dataDir: string
  logDir: string
  /** Each connection's fetched attachments and their register (`<dataDir>/attachments`). */
  attachmentsDir: string
  /**
   * The space a connection's attachments may take unless the person set another
   * (`VAULT_DESK_ATTACHMENT_BUDGET_MB`, default 1024).
   */
  attachmentBudgetBytes: number
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
    attachmentsDir: path.join(dataDir, 'attachments'),
    attachmentBudgetBytes: attachmentBudgetOf(env.VAULT_DESK_ATTACHMENT_BUDGET_MB),
    usualBaseUrls: (env.VAULT_DESK_BASE_URLS ?? '')
      .split(',')
      .map((url) => url.trim())
      .filter((url) => url !== ''),
  }
}

/** Megabytes from the environment, else 1 GB; a value that is not a whole number is refused. */
function attachmentBudgetOf(text: string | undefined): number {
  const chosen = nonEmpty(text)
  if (chosen === undefined) return defaultAttachmentBudgetBytes
  const megabytes = Number(chosen)
  if (!Number.isSafeInteger(megabytes) || megabytes < 0) {
    throw new AppError(
      'invalid_argument',
      `VAULT_DESK_ATTACHMENT_BUDGET_MB must be a whole number of megabytes, not ${JSON.stringify(chosen)}.`,
    )
  }
  return megabytes * 1024 * 1024
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

/**
 * What Vault Desk keeps in its data folder, each made private by the module that creates it: the
 * app and outbox databases (with their companions and any copy set aside), the caches, the
 * outbox's copies of files, the logs, the demo vault, the window's state and the lock of the
 * process that syncs (data-folder-lock.ts). Only these are closed at start: a data folder chosen
 * by hand may hold the person's own files too.
 */
const dataFolderEntries = [
  /^app\.db/,
  /^outbox\.db/,
  /^caches$/,
  /^outbox$/,
  /^attachments$/,
  /^logs$/,
  /^demo-vault$/,
  /^window-state\.json/,
  /^vault-desk\.lock/,
]

/** What `prepareDataDir` closed that an earlier version had left open, and what it could not. */
export interface DataDirPreparation {
  /** Entries whose mode was changed to 0700 or 0600. */
  madePrivate: number
  /** Entries that could not be changed (another owner, say), with the reason: worth a log line. */
  problems: string[]
}

/**
 * Makes the data folder ready before anything is written to it: created private (with its logs
 * folder), and what an earlier version left readable to other accounts closed (folders 0700,
 * files 0600). Throws a storage error naming the folder when it cannot be used; a mode it cannot
 * change (a folder another account owns) does not stop the start and is answered.
 */
export function prepareDataDir(config: Config): DataDirPreparation {
  try {
    createPrivateFolder(config.logDir)
    fs.accessSync(config.dataDir, fs.constants.W_OK)
  } catch (error) {
    throw new AppError(
      'storage',
      `Cannot use ${config.dataDir} as the data directory: ${(error as Error).message}. ` +
        'Choose another with VAULT_DESK_DATA_DIR or --data-dir.',
      { cause: error },
    )
  }
  const preparation: DataDirPreparation = { madePrivate: 0, problems: [] }
  if (process.platform === 'win32') return preparation
  const close = (entry: string, makePrivate: () => number) => {
    try {
      preparation.madePrivate += makePrivate()
    } catch (error) {
      preparation.problems.push(`${entry}: ${(error as Error).message}`)
    }
  }
  close(config.dataDir, () => {
    const open = (fs.statSync(config.dataDir).mode & 0o777) !== privateFolderMode
    if (open) fs.chmodSync(config.dataDir, privateFolderMode)
    return open ? 1 : 0
  })
  for (const name of fs.readdirSync(config.dataDir)) {
    if (!dataFolderEntries.some((pattern) => pattern.test(name))) continue
    const entry = path.join(config.dataDir, name)
    close(entry, () => makeTreePrivate(entry))
  }
  return preparation
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.trim() !== '' ? value : undefined
}
