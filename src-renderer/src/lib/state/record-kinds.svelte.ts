import type { RecordKindInfo, VaultDeskBridge } from '../bridge.ts'

/** What each kind's lists can be asked: which columns sort and filter, and whether text finds it. */
export class RecordKinds {
  byName = $state<Record<string, RecordKindInfo>>({})
  readonly #bridge: VaultDeskBridge
  readonly #reportError: (message: string) => void

  constructor(bridge: VaultDeskBridge, reportError: (message: string) => void) {
    this.#bridge = bridge
    this.#reportError = reportError
  }

  async load(): Promise<void> {
    const result = await this.#bridge.invoke('records.kinds', {})
    if (!result.ok) {
      this.#reportError(`Could not read what the lists can show: ${result.error.message}`)
      return
    }
    this.byName = Object.fromEntries(result.value.map((info) => [info.name, info]))
  }

  canSort(kind: string, column: string): boolean {
    return this.byName[kind]?.sortable.includes(column) ?? false
  }

  canFilter(kind: string, column: string): boolean {
    return this.byName[kind]?.filterable.includes(column) ?? false
  }

  canSearch(kind: string): boolean {
    return this.byName[kind]?.searchable ?? false
  }
}
