import type { ChemIndexProgress, StructureIndexState, VaultDeskBridge } from '../bridge.ts'

/**
 * How far the structure index of one vault is built, for the query box: asked once, then followed
 * by `chem.indexProgress`; when the progress reaches the end, asked again for the final counts
 * (unreadable structures among them). Building has two parts: molecules become searchable, then
 * their InChIKeys and properties are computed.
 */
export class StructureIndex {
  readonly connectionId: string
  readonly vaultId: number
  state = $state.raw<StructureIndexState | null>(null)
  /** The most molecules seen waiting for details since none last did: the second part's total. */
  #detailsTotal = $state(0)
  readonly #bridge: VaultDeskBridge
  #asking = false

  constructor(bridge: VaultDeskBridge, connectionId: string, vaultId: number) {
    this.#bridge = bridge
    this.connectionId = connectionId
    this.vaultId = vaultId
  }

  /** The index is being built or brought up to date. */
  get building(): boolean {
    return this.state?.building ?? false
  }

  /** Done so far, from 0 to 1; null before the first answer or with no molecules. */
  get fraction(): number | null {
    const state = this.state
    if (state === null || state.total === 0) return null
    return Math.min(1, state.indexed / state.total)
  }

  /** How far the InChIKeys and properties are computed, from 0 to 1; null when none wait. */
  get detailsFraction(): number | null {
    const pending = this.state?.detailsPending ?? 0
    if (pending === 0 || this.#detailsTotal === 0) return null
    return 1 - pending / this.#detailsTotal
  }

  async load(): Promise<void> {
    if (this.#asking) return
    this.#asking = true
    const result = await this.#bridge.invoke('chem.indexState', {
      connectionId: this.connectionId,
      vaultId: this.vaultId,
    })
    this.#asking = false
    if (result.ok) {
      this.#noteDetailsPending(result.value.detailsPending)
      this.state = result.value
    }
  }

  /** A `chem.indexProgress` of this vault. */
  progress({ indexed, total, detailsPending }: ChemIndexProgress): void {
    const done = indexed >= total && detailsPending === 0
    this.#noteDetailsPending(detailsPending)
    this.state = {
      indexed,
      total,
      unparseable: this.state?.unparseable ?? 0,
      detailsPending,
      building: !done,
    }
    if (done) void this.load()
  }

  #noteDetailsPending(pending: number): void {
    this.#detailsTotal = pending === 0 ? 0 : Math.max(this.#detailsTotal, pending)
  }
}
