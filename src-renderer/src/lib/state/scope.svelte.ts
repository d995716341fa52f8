import type { CachedVault, VaultDeskBridge } from '../bridge.ts'
import { toId, toText } from '../../../../src-common/values.ts'
import { coalesced } from './coalesced.ts'
import type { ConnectionsState } from './connections.svelte.ts'

/** What is being browsed, remembered between runs so that the app opens where it was left. */
export interface SavedScope {
  connectionId: string
  vaultId: number | null
  projectId: number | null
}

export interface ScopeMemory {
  read(): SavedScope | null
  write(scope: SavedScope): void
}

const storageKey = 'vault-desk.scope'

/** The scope kept in the page's local storage; anything unreadable there is ignored. */
export function storageScopeMemory(storage: Storage): ScopeMemory {
  return {
    read() {
      try {
        const saved = JSON.parse(storage.getItem(storageKey) ?? 'null') as Partial<SavedScope>
        if (typeof saved?.connectionId !== 'string') return null
        return {
          connectionId: saved.connectionId,
          vaultId: toId(saved.vaultId),
          projectId: toId(saved.projectId),
        }
      } catch {
        return null
      }
    },
    write(scope) {
      storage.setItem(storageKey, JSON.stringify(scope))
    },
  }
}

export interface Project {
  id: number
  name: string
}

/** How many records a vault holds on this computer (a vault with API access off holds none). */
export function recordCount(vault: CachedVault): number {
  return Object.values(vault.counts).reduce((sum, count) => sum + count, 0)
}

/** The vault to open when none is chosen: the one with the most records, else the first. */
export function fullestVault(vaults: readonly CachedVault[]): CachedVault | null {
  let fullest: CachedVault | null = null
  for (const vault of vaults) {
    if (fullest === null || recordCount(vault) > recordCount(fullest)) fullest = vault
  }
  return fullest
}

/**
 * The vault and project being browsed: the vault switcher's choices (every connection's cached
 * vaults) and the projects of the chosen vault. Follows the connections as they come and go, and
 * re-reads a connection's vaults as sync fills its cache.
 */
export class BrowseScope {
  connectionId = $state<string | null>(null)
  vaultId = $state<number | null>(null)
  projectId = $state<number | null>(null)
  /** Cached vaults by connection. */
  vaults = $state<Record<string, CachedVault[]>>({})
  projects = $state<Project[]>([])
  readonly #bridge: VaultDeskBridge
  readonly #connections: ConnectionsState
  readonly #reportError: (message: string) => void
  readonly #memory: ScopeMemory
  // One refresh per connection, looked up and never rendered: a plain Map is right here.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #vaultRefreshes = new Map<string, () => Promise<void>>()
  readonly #projectRefresh = coalesced(() => this.#readProjects())

  constructor(
    bridge: VaultDeskBridge,
    connections: ConnectionsState,
    reportError: (message: string) => void,
    memory: ScopeMemory,
  ) {
    this.#bridge = bridge
    this.#connections = connections
    this.#reportError = reportError
    this.#memory = memory
  }

  start(): () => void {
    const stops = [
      this.#connections.onChange(() => void this.#followConnections()),
      this.#bridge.on('records.changed', ({ connectionId, vaultId, kinds }) => {
        void this.refreshVaults(connectionId)
        if (
          kinds.includes('projects') &&
          connectionId === this.connectionId &&
          vaultId === this.vaultId
        ) {
          void this.#projectRefresh()
        }
      }),
      this.#bridge.on('sync.changed', ({ connectionId, running }) => {
        if (!running) void this.refreshVaults(connectionId)
      }),
    ]
    return () => stops.forEach((stop) => stop())
  }

  get vault(): CachedVault | null {
    const vaults = this.connectionId === null ? [] : (this.vaults[this.connectionId] ?? [])
    return vaults.find((vault) => vault.id === this.vaultId) ?? null
  }

  get project(): Project | null {
    return this.projects.find((project) => project.id === this.projectId) ?? null
  }

  select(connectionId: string, vaultId: number | null): void {
    const changed = connectionId !== this.connectionId || vaultId !== this.vaultId
    this.connectionId = connectionId
    this.vaultId = vaultId
    if (changed) {
      this.projectId = null
      this.projects = []
      void this.#projectRefresh()
    }
    this.#remember()
  }

  selectProject(projectId: number | null): void {
    this.projectId = projectId
    this.#remember()
  }

  /** Re-reads a connection's vaults (coalesced: sync reports changes many times a second). */
  refreshVaults(connectionId: string): Promise<void> {
    let refresh = this.#vaultRefreshes.get(connectionId)
    if (!refresh) {
      refresh = coalesced(() => this.#readVaults(connectionId))
      this.#vaultRefreshes.set(connectionId, refresh)
    }
    return refresh()
  }

  async #followConnections(): Promise<void> {
    const ids = this.#connections.list.map((connection) => connection.id)
    for (const id of Object.keys(this.vaults)) if (!ids.includes(id)) delete this.vaults[id]
    if (this.connectionId !== null && !ids.includes(this.connectionId)) {
      this.connectionId = null
      this.vaultId = null
      this.projectId = null
      this.projects = []
    }
    if (this.connectionId === null) {
      const saved = this.#memory.read()
      const first = this.#connections.list[0]
      if (saved && ids.includes(saved.connectionId)) {
        this.connectionId = saved.connectionId
        this.vaultId = saved.vaultId
        this.projectId = saved.projectId
      } else if (first) {
        this.connectionId = first.id
      }
    }
    await Promise.all(ids.map((id) => this.refreshVaults(id)))
  }

  async #readVaults(connectionId: string): Promise<void> {
    // Its local copy is a newer version's: nothing to read, and the connection's line says why.
    if (this.#connections.statuses[connectionId]?.localCopy) {
      this.vaults[connectionId] = []
      return
    }
    const result = await this.#bridge.invoke('vaults.list', { connectionId })
    if (!result.ok) {
      // A connection removed while its vaults were being read has nothing left to report.
      if (result.error.code !== 'not_found') {
        this.#reportError(`Could not read the vaults: ${result.error.message}`)
      }
      return
    }
    if (!this.#connections.byId(connectionId)) return
    this.vaults[connectionId] = result.value
    if (connectionId === this.connectionId) this.#settleVault(result.value)
  }

  /** Keeps the chosen vault while it exists; otherwise opens the fullest. */
  #settleVault(vaults: readonly CachedVault[]): void {
    if (vaults.some((vault) => vault.id === this.vaultId)) {
      if (this.projects.length === 0) void this.#projectRefresh()
      return
    }
    const next = fullestVault(vaults)
    if (next) this.select(this.connectionId!, next.id)
  }

  async #readProjects(): Promise<void> {
    const connectionId = this.connectionId
    const vaultId = this.vaultId
    if (connectionId === null || vaultId === null) return
    const result = await this.#bridge.invoke('records.list', {
      connectionId,
      vaultId,
      kind: 'projects',
      limit: 1000,
    })
    if (connectionId !== this.connectionId || vaultId !== this.vaultId) return
    if (!result.ok) {
      this.#reportError(`Could not read the projects: ${result.error.message}`)
      return
    }
    this.projects = result.value.rows.flatMap(({ id, columns }) =>
      id === null ? [] : [{ id, name: toText(columns.name) ?? `Project ${id}` }],
    )
    if (this.projectId !== null && !this.project) this.selectProject(null)
  }

  #remember(): void {
    if (this.connectionId === null) return
    this.#memory.write({
      connectionId: this.connectionId,
      vaultId: this.vaultId,
      projectId: this.projectId,
    })
  }
}
