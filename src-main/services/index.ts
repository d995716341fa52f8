/**
 * The composition root: the one place that knows every part and builds them from a config, the
 * same way for every host (Electron, the CLI, the browser harness).
 */
import path from 'node:path'
import type Database from 'better-sqlite3'
import fs from 'node:fs'
import { AppError } from '../shared/app-error.ts'
import type { AppInfo } from '../shared/app-info.ts'
import { EventBus } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import { Redactor } from '../shared/redactor.ts'
import { openAppDatabase } from '../store/app-database.ts'
import { ConnectionsRepository } from '../store/connections-repository.ts'
import { resolveConfig, type Config, type ConfigSources } from './config.ts'
import { FileLogger } from './file-logger.ts'
import { StatusService } from './status-service.ts'

export interface Services {
  readonly config: Config
  readonly log: Logger
  readonly redactor: Redactor
  readonly events: EventBus
  readonly status: StatusService
  readonly connections: ConnectionsRepository
  info(): AppInfo
  close(): Promise<void>
}

export interface ServiceOptions extends ConfigSources {
  /** Receives every log line too (already redacted). */
  mirrorLog?: (line: string) => void
}

export function createServices(options: ServiceOptions): Services {
  const config = resolveConfig(options)
  prepareDataDir(config)
  const redactor = new Redactor()
  const logFile = path.join(config.logDir, 'vault-desk.log')
  const fileLogger = new FileLogger({
    file: logFile,
    redactor,
    ...(options.mirrorLog ? { mirror: options.mirrorLog } : {}),
  })
  const log = fileLogger.logger({ host: config.host })
  const events = new EventBus((error) => log.error('event listener failed', { error }))
  let db: Database.Database
  try {
    db = openAppDatabase(path.join(config.dataDir, 'app.db'))
  } catch (error) {
    log.error('cannot open the app database', { error })
    throw error
  }
  log.info('services started', { version: config.appVersion, dataDir: config.dataDir })

  return {
    config,
    log,
    redactor,
    events,
    status: new StatusService(events),
    connections: new ConnectionsRepository(db),
    info: () => ({
      name: config.appName,
      version: config.appVersion,
      host: config.host,
      platform: process.platform,
      dataDir: config.dataDir,
      logFile,
    }),
    async close() {
      db.close()
      log.info('services stopped')
    },
  }
}

function prepareDataDir(config: Config): void {
  try {
    fs.mkdirSync(config.logDir, { recursive: true })
    fs.accessSync(config.dataDir, fs.constants.W_OK)
  } catch (error) {
    throw new AppError(
      'storage',
      `Cannot use ${config.dataDir} as the data directory: ${(error as Error).message}. ` +
        'Choose another with VAULT_DESK_DATA_DIR or --data-dir.',
      { cause: error },
    )
  }
}
