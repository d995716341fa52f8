/**
 * The CLI's side of the data folder's lock (shared/data-folder-lock.ts): commands that sync or
 * send take it before their services start, and either say who holds it (exit code 5) or, with
 * `--wait`, wait a bounded time for it. Read commands never take it and run beside the holder.
 */
import { AppError } from '../shared/app-error.ts'
import { prepareDataDir, resolveConfig } from '../services/config.ts'
import {
  describeHolder,
  tryTakeDataFolderLock,
  waitForDataFolderLock,
  type DataFolderLock,
} from '../shared/data-folder-lock.ts'
import type { CliIo } from './cli-io.ts'
import type { CommandContext, OptionSpec } from './command.ts'

export const lockOptions: OptionSpec = {
  wait: { type: 'boolean' },
  'wait-timeout': { type: 'string' },
}

const defaultWaitSeconds = 600

export const lockHelp = `  --wait            for commands that sync or send (sync, upload, import, outbox send and retry):
                    when another Vault Desk process holds the data folder, wait for it to
                    finish instead of exiting with code 5
  --wait-timeout S  give up waiting after S seconds (default ${defaultWaitSeconds}); implies --wait
`

/** Why a command that syncs or sends did not run: another process holds the data folder. */
export class DataFolderBusy extends Error {
  readonly holder: string
  constructor(message: string, holder: string) {
    super(message)
    this.name = 'DataFolderBusy'
    this.holder = holder
  }
}

/**
 * Takes the data folder for `commandName`, waiting with --wait. Throws DataFolderBusy when
 * another process keeps it, and an AppError for a bad --wait-timeout or an unusable folder.
 */
export async function holdDataFolder(
  commandName: string,
  values: CommandContext['values'],
  io: CliIo,
): Promise<DataFolderLock> {
  const timeoutMs = waitTimeoutMs(values)
  const config = resolveConfig({
    host: 'cli',
    env: io.env,
    ...(typeof values['data-dir'] === 'string' ? { dataDir: values['data-dir'] } : {}),
  })
  prepareDataDir(config)
  const holderName = `'vault-desk ${commandName}'`
  const waiting = values.wait === true || values['wait-timeout'] !== undefined
  const attempt = waiting
    ? await waitForDataFolderLock(config.dataDir, holderName, {
        timeoutMs,
        onWaiting: (holder) =>
          io.stderr(
            `${capitalised(describeHolder(holder))} is using ${config.dataDir}: waiting up to ${timeoutMs / 1000} s for it to finish…\n`,
          ),
      })
    : tryTakeDataFolderLock(config.dataDir, holderName)
  if (attempt.held) return attempt.lock
  const holder = describeHolder(attempt.holder)
  const advice = waiting
    ? `It still did after ${timeoutMs / 1000} s.`
    : 'Run this again when it has finished, or add --wait to wait for it.'
  throw new DataFolderBusy(
    `${capitalised(holder)} syncs and sends for ${config.dataDir}; only one process may. ${advice} Commands that only read (find, status, export, curves, outbox list) run beside it.`,
    holder,
  )
}

function waitTimeoutMs(values: CommandContext['values']): number {
  const raw = values['wait-timeout']
  if (raw === undefined) return defaultWaitSeconds * 1000
  const seconds = typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : NaN
  if (!(seconds > 0) || seconds > 7 * 24 * 3600) {
    throw new AppError(
      'invalid_argument',
      `--wait-timeout takes a number of seconds above 0 (at most a week), not ${JSON.stringify(raw)}.`,
    )
  }
  return seconds * 1000
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
