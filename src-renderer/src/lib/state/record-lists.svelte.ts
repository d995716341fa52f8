import type { VaultDeskBridge } from '../bridge.ts'
import { RecordList, type RecordListOptions } from './record-list.svelte.ts'

/**
 * The browse lists of this window, kept while the person moves between a list and the records it
 * opens, so that coming back finds the search, the sort and the rows as they were. Each is read
 * again when sync changes its kind.
 */
export class RecordLists {
  // The lists are looked up, never rendered as a collection: a plain Map is right here.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #lists = new Map<string, RecordList>()
  readonly #bridge: VaultDeskBridge
  readonly #reportError: (message: string) => void

  constructor(bridge: VaultDeskBridge, reportError: (message: string) => void) {
    this.#bridge = bridge
    this.#reportError = reportError
  }

  start(): () => void {
    const stops = [
      this.#bridge.on('records.changed', ({ connectionId, vaultId, kinds }) => {
        for (const list of this.#lists.values()) {
          const { options } = list
          if (
            options.connectionId === connectionId &&
            options.vaultId === vaultId &&
            kinds.includes(options.kind)
          ) {
            void list.refresh()
          }
        }
      }),
      // A structure search answered while the index was being built saw only part of it.
      this.#bridge.on('chem.indexProgress', ({ connectionId, vaultId }) => {
        for (const list of this.#lists.values()) {
          const { options } = list
          if (
            options.connectionId === connectionId &&
            options.vaultId === vaultId &&
            (list.structure !== null || list.properties !== null)
          ) {
            void list.refresh()
          }
        }
      }),
    ]
    return () => stops.forEach((stop) => stop())
  }

  /** The list named `name` in this vault, made on first use. */
  list(name: string, options: RecordListOptions): RecordList {
    const key = `${options.connectionId}/${options.vaultId}/${name}`
    let list = this.#lists.get(key)
    if (!list) {
      list = new RecordList(this.#bridge, this.#reportError, options)
      this.#lists.set(key, list)
    }
    return list
  }

  /** Drops the lists of connections that are gone. */
  retainConnections(connectionIds: readonly string[]): void {
    for (const [key, list] of this.#lists) {
      if (!connectionIds.includes(list.options.connectionId)) this.#lists.delete(key)
    }
  }
}
