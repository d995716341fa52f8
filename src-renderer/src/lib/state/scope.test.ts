import { describe, expect, it } from 'vitest'
import type { CachedVault, ConnectionSummary, ErrorValue } from '../bridge.ts'
import { settle } from '../testing/bridge-double.ts'
import { lab, quietBridge } from '../testing/quiet-bridge.ts'
import { rowOf } from '../testing/rows.ts'
import { ConnectionsState } from './connections.svelte.ts'
import { BrowseScope, fullestVault, storageScopeMemory, type SavedScope } from './scope.svelte.ts'

const archive: CachedVault = { id: 3, name: 'Legacy Archive', counts: {}, lastSyncAt: null }
const demo: CachedVault = {
  id: 1,
  name: 'Vault Desk Demo',
  counts: { molecules: 2000, projects: 3 },
  lastSyncAt: '2026-01-01T00:00:00Z',
}

function memoryDouble(saved: SavedScope | null = null) {
  const written: SavedScope[] = []
  return {
    memory: { read: () => saved, write: (scope: SavedScope) => written.push(scope) },
    written,
  }
}

function scopeOver(vaults: CachedVault[], connections: ConnectionSummary[] = [lab]) {
  const bridge = quietBridge()
    .answer('connections.list', async () => ({ ok: true, value: connections }))
    .answer('vaults.list', async () => ({ ok: true, value: vaults }))
    .answer('records.list', async () => ({
      ok: true,
      value: {
        kind: 'projects',
        total: 2,
        rows: [
          rowOf('projects', { id: 1, name: 'Kinase Inhibitors' }),
          rowOf('projects', { id: 2, name: 'GPCR Ligands' }),
        ],
      },
    }))
  const state = new ConnectionsState(bridge, () => {})
  return { bridge, state }
}

describe('BrowseScope', () => {
  it('opens the fullest vault of the first connection, with its projects', async () => {
    const small = { ...archive, id: 2, name: 'Discovery AI', counts: { molecules: 150 } }
    const { bridge, state } = scopeOver([small, archive, demo])
    const { memory, written } = memoryDouble()
    const scope = new BrowseScope(bridge, state, () => {}, memory)
    scope.start()
    state.start()
    await settle()
    expect(scope.connectionId).toBe('c1')
    expect(scope.vaultId).toBe(1)
    expect(scope.vault?.name).toBe('Vault Desk Demo')
    expect(scope.projects.map((project) => project.name)).toEqual([
      'Kinase Inhibitors',
      'GPCR Ligands',
    ])
    scope.selectProject(2)
    expect(scope.project?.name).toBe('GPCR Ligands')
    expect(written.at(-1)).toEqual({ connectionId: 'c1', vaultId: 1, projectId: 2 })
  })

  it('returns to the vault and project remembered from the last run', async () => {
    const { bridge, state } = scopeOver([demo, { ...archive, counts: { molecules: 5 } }])
    const { memory } = memoryDouble({ connectionId: 'c1', vaultId: 3, projectId: 2 })
    const scope = new BrowseScope(bridge, state, () => {}, memory)
    scope.start()
    state.start()
    await settle()
    expect(scope.vaultId).toBe(3)
    expect(scope.projectId).toBe(2)
  })

  it('forgets a connection that was removed, and re-reads vaults as sync fills them', async () => {
    let connections = [lab]
    let vaults: CachedVault[] = []
    const bridge = quietBridge()
      .answer('connections.list', async () => ({ ok: true, value: connections }))
      .answer('vaults.list', async () => ({ ok: true, value: vaults }))
    const state = new ConnectionsState(bridge, () => {})
    const scope = new BrowseScope(bridge, state, () => {}, memoryDouble().memory)
    scope.start()
    state.start()
    await settle()
    expect(scope.vaultId).toBeNull()

    vaults = [demo]
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 0, kinds: ['vaults'] })
    await settle()
    expect(scope.vaultId).toBe(1)

    connections = []
    bridge.emit('connections.changed', { connectionIds: ['c1'] })
    await settle()
    expect(scope.connectionId).toBeNull()
    expect(scope.vaults).toEqual({})
  })

  it('says nothing when a connection is removed while its vaults are read, and reports the rest', async () => {
    let error: ErrorValue = { code: 'not_found', message: 'No connection with id c1.' }
    const bridge = quietBridge()
      .answer('connections.list', async () => ({ ok: true, value: [lab] }))
      .answer('vaults.list', async () => ({ ok: false, error }))
    const errors: string[] = []
    const state = new ConnectionsState(bridge, () => {})
    const scope = new BrowseScope(
      bridge,
      state,
      (message) => errors.push(message),
      memoryDouble().memory,
    )
    scope.start()
    state.start()
    await settle()
    expect(errors).toEqual([])
    error = { code: 'storage', message: 'The cache is locked.' }
    await scope.refreshVaults('c1')
    expect(errors).toEqual(['Could not read the vaults: The cache is locked.'])
  })

  it('takes the first vault when none holds records yet', () => {
    expect(fullestVault([archive, { ...archive, id: 4 }])?.id).toBe(3)
    expect(fullestVault([])).toBeNull()
  })
})

describe('storageScopeMemory', () => {
  it('keeps the scope in storage and ignores what it cannot read', () => {
    const items = new Map<string, string>()
    const storage = {
      getItem: (key: string) => items.get(key) ?? null,
      setItem: (key: string, value: string) => void items.set(key, value),
    } as Storage
    const memory = storageScopeMemory(storage)
    expect(memory.read()).toBeNull()
    memory.write({ connectionId: 'c1', vaultId: 1, projectId: null })
    expect(memory.read()).toEqual({ connectionId: 'c1', vaultId: 1, projectId: null })
    items.set('vault-desk.scope', '{not json')
    expect(memory.read()).toBeNull()
    items.set('vault-desk.scope', JSON.stringify({ connectionId: 7 }))
    expect(memory.read()).toBeNull()
  })
})
