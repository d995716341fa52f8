import { setAside, type CacheRecovery } from './cache-database.ts'
import { cacheFile, deleteCacheFiles } from './cache-files.ts'
import { verifyCacheFile } from './cache-verification.ts'
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

  constructor(dataDir: string) {
    this.#dataDir = dataDir
  }

  /** The cache of a connection, opened on first use. */
  open(connectionId: string): OpenedCache {
    const cached = this.#open.get(connectionId)
    if (cached) return { cache: cached, recovery: null }
    const opened = VaultCache.open(cacheFile(this.#dataDir, connectionId))
    this.#open.set(connectionId, opened.cache)
    return opened
  }

  /**
   * Checks every page of a connection's cache in a worker (run it once after the start). When the
   * cache is damaged it is closed, moved aside and opened afresh, and the recovery is returned:
   * sync must then pull everything again, and holders of the old VaultCache must take the new one
   * from open(). Null when the cache is sound or the check could not run.
   */
  async verify(connectionId: string): Promise<CacheRecovery | null> {
    const file = cacheFile(this.#dataDir, connectionId)
    const verdict = await verifyCacheFile(file)
    if (verdict.sound !== false) return null
    this.close(connectionId)
    const recovery = setAside(file, { reason: 'damaged', details: verdict.details })
    this.open(connectionId)
    return recovery
  }

  close(connectionId: string): void {
    this.#open.get(connectionId)?.close()
    this.#open.delete(connectionId)
  }

  closeAll(): void {
    for (const connectionId of [...this.#open.keys()]) this.close(connectionId)
  }

  /** Closes and deletes a connection's cache files (damaged copies included); returns them. */
  delete(connectionId: string): string[] {
    this.close(connectionId)
    return deleteCacheFiles(cacheFile(this.#dataDir, connectionId))
  }
}
