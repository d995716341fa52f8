/**
 * Which end of each readout is good (low for an IC50, high for a % inhibition), as the person
 * chose it in the column's menu, remembered across sessions in the page's local storage by
 * connection, vault, protocol and readout. Until chosen, a concentration (an IC50, a Ki, a
 * solubility limit read as potency) is taken as better low, anything else as better high.
 */
import { SvelteMap } from 'svelte/reactivity'
import { isConcentration, type GoodDirection } from './colour-scale.ts'
import type { ColumnKey } from './results-address.ts'

/** Where the choices are kept: the page's local storage, or nothing (tests, hosts without it). */
export interface DirectionStore {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}

const storageKey = 'vault-desk.results.good-directions'

/** The end taken as good before the person says otherwise. */
export function defaultDirection(unit: string | null): GoodDirection {
  return isConcentration(unit) ? 'low' : 'high'
}

export class GoodDirections {
  readonly #choices = new SvelteMap<string, GoodDirection>()
  readonly #store: DirectionStore | null

  constructor(store: DirectionStore | null) {
    this.#store = store
    for (const [key, direction] of Object.entries(this.#read())) {
      if (direction === 'low' || direction === 'high') this.#choices.set(key, direction)
    }
  }

  /** The good end of a column: the person's choice, else the default for its unit. */
  of(scope: string, column: ColumnKey, unit: string | null): GoodDirection {
    return this.#choices.get(`${scope}/${column}`) ?? defaultDirection(unit)
  }

  /** Whether the person chose this column's end (rather than the default). */
  chosen(scope: string, column: ColumnKey): boolean {
    return this.#choices.has(`${scope}/${column}`)
  }

  choose(scope: string, column: ColumnKey, direction: GoodDirection): void {
    this.#choices.set(`${scope}/${column}`, direction)
    try {
      this.#store?.setItem(storageKey, JSON.stringify(Object.fromEntries(this.#choices)))
    } catch {
      // A full or forbidden storage only costs the memory across sessions.
    }
  }

  #read(): Record<string, unknown> {
    try {
      const saved: unknown = JSON.parse(this.#store?.getItem(storageKey) ?? '{}')
      return saved !== null && typeof saved === 'object' ? (saved as Record<string, unknown>) : {}
    } catch {
      return {}
    }
  }
}

/** The scope of a vault's choices: protocol and readout ids are the vault's own. */
export function directionScope(connectionId: string, vaultId: number): string {
  return `${connectionId}/${vaultId}`
}
