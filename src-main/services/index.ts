/**
 * The composition root: the one place that knows every part and builds them from a config, the
 * same way for every host (Electron, the CLI, the browser harness).
 */
import path from 'node:path'
import type Database from 'better-sqlite3'
import { ConnectionTokens } from '../secrets/connection-tokens.ts'
import { KeychainTokenStore } from '../secrets/keychain-token-store.ts'
import { SessionTokenStore } from '../secrets/session-token-store.ts'
import type { AppInfo } from '../shared/app-info.ts'
import { EventBus } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import { Redactor } from '../shared/redactor.ts'
import { openAppDatabase } from '../store/app-database.ts'
import { ConnectionCaches } from '../store/connection-caches.ts'
import { ConnectionRegistry } from '../store/connection-registry.ts'
import { ConnectionsRepository } from '../store/connections-repository.ts'
import { SettingsRepository } from '../store/settings-repository.ts'
import { WatchRepository } from '../store/watch-repository.ts'
import type { ImportChecker } from '../intake/import-checker.ts'
import { LocalImportChecker } from '../intake/import-check.ts'
import { WatchService } from './watch-service.ts'
import { BrowseService } from './browse-service.ts'
import { ResultsService } from './results-service.ts'
import { SavedSearchesService } from './saved-searches-service.ts'
import { CurvesService } from './curves-service.ts'
import { PlatesService } from './plates-service.ts'
import { RegistrationService } from './registration-service.ts'
import { LocalChemService, type ChemService } from './chem-service.ts'
import { NoveltyService } from './novelty-service.ts'
import { structureIngest } from './structure-ingest.ts'
import { OutboxDesk } from './outbox-desk.ts'
import { prepareDataDir, resolveConfig, type Config, type ConfigSources } from './config.ts'
import {
  describeHolder,
  tryTakeDataFolderLock,
  type DataFolderLock,
} from '../shared/data-folder-lock.ts'
import { limitersForDataFolder } from './request-slots.ts'
import type { ClientTuning } from './connection-runtime.ts'
import { ConnectionRuntimes } from './connection-runtimes.ts'
import { ConnectionsService } from './connections-service.ts'
import { DemoVault } from './demo-vault.ts'
import { ExportService } from './export-service.ts'
import { AttachmentsService } from './attachments-service.ts'
import { FileLogger } from './file-logger.ts'
import { StatusService } from './status-service.ts'
import { NoticesService } from './notices-service.ts'
import { SyncService, type PullTuning } from './sync-service.ts'
import { createOutbox, type OutboxTuning } from './outbox-service.ts'
import type { Outbox } from '../sync/outbox/outbox.ts'
import type { ProbeBackoff } from '../sync/connectivity-monitor.ts'

export interface Services {
  readonly config: Config
  readonly log: Logger
  readonly redactor: Redactor
  readonly events: EventBus
  readonly status: StatusService
  /** What the window tells until dismissed: an outbox repaired, a data folder held elsewhere. */
  readonly notices: NoticesService
  /** Saved connections: add, new token, remove (tokens never leave through it). */
  readonly connections: ConnectionsService
  /** The runtimes of connections (client, cache, connectivity), saved or headless. */
  readonly runtimes: ConnectionRuntimes
  readonly sync: SyncService
  /** Vaults, records and search, from the caches. */
  readonly browse: BrowseService
  /** Assay results: the readout catalogue, searches by results and results tables. */
  readonly results: ResultsService
  /** Dose-response curves from the cache, fitted offline beside the vault's fits. */
  readonly curves: CurvesService
  /** Plate quality from the cache: heat map values, Z′ and flags, a run's plates. */
  readonly plates: PlatesService
  /** Depictions, properties, structure searches and the vault's structure tools. */
  readonly chem: ChemService
  /** The registration dialog's novelty check against the cached vault and the outbox. */
  readonly novelty: NoveltyService
  /** Exports of any list to CSV, SD file, Excel or JSON Lines, offline. */
  readonly exports: ExportService
  /** The vault's saved searches from the cache, in words, and as offline lists. */
  readonly searches: SavedSearchesService
  /** Attachments' contents on this computer: fetched by sync within a budget, opened, previewed. */
  readonly attachments: AttachmentsService
  readonly demo: DemoVault
  /** What the person did that the server does not have yet; sent in the background. */
  readonly outbox: Outbox
  /** Files handed over as bytes by a window, and the outbox's history (the Outbox view). */
  readonly outboxDesk: OutboxDesk
  /** Compounds registered offline: the vault's form from the cache, checked and queued. */
  readonly registration: RegistrationService
  /** Watched instrument folders: their settings, what they took, decisions on held files. */
  readonly watch: WatchService
  /** The local check of an import file against the cache, before it is queued. */
  readonly importChecker: ImportChecker
  info(): AppInfo
  close(): Promise<void>
}

