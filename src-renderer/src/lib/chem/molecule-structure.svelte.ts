import type { MoleculeProperties, VaultDeskBridge } from '../bridge.ts'
import type { StructureMatch } from '../records/structure-match.ts'
import { shownDepiction, type ShownDepiction } from './depiction-cache.ts'

export interface MoleculeTarget {
  connectionId: string
  vaultId: number
  moleculeId: number
}

export type DetailDepiction =
  | { status: 'loading' }
  | { status: 'shown'; depiction: ShownDepiction }
  | { status: 'failed'; message: string }

/**
 * A molecule's page's chemistry: the large drawing (with the atoms of the substructure query it
 * was found by highlighted) and the properties computed from its structure. Read again when the
 * molecule's structure changes; the old drawing stays until the new one arrives.
 */
export class MoleculeStructure {
  readonly target: MoleculeTarget
  readonly match: StructureMatch | null
  depiction = $state.raw<DetailDepiction>({ status: 'loading' })
  /** Null until read, or when they cannot be computed. */
  properties = $state.raw<MoleculeProperties | null>(null)
  readonly #bridge: VaultDeskBridge
  #asked = 0

  constructor(bridge: VaultDeskBridge, target: MoleculeTarget, match: StructureMatch | null) {
    this.#bridge = bridge
    this.target = target
    this.match = match
  }

  async load(): Promise<void> {
    const asked = ++this.#asked
    const { connectionId, vaultId, moleculeId } = this.target
    const [drawn, properties] = await Promise.all([
      this.#bridge.invoke('chem.depict', {
        connectionId,
        vaultId,
        moleculeId,
        size: 'detail',
        ...(this.match
          ? {
              highlight: {
                query: this.match.query,
                ...(this.match.language ? { language: this.match.language } : {}),
              },
            }
          : {}),
      }),
      this.#bridge.invoke('chem.properties', { connectionId, vaultId, moleculeId }),
    ])
    if (asked !== this.#asked) return
    this.depiction = drawn.ok
      ? { status: 'shown', depiction: shownDepiction(drawn.value) }
      : { status: 'failed', message: drawn.error.message }
    // Properties are a help, not the page: without them the vault's own values still show.
    this.properties = properties.ok ? properties.value : null
  }
}
