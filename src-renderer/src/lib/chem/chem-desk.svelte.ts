import type { VaultDeskBridge } from '../bridge.ts'
import type { RecordList } from '../state/record-list.svelte.ts'
import { DepictionCache } from './depiction-cache.ts'
import { StructureIndex } from './structure-index.svelte.ts'
import { StructureSearch } from './structure-search.svelte.ts'

/**
 * The window's chemistry: the thumbnails of the lists, the structure query box of each molecule
 * list (kept, like the lists, while the person opens a hit and comes back), and how far each
 * vault's structure index is built.
 */
export class ChemDesk {
  readonly thumbnails: DepictionCache
  readonly #bridge: VaultDeskBridge
  // Looked up, never rendered as collections: plain maps are right here.
  readonly #searches = new WeakMap<RecordList, StructureSearch>()
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #indexes = new Map<string, StructureIndex>()

  constructor(bridge: VaultDeskBridge) {
    this.#bridge = bridge
    this.thumbnails = new DepictionCache(bridge)
  }

  start(): () => void {
    const stops = [
      this.thumbnails.start(),
      this.#bridge.on('chem.indexProgress', (progress) =>
        this.#indexes.get(`${progress.connectionId}/${progress.vaultId}`)?.progress(progress),
      ),
    ]
    return () => stops.forEach((stop) => stop())
  }

  /** The query box of a molecule list, made on first use. */
  search(list: RecordList): StructureSearch {
    let search = this.#searches.get(list)
    if (!search) {
      search = new StructureSearch(this.#bridge, list)
      this.#searches.set(list, search)
    }
    return search
  }

  /** The structure index of a vault, asked for its state on first use. */
  index(connectionId: string, vaultId: number): StructureIndex {
    const key = `${connectionId}/${vaultId}`
    let index = this.#indexes.get(key)
    if (!index) {
      index = new StructureIndex(this.#bridge, connectionId, vaultId)
      this.#indexes.set(key, index)
      void index.load()
    }
    return index
  }

  /** Drops what belongs to connections that are gone. */
  retainConnections(connectionIds: readonly string[]): void {
    for (const [key, index] of this.#indexes) {
      if (!connectionIds.includes(index.connectionId)) this.#indexes.delete(key)
    }
    this.thumbnails.retainConnections(connectionIds)
  }
}