export interface ServiceOptions extends ConfigSources {
  /** Receives every log line too (already redacted). */
  mirrorLog?: (line: string) => void
  /**
   * Keep connections in sync in the background (at start, every interval, on reconnect). True
   * for the hosts that stay up; the CLI syncs only when told.
   */
  background?: boolean
  /** Client settings (tests poll exports and back off faster). */
  client?: ClientTuning
  /** When a first pass reads an export, and how long a refused kind is left alone. */
  pull?: PullTuning
  /** Delays between probes of an API out of reach (default from 2 s growing to 5 min). */
  probeBackoff?: ProbeBackoff
  /** Outbox retry and polling delays (tests use short ones). */
  outbox?: OutboxTuning
  /**
   * Index the structures of molecules as sync commits them. As `background` by default: the hosts
   * that stay up do; the CLI builds a vault's index when a command needs it, and any host builds
   * it on the first chemistry request.
   */
  structureIngest?: boolean
  /** Chemistry worker threads (two by default). */
  chemWorkers?: number
  /**
   * The data folder's lock (data-folder-lock.ts), taken by the caller (the CLI, for a command that
   * syncs or sends) and released when the services close. Hosts that stay up take it themselves.
   */
  dataFolderLock?: DataFolderLock
  /** Watched folders' settle time and scan period (tests use short ones). */
  watch?: { settleMs?: number; scanMs?: number }
  /** The local check of import files before they are queued (watched folders). */
  importChecker?: ImportChecker
}

/** How long an import check waits for the vault to give a template's column mappings. */
const mappingTemplateTimeoutMs = 10_000

/** How often a host that stays up looks again for a data folder another process holds. */
const dataFolderRetryMs = 2_000

/** How hosts name themselves in the data folder's lock. */
const lockHolderNames: Record<Config['host'], string> = {
  electron: 'the Vault Desk app',
  web: 'the Vault Desk browser preview',
  cli: 'the vault-desk command',
}

