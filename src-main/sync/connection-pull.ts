import type { Vault, VaultClient } from '../api/index.ts'
import type { Logger } from '../shared/logger.ts'
import type { RecordKindName } from '../store/record-kinds.ts'
import { connectionVaultId, type VaultCache } from '../store/vault-cache.ts'
import { WriteBatch } from '../store/write-batch.ts'
import { readKindCursor, type KindCursor } from './kind-cursor.ts'
import { ServerClock } from './server-clock.ts'
import { pullVault, type VaultPullResult } from './vault-pull.ts'

export interface ConnectionPullObserver {
  progress(vaultId: number, kind: RecordKindName, done: number, total: number | null): void
  changed(vaultId: number, kind: RecordKindName): void
}

export interface ConnectionPullOptions {
  client: VaultClient
  cache: VaultCache
  log: Logger
  signal: AbortSignal
  observer: ConnectionPullObserver
  /** Only these vaults (the vault list is stored whole all the same). */
  vaultIds?: readonly number[]
  exportThreshold?: number
  refusalRetryMs?: number
  /**
   * How long the vault list, reference data and deletion checks stay fresh: a pass in between asks
   * only what changed. An hour by default.
   */
  referenceRefreshMs?: number
  /** Refresh all of it now, due or not: the person asked, or a first sync. */
  refreshAll?: boolean
}

export interface ConnectionPullResult {
  vaults: (VaultPullResult & { name: string | null })[]
}

const defaultExportThreshold = 5000
const defaultRefusalRetryMs = 24 * 3_600_000
export const defaultReferenceRefreshMs = 3_600_000

/**
 * Pulls everything a connection's token reaches: the vault list (when due), then each vault in
 * turn, at background priority so that what a person asks meanwhile goes first. Throws what stops
 * the whole connection (network, refused token, cancel); the rest is in the result.
 */
export async function pullConnection(
  options: ConnectionPullOptions,
): Promise<ConnectionPullResult> {
  const { client, cache, log, observer } = options
  // The vault list is stored while the vaults' pulls begin, since the cache writer may still be
  // starting, which would otherwise sit on the path of every sync (commit 62998ba); should the
  // list fail to be stored, they stop and the pull throws why.
  const listNotStored = new AbortController()
  const signal = AbortSignal.any([options.signal, listNotStored.signal])
  const call = { signal, priority: 'background' as const }
  const refresh = {
    intervalMs: options.referenceRefreshMs ?? defaultReferenceRefreshMs,
    all: options.refreshAll ?? false,
  }
  const clock = new ServerClock(client, log)
  // It loads while the first requests are out.
  cache.writer.warmUp()
  let listStored: Promise<void> = Promise.resolve()
  try {
    const list = await vaultList(options, refresh)
    listStored = list.stored
    listStored.catch((error: unknown) => listNotStored.abort(error))
    const wanted = options.vaultIds ? new Set(options.vaultIds) : null
    const results: ConnectionPullResult['vaults'] = []
    for (const vault of list.vaults) {
      if (wanted && !wanted.has(vault.id)) continue
      const result = await pullVault({
        cache,
        context: { client, vaultId: vault.id, call },
        log: log.child({ vaultId: vault.id }),
        observer: {
          progress: (kind, done, total) => observer.progress(vault.id, kind, done, total),
          changed: (kind) => observer.changed(vault.id, kind),
        },
        clock,
        refresh,
        exportThreshold: options.exportThreshold ?? defaultExportThreshold,
        refusalRetryMs: options.refusalRetryMs ?? defaultRefusalRetryMs,
      })
      results.push({ ...result, name: vault.name ?? null })
    }
    await listStored
    return { vaults: results }
  } catch (error) {
    // A pull stopped because the list was not stored: that is what went wrong.
    await listStored
    throw error
  } finally {
    clock.stop()
  }
}

/**
 * The vaults the token reaches, asked when the refresh is due, else as cached; with the commit
 * that stores a list asked, handed to the writer and not awaited (see pullConnection).
 */
async function vaultList(
  options: ConnectionPullOptions,
  refresh: { intervalMs: number; all: boolean },
): Promise<{ vaults: Vault[]; stored: Promise<void> }> {
  const { client, cache, signal, observer } = options
  const cursor = readKindCursor(cache.cursor('vaults', connectionVaultId))
  const due =
    refresh.all ||
    !cursor.checkedAt ||
    Date.now() - Date.parse(cursor.checkedAt) >= refresh.intervalMs
  if (!due) {
    const vaults = cache
      .list('vaults', connectionVaultId, { sort: 'id', limit: 1000 })
      .records.map((record) => ({
        id: Number(record.id),
        ...(typeof record.name === 'string' ? { name: record.name } : {}),
      }))
    return { vaults, stored: Promise.resolve() }
  }
  const vaults = await client.vaults.list({ signal, priority: 'background' })
  const checked: KindCursor = { since: null, pass: null, checkedAt: new Date().toISOString() }
  const stored = cache.writer
    .commit(new WriteBatch().replaceVaults(vaults).saveCursor('vaults', connectionVaultId, checked))
    .then(() => observer.changed(connectionVaultId, 'vaults'))
  return { vaults, stored }
}
