import type { CachedRecord, VaultDeskBridge } from '../bridge.ts'
import { buildLocationTree, type LocationTree } from '../inventory/location-tree.ts'
import { coalesced } from './coalesced.ts'

const pageSize = 1000

/**
 * Every inventory location of a vault, as a tree: the whole list is read (a page of 1000 at a
 * time), because a tree cannot be drawn from a part of it. Read again when sync changes them.
 */
export class InventoryLocations {
  tree = $state.raw<LocationTree>(buildLocationTree([]))
  loaded = $state(false)
  readonly #bridge: VaultDeskBridge
  readonly #reportError: (message: string) => void
  readonly #connectionId: string
  readonly #vaultId: number
  readonly #refresh = coalesced(() => this.#read())

  constructor(
    bridge: VaultDeskBridge,
    reportError: (message: string) => void,
    scope: { connectionId: string; vaultId: number },
  ) {
    this.#bridge = bridge
    this.#reportError = reportError
    this.#connectionId = scope.connectionId
    this.#vaultId = scope.vaultId
  }

  start(): () => void {
    const stop = this.#bridge.on('records.changed', ({ connectionId, vaultId, kinds }) => {
      if (
        connectionId === this.#connectionId &&
        vaultId === this.#vaultId &&
        kinds.includes('inventory_locations')
      ) {
        void this.#refresh()
      }
    })
    void this.#refresh()
    return stop
  }

  async #read(): Promise<void> {
    const rows: CachedRecord[] = []
    for (let offset = 0; ; offset += pageSize) {
      const result = await this.#bridge.invoke('records.list', {
        connectionId: this.#connectionId,
        vaultId: this.#vaultId,
        kind: 'inventory_locations',
        limit: pageSize,
        offset,
      })
      if (!result.ok) {
        this.#reportError(`Could not read the inventory locations: ${result.error.message}`)
        return
      }
      rows.push(...result.value.rows)
      if (result.value.rows.length < pageSize || rows.length >= result.value.total) break
    }
    this.tree = buildLocationTree(rows)
    this.loaded = true
  }
}
