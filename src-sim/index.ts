import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { loadChemistry } from './chem/chemistry.ts'
import type { Chemistry } from './chem/chemistry.ts'
import type { Database } from 'better-sqlite3'
import { buildAccess } from './core/access.ts'
import { apiPrefix, createApiHandler } from './core/api-server.ts'
import { SimClock } from './core/clock.ts'
import { openDatabase } from './core/database.ts'
import { createDownloadHandler } from './core/download-server.ts'
import { defaultExportLimits, ExportEngine } from './core/exports/engine.ts'
import type { ExportLimits, ExportTiming } from './core/exports/engine.ts'
import { Faults } from './core/faults.ts'
import type { FaultSettings } from './core/faults.ts'
import { InFlightLimit } from './core/in-flight-limit.ts'
import { Router } from './core/router.ts'
import { seedDatabase } from './core/seed.ts'
import type { SeedOption } from './core/seed.ts'
import type { SeedCast } from './core/seed-cast.ts'
import type { ListedFile, SimCore, SimLimits } from './core/sim-core.ts'
import { createStats, resetStats } from './core/stats.ts'
import type { SimStats } from './core/stats.ts'
import { simModules } from './modules.ts'
import type { IndexingSettings } from './resources/molecule-query/indexing-settings.ts'

export type { FaultSettings } from './core/faults.ts'
export { IncompatibleDatabaseError } from './core/database.ts'
export type { SimStats } from './core/stats.ts'
export type { SeedCast } from './core/seed-cast.ts'

export interface VaultSimOptions {
  /** API port on 127.0.0.1; 0 picks a free one. */
  port?: number
  /** Port of the download origin; 0 picks a free one. */
  downloadPort?: number
  /**
   * SQLite file; in memory when absent. A file seeded before keeps its data; the contents of
   * attached files are kept beside it in `<db>-files/`.
   */
  db?: string
  /** `empty` (the cast only), `demo` (a realistic vault) or a number of molecules. */
  seed?: SeedOption
  faults?: FaultSettings
  exportTiming?: Partial<ExportTiming>
  /** Running and queued exports per user (default 3 and 30); `queued: 0` refuses a 4th running. */
  exportLimits?: Partial<ExportLimits>
  limits?: Partial<SimLimits>
  /**
   * The background identification of bulk-seeded molecules for structure search: it runs when at
   * least `minimumMolecules` lack search data (default 10,000), a chunk at a time whenever the
   * API has been idle for `idleMs` (default 1,000).
   */
  indexing?: Partial<IndexingSettings>
  /** Request log lines; silent when absent. */
  log?: (line: string) => void
}

export interface VaultSimUser {
  id: number
  name: string
  email: string
  /** The user's first token. */
  token: string
  tokens: string[]
  /** `admin`, `writer` or `reader`: the user's role in their first vault. */
  role: string
  vaults: number[]
}

export interface VaultSim {
  baseUrl: string
  downloadBaseUrl: string
  users: VaultSimUser[]
  vaults: { id: number; name: string }[]
  cast: SeedCast
  stats: SimStats
  resetStats(): void
  faults: Faults
  clock: SimClock
  /** The internals, for tests that need to look behind the API. */
  core: SimCore
  stop(): Promise<void>
}

const defaultTiming: ExportTiming = { startDelayMs: 1000, durationMs: 2000 }
const defaultIndexing: IndexingSettings = { minimumMolecules: 10_000, idleMs: 1000 }
const defaultLimits: SimLimits = {
  inFlightPerUser: 3,
  maxJsonBodyBytes: 32 * 1024 * 1024,
  // Uploads stream to disk and attached files stay there: no reason to hold them to less.
  maxUploadBytes: 2 * 1024 * 1024 * 1024,
}

export async function startVaultSim(options: VaultSimOptions = {}): Promise<VaultSim> {
  const chem = await loadChemistry()
  const dataDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-sim-'))
  let db: Database | undefined
  try {
    db = openDatabase(options.db, simModules)
    return await startOn(db, dataDirectory, chem, options)
  } catch (error) {
    db?.close()
    fs.rmSync(dataDirectory, { recursive: true, force: true })
    throw error
  }
}

