import type { JsonObject } from '../store/record-values.ts'
import { recordKinds, type RecordKindName } from '../store/record-kinds.ts'
import type { ListOptions, RecordPage } from '../store/record-queries.ts'
import type { LinkedRecord } from '../store/record-links.ts'
import type { SearchOptions, SearchResult } from '../store/search-index.ts'
import { connectionVaultId, type VaultCache } from '../store/vault-cache.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'

export interface CachedVault {
  id: number
  name: string | null
  counts: Record<string, number>
  lastSyncAt: string | null
}

export interface RecordKindInfo {
  name: RecordKindName
  sortable: string[]
  filterable: string[]
  searchable: boolean
}

/** The vaults a cache holds, with their counts by kind and last complete sync. */
export function cachedVaults(cache: VaultCache): CachedVault[] {
  const counts = cache.counts()
  const synced = new Map(cache.lastSyncs().map((sync) => [sync.vaultId, sync.lastSyncAt]))
  return cache
    .list('vaults', connectionVaultId, { sort: 'name', limit: 1000 })
    .records.map((vault: JsonObject) => {
      const id = Number(vault.id)
      return {
        id,
        name: typeof vault.name === 'string' ? vault.name : null,
        counts: { ...counts[id] } as Record<string, number>,
        lastSyncAt: synced.get(id) ?? null,
      }
    })
}

/**
 * What the UI and the CLI read: vaults, records, links and search, from a connection's cache
 * only; browsing never waits on the network.
 */
export class BrowseService {
  readonly #runtimes: ConnectionRuntimes

  constructor(runtimes: ConnectionRuntimes) {
    this.#runtimes = runtimes
  }

  vaults(connectionId: string): CachedVault[] {
    return cachedVaults(this.#runtimes.get(connectionId).cache)
  }

  kinds(): RecordKindInfo[] {
    return [...recordKinds.values()].map((kind) => ({
      name: kind.name,
      sortable: [...kind.sortable],
      filterable: [...kind.filterable],
      searchable: kind.searchOf !== undefined || kind.name === 'batches',
    }))
  }

  list(connectionId: string, vaultId: number, kind: string, options: ListOptions): RecordPage {
    return this.#runtimes.get(connectionId).cache.list(kind, vaultId, options)
  }

  get(connectionId: string, vaultId: number, kind: string, id: number): LinkedRecord | null {
    return this.#runtimes.get(connectionId).cache.linked(kind, vaultId, id)
  }

  search(connectionId: string, text: string, options: SearchOptions): SearchResult {
    return this.#runtimes.get(connectionId).cache.search(text, options)
  }
}