export function createServices(options: ServiceOptions): Services {
  const config = resolveConfig(options)
  const preparation = prepareDataDir(config)
  const redactor = new Redactor()
  const logFile = path.join(config.logDir, 'vault-desk.log')
  const fileLogger = new FileLogger({
    file: logFile,
    redactor,
    ...(options.mirrorLog ? { mirror: options.mirrorLog } : {}),
  })
  const log = fileLogger.logger({ host: config.host })
  if (preparation.problems.length > 0) {
    log.warn('some data folder entries could not be made private', {
      problems: preparation.problems,
    })
  }
  const events = new EventBus((error) => log.error('event listener failed', { error }))
  let db: Database.Database
  try {
    db = openAppDatabase(path.join(config.dataDir, 'app.db'))
  } catch (error) {
    log.error('cannot open the app database', { error })
    throw error
  }
  log.info('services started', { version: config.appVersion, dataDir: config.dataDir })

  const status = new StatusService(events)
  const settings = new SettingsRepository(db)
  const tokens = new ConnectionTokens(
    new KeychainTokenStore(redactor),
    new SessionTokenStore(redactor),
  )
  const caches = new ConnectionCaches(config.dataDir)
  const connectionsRepository = new ConnectionsRepository(db)
  const registry = new ConnectionRegistry(connectionsRepository, tokens, caches)
  // Requests in flight are limited per user across every process on this data folder.
  const tuning = {
    limiters: limitersForDataFolder(config.dataDir, (error) =>
      log.warn('request slots cannot be shared with other processes', { error }),
    ),
    ...options.client,
  }
  const runtimes: ConnectionRuntimes = new ConnectionRuntimes({
    registry,
    caches,
    events,
    log: log.child({ component: 'connections' }),
    redactor,
    tuning,
    ...(options.probeBackoff ? { probeBackoff: options.probeBackoff } : {}),
    onReconnected: (connectionId) => {
      sync.reconnected(connectionId)
      outbox.reconnected(connectionId)
    },
    onTokenRefused: (runtime, message) => {
      log.warn('the server refused a token', { connectionId: runtime.id })
      sync.tokenRefused(runtime.id)
      events.emit('connections.needsToken', {
        connectionId: runtime.id,
        name: runtime.name,
        message,
      })
      events.emit('connections.changed', { connectionIds: [runtime.id] })
    },
  })
  const outbox: Outbox = createOutbox({
    dataDir: config.dataDir,
    runtimes,
    events,
    status,
    log: log.child({ component: 'outbox' }),
    redactor,
    client: tuning,
    tuning: options.outbox ?? {},
    // The CLI waits for the check before any command either way; windows must not.
    pageCheck: config.host === 'cli' ? 'inline' : 'worker',
    // It has no window to say why it waits: stderr does.
    ...(config.host === 'cli'
      ? { onRepairWait: (message: string) => process.stderr.write(`vault-desk: ${message}\n`) }
      : {}),
  })
  const notices = new NoticesService({
    events,
    dataDir: config.dataDir,
    log: log.child({ component: 'notices' }),
    outbox,
    connectionName: (id) =>
      runtimes.opened().find((runtime) => runtime.id === id)?.name ??
      connectionsRepository.get(id)?.name ??
      null,
  })
  const chem = new LocalChemService({
    runtimes,
    events,
    log: log.child({ component: 'chem' }),
    ...(options.chemWorkers !== undefined ? { workers: options.chemWorkers } : {}),
  })
  const novelty = new NoveltyService({
    cache: (connectionId) => runtimes.get(connectionId).cache,
    pendingRecords: (connectionId, vaultId) => [
      ...outbox.pendingList(connectionId, vaultId, 'molecules'),
      ...outbox.pendingList(connectionId, vaultId, 'batches'),
    ],
    buildIndex: (connectionId, vaultId) => {
      chem.indexState(connectionId, vaultId).catch((error: unknown) => {
        log.warn('cannot index the structures of a vault', { connectionId, vaultId, error })
      })
    },
    log: log.child({ component: 'novelty' }),
  })
  events.on('chem.indexProgress', ({ connectionId, vaultId, indexed, total }) =>
    novelty.indexChanged(connectionId, vaultId, { indexed, total }),
  )
  events.on('records.changed', ({ connectionId, vaultId, kinds }) => {
    if (kinds.includes('molecules')) novelty.indexChanged(connectionId, vaultId)
  })
  const sync: SyncService = new SyncService({
    runtimes,
    registry,
    settings,
    events,
    status,
    log: log.child({ component: 'sync' }),
    pull: options.pull ?? {},
    ...((options.structureIngest ?? options.background ?? config.host !== 'cli')
      ? { ingest: structureIngest(chem) }
      : {}),
  })
  const connections = new ConnectionsService({
    usualBaseUrls: config.usualBaseUrls,
    registry,
    settings,
    runtimes,
    sync,
    events,
    log: log.child({ component: 'connections' }),
    redactor,
    tuning,
    // The demo vault's address changes at every start.
    moveConnection: (connectionId, baseUrl) =>
      connectionsRepository.setBaseUrl(connectionId, baseUrl),
  })
  const demo = new DemoVault({ dataDir: config.dataDir, connections, log })
  events.on('connectivity.changed', () =>
    status.update({ online: runtimes.opened().some((runtime) => runtime.monitor.state.online) }),
  )
  const curves = new CurvesService({
    runtimes,
    outbox,
    log: log.child({ component: 'curves' }),
  })
  const outboxDesk = new OutboxDesk({
    dataDir: config.dataDir,
    outbox,
    log: log.child({ component: 'outbox-desk' }),
  })
  const browse = new BrowseService(
    runtimes,
    { outbox, events, log: log.child({ component: 'browse' }) },
    chem,
  )
  const results = new ResultsService(runtimes, outbox)
  const importChecker =
    options.importChecker ??
    new LocalImportChecker({
      cacheFileOf: (connectionId) => runtimes.get(connectionId).cache.file,
      structureProblems: (structures, signal) => chem.structureProblems(structures, signal),
      fetchMappingTemplate: async (connectionId, vaultId, templateId, signal) =>
        runtimes.get(connectionId).client.mappingTemplates.get(vaultId, templateId, {
          timeoutMs: mappingTemplateTimeoutMs,
          ...(signal ? { signal } : {}),
        }),
    })
  const watch = new WatchService({
    repository: new WatchRepository(db),
    outbox,
    checker: importChecker,
    runtimes,
    events,
    log: log.child({ component: 'watch' }),
    copiesDir: path.join(config.dataDir, 'watched-files'),
    ...options.watch,
  })
  const exports = new ExportService({
    browse,
    results,
    chem,
    events,
    log: log.child({ component: 'exports' }),
  })
  const searches = new SavedSearchesService({
    runtimes,
    outbox,
    events,
    log: log.child({ component: 'saved-searches' }),
  })
  const attachments = new AttachmentsService({
    root: config.attachmentsDir,
    runtimes,
    settings,
    events,
    log: log.child({ component: 'attachments' }),
    defaultBudgetBytes: config.attachmentBudgetBytes,
    background: options.background ?? config.host !== 'cli',
  })
  const plates = new PlatesService({ runtimes, outbox })
  let closing: Promise<void> | undefined
  let lock = options.dataFolderLock
  let lockRetry: ReturnType<typeof setInterval> | undefined
  if (options.background ?? config.host !== 'cli') {
    // Only the process holding the data folder syncs and sends. Another holder (a CLI sync, a
    // second host) leaves this one reading the caches until it can take the folder over.
    const startWriting = () => {
      sync.startScheduling()
      outbox.start()
      watch.start()
    }
    const attempt = lock
      ? ({ held: true, lock } as const)
      : tryTakeDataFolderLock(config.dataDir, lockHolderNames[config.host])
    if (attempt.held) {
      lock = attempt.lock
      startWriting()
    } else {
      log.warn('another process syncs this data folder: waiting for it to finish', {
        holder: describeHolder(attempt.holder),
      })
      notices.dataFolderHeld(config.dataDir, attempt.holder)
      lockRetry = setInterval(() => {
        try {
          const retry = tryTakeDataFolderLock(config.dataDir, lockHolderNames[config.host])
          if (!retry.held) return notices.dataFolderHeld(config.dataDir, retry.holder)
          clearInterval(lockRetry)
          lock = retry.lock
          notices.dataFolderFree()
          log.info('took over the data folder: syncing and sending')
          startWriting()
        } catch (error) {
          log.error('cannot take the data folder lock', { error })
        }
      }, dataFolderRetryMs)
    }
  }

  return {
    config,
    log,
    redactor,
    events,
    status,
    notices,
    connections,
    runtimes,
    sync,
    browse,
    results,
    curves,
    plates,
    chem,
    novelty,
    exports,
    searches,
    attachments,
    demo,
    outbox,
    outboxDesk,
    watch,
    importChecker,
    registration: new RegistrationService({ runtimes, outbox, chem }),
    info: () => ({
      name: config.appName,
      version: config.appVersion,
      host: config.host,
      platform: process.platform,
      dataDir: config.dataDir,
      logFile,
    }),
    // Once: a host may close on several paths (window closed, quit, a failed start).
    close() {
      clearInterval(lockRetry)
      closing ??= (async () => {
        await exports.close()
        searches.close()
        await attachments.close()
        await sync.close()
        await demo.close()
        await watch.close()
        await outbox.close()
        outboxDesk.close()
        await chem.close()
        await novelty.close()
        await curves.close()
        plates.close()
        await runtimes.closeAll()
        notices.close()
        db.close()
        log.info('services stopped')
      })().finally(() => lock?.release())
      return closing
    },
  }
}
