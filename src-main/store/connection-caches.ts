import path from 'node:path'
import { AppError } from '../shared/app-error.ts'
import { createPrivateFolder, makeFilesPrivate } from '../shared/private-files.ts'
import { hasPendingBackfills } from './cache-backfills.ts'
import { refuseNewerCache, setAside, type CacheRecovery } from './cache-database.ts'
import { cacheFile, deleteCacheFiles } from './cache-files.ts'
import { verifyCacheFile } from './cache-verification.ts'
import { databaseFiles } from './sqlite.ts'
import { VaultCache } from './vault-cache.ts'

export interface OpenedCache {
  cache: VaultCache
  /** Set on the open that found the cache unusable and started it afresh: sync must pull all. */
  recovery: CacheRecovery | null
}

/** The open caches of the connections, one SQLite file each under `<dataDir>/caches/`. */
export class ConnectionCaches {
  readonly #dataDir: string
  readonly #open = new Map<string, VaultCache>()
  /** Connections whose cache was deleted: a late holder of one must not create it again. */
  readonly #deleted = new Set<string>()

  constructor(dataDir: string) {
    this.#dataDir = dataDir
  }

  /**
   * The cache of a connection, opened on first use. Its folder and files are private: the folder
   * is made so before the file is, and the files are made 0600 once SQLite has created them (a
   * new cache takes its page size only when SQLite makes the file; its WAL and shared-memory
   * files made later take the database's mode).
   */
  open(connectionId: string): OpenedCache {
    const cached = this.#open.get(connectionId)
    if (cached) return { cache: cached, recovery: null }
    if (this.#deleted.has(connectionId)) {
      throw new AppError('not_found', `The connection ${connectionId} was removed with its cache.`)
    }
    const file = cacheFile(this.#dataDir, connectionId)
    try {
      createPrivateFolder(path.dirname(file))
    } catch (error) {
      throw new AppError(
        'storage',
        `Cannot create ${path.dirname(file)}: ${(error as Error).message}`,
        {
          cause: error,
        },
      )
    }
    const opened = VaultCache.open(file)
    makeFilesPrivate(databaseFiles(file))
    // An upgrade leaves the filling of existing rows to the writer's worker (cache-backfills.ts).
    if (backfillsMayBePending(file)) opened.cache.writer.warmUp()
    this.#open.set(connectionId, opened.cache)
    return opened
  }

  /**
   * Checks every page of a connection's cache in a worker (run it once after the start). When the
   * cache is damaged it is closed, moved aside and opened afresh, and the recovery is returned:
   * sync must then pull everything again, and holders of the old VaultCache must take the new one
   * from open(). Null when the cache is sound or the check could not run. A cache a newer Vault
   * Desk wrote is neither checked nor set aside (`NewerSchemaError`).
   */
  async verify(connectionId: string): Promise<CacheRecovery | null> {
    const file = cacheFile(this.#dataDir, connectionId)
    refuseNewerCache(file)
    const verdict = await verifyCacheFile(file)
    if (verdict.sound !== false) return null
    // Written by a newer Vault Desk during the check (another process): not this build's to judge.
    refuseNewerCache(file)
    await this.close(connectionId)
    const recovery = setAside(file, { reason: 'damaged', details: verdict.details })
    this.open(connectionId)
    return recovery
  }

  /** Resolves once nothing holds the file open (its writer's worker has exited too). */
  async close(connectionId: string): Promise<void> {
    const cache = this.#open.get(connectionId)
    this.#open.delete(connectionId)
    await cache?.close()
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#open.keys()].map((connectionId) => this.close(connectionId)))
  }

  /** Closes and deletes a connection's cache files (damaged copies included); returns them. */
  async delete(connectionId: string): Promise<string[]> {
    this.#deleted.add(connectionId)
    await this.close(connectionId)
    return deleteCacheFiles(cacheFile(this.#dataDir, connectionId))
  }
}

/** Whether the file may hold backfills; when it cannot be told, the writer's worker looks. */
function backfillsMayBePending(file: string): boolean {
  try {
    return hasPendingBackfills(file)
  } catch {
    return true
  }
}
