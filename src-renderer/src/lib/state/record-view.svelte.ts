import type { LinkedCachedRecord, VaultDeskBridge } from '../bridge.ts'
import { rowOfKind } from '../../../../src-common/records/record-kinds.ts'
import { toId, toObjects, toText } from '../../../../src-common/values.ts'
import { coalesced } from './coalesced.ts'
import type { RecordKindName } from './record-list.svelte.ts'

export interface RecordAddress {
  connectionId: string
  vaultId: number
  kind: RecordKindName
  id: number
  /** For a record created offline (id 0): the outbox item creating it. */
  item?: number
}

export type RecordViewState =
  | { status: 'loading' }
  | { status: 'found'; linked: LinkedCachedRecord }
  | { status: 'missing' }
  | { status: 'failed'; message: string }
  /** A record created offline has reached the vault: it lives at its server id now. */
  | { status: 'moved'; id: number }
  /** A record created offline was discarded before it was sent. */
  | { status: 'discarded' }

/**
 * One record with the records its page links to, read from the cache, and read again when sync
 * changes any kind the page shows (so a page open during a sync fills in as records arrive).
 */
export class RecordView {
  readonly address: RecordAddress
  /** Replaced whole, never changed in place: a plate's record is 80 KB of wells, not to proxy. */
  state = $state.raw<RecordViewState>({ status: 'loading' })
  readonly #bridge: VaultDeskBridge
  readonly #refresh = coalesced(() => this.#read())

  constructor(bridge: VaultDeskBridge, address: RecordAddress) {
    this.#bridge = bridge
    this.address = address
  }

  start(): () => void {
    const stop = this.#bridge.on('records.changed', ({ connectionId, vaultId, kinds }) => {
      const { address } = this
      if (connectionId !== address.connectionId || vaultId !== address.vaultId) return
      const shown = this.state.status === 'found' ? Object.keys(this.state.linked.links) : []
      if (kinds.some((kind) => kind === address.kind || shown.includes(kind))) {
        void this.#refresh()
      }
    })
    void this.#refresh()
    return stop
  }

  async #read(): Promise<void> {
    if (this.address.item !== undefined) return this.#readOffline(this.address.item)
    const { connectionId, vaultId, kind, id } = this.address
    const result = await this.#bridge.invoke('records.get', { connectionId, vaultId, kind, id })
    if (!result.ok) this.state = { status: 'failed', message: result.error.message }
    else if (result.value === null) this.state = { status: 'missing' }
    else this.state = { status: 'found', linked: await this.#withMolecule(result.value) }
  }

  /** A record created offline: the outbox's copy, or where it went once sent. */
  async #readOffline(item: number): Promise<void> {
    const { connectionId, vaultId, kind } = this.address
    const result = await this.#bridge.invoke('outbox.pending', {
      connectionId,
      vaultId,
      kind,
      ref: { item },
    })
    if (!result.ok) {
      this.state = { status: 'failed', message: result.error.message }
      return
    }
    if (result.value?.id) {
      this.state = { status: 'moved', id: result.value.id }
      return
    }
    if (result.value) {
      const { record, state, itemIds, createdBy } = result.value
      const row = rowOfKind(kind, record, { state, itemIds, createdBy })
      this.state = { status: 'found', linked: { kind, record: { ...row, id: null }, links: {} } }
      return
    }
    const history = await this.#bridge.invoke('outbox.history', { connectionId, limit: 500 })
    const creator = history.ok ? history.value.find((candidate) => candidate.id === item) : null
    if (creator?.state === 'sent' && creator.serverId !== null) {
      this.state = { status: 'moved', id: creator.serverId }
    } else if (creator?.state === 'cancelled') this.state = { status: 'discarded' }
    else this.state = { status: 'missing' }
  }

  /**
   * A batch the vault sent inside its molecule does not name the molecule, so the cache cannot
   * link it. Its identifier is in the molecule's search text, though: the molecule found by it
   * whose batches hold this batch is the one.
   */
  async #withMolecule(linked: LinkedCachedRecord): Promise<LinkedCachedRecord> {
    if (linked.kind !== 'batches' || (linked.links.molecules?.length ?? 0) > 0) return linked
    if (toId(linked.record.columns.molecule_id) !== null) return linked
    const identifier = toText(linked.record.columns.identifier)
    if (identifier === null) return linked
    const { connectionId, vaultId, id } = this.address
    const found = await this.#bridge.invoke('records.list', {
      connectionId,
      vaultId,
      kind: 'molecules',
      text: identifier,
      limit: 20,
    })
    if (!found.ok) return linked
    const molecule = found.value.rows.find((candidate) =>
      toObjects(candidate.json.batches).some((batch) => toId(batch.id) === id),
    )
    return molecule ? { ...linked, links: { ...linked.links, molecules: [molecule] } } : linked
  }
}