async function startOn(
  db: Database,
  dataDirectory: string,
  chem: Chemistry,
  options: VaultSimOptions,
): Promise<VaultSim> {
  const stats = createStats()
  const clock = new SimClock()
  const faults = new Faults(options.faults)
  const limits = { ...defaultLimits, ...options.limits }
  const log = options.log ?? (() => {})
  const filesDirectory =
    options.db && options.db !== ':memory:'
      ? `${options.db}-files`
      : path.join(dataDirectory, 'files')
  fs.mkdirSync(filesDirectory, { recursive: true })
  let downloadBaseUrl = ''
  const exportEngine = new ExportEngine({
    db,
    clock,
    stats,
    chem,
    directory: path.join(dataDirectory, 'exports'),
    timing: { ...defaultTiming, ...options.exportTiming },
    limits: { ...defaultExportLimits, ...options.exportLimits },
    accessFor: (userId, tokenId, vaultId) => buildAccess(sim, userId, tokenId, vaultId),
    downloadBaseUrl: () => downloadBaseUrl,
  })
  const sim: SimCore = {
    db,
    clock,
    stats,
    faults,
    chem,
    limits,
    indexing: { ...defaultIndexing, ...options.indexing },
    dataDirectory,
    filesDirectory,
    log,
    exports: exportEngine,
    dataVersion: 0,
    accessFor: (userId, tokenId, vaultId) => buildAccess(sim, userId, tokenId, vaultId),
    dependentData: (kind, id) =>
      simModules.flatMap((module) => {
        const description = module.dependentData?.[kind]?.(db, id)
        return description ? [description] : []
      }),
    deleteMoleculeDependents: (moleculeId) => {
      for (const module of simModules) module.moleculeDeletion?.(db, moleculeId)
    },
    moleculeFiles: (moleculeIds) => {
      const files = new Map<number, ListedFile[]>()
      for (const module of simModules) {
        for (const [id, listed] of module.moleculeFiles?.(db, moleculeIds) ?? []) {
          files.set(id, [...(files.get(id) ?? []), ...listed])
        }
      }
      return files
    },
    protocolCriteria: simModules.find((module) => module.protocolCriteria)?.protocolCriteria,
  }
  const router = new Router()
  for (const module of simModules) {
    module.routes?.(router)
    for (const exportable of module.exportables ?? []) exportEngine.register(exportable)
  }
  const cast = await seedDatabase(
    db,
    simModules,
    options.seed ?? 'empty',
    chem,
    clock.nowSeconds(),
    filesDirectory,
  )
  for (const module of simModules) module.start?.(sim)

  const apiServer = http.createServer(
    createApiHandler(sim, router, new InFlightLimit(limits.inFlightPerUser, stats)),
  )
  const downloadServer = http.createServer(createDownloadHandler(sim))
  let apiPort: number
  let downloadPort: number
  try {
    apiPort = await listen(apiServer, options.port ?? 0)
    downloadPort = await listen(downloadServer, options.downloadPort ?? 0)
  } catch (error) {
    await Promise.all([close(apiServer), close(downloadServer)])
    throw error
  }
  downloadBaseUrl = `http://127.0.0.1:${downloadPort}`

  const users = Object.values(cast.users).map((user) => ({
    id: user.id,
    name: user.name,
    email: user.email,
    token: user.tokens[0] ?? '',
    tokens: user.tokens,
    role: Object.values(user.roles)[0] ?? 'reader',
    vaults: Object.keys(user.roles).map(Number),
  }))
  let stopped = false
  return {
    baseUrl: `http://127.0.0.1:${apiPort}${apiPrefix}`,
    downloadBaseUrl,
    users,
    vaults: Object.values(cast.vaults).map((vault) => ({ id: vault.id, name: vault.name })),
    cast,
    stats,
    resetStats: () => resetStats(stats),
    faults,
    clock,
    core: sim,
    async stop() {
      if (stopped) return
      stopped = true
      exportEngine.stop()
      for (const module of simModules) module.stop?.(sim)
      await Promise.all([close(apiServer), close(downloadServer)])
      db.close()
      fs.rmSync(dataDirectory, { recursive: true, force: true })
    },
  }
}

function listen(server: http.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve((server.address() as AddressInfo).port)
    })
  })
}

function close(server: http.Server): Promise<void> {
  if (!server.listening) return Promise.resolve()
  return new Promise((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
}
