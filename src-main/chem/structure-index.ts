/**
 * The in-memory structure index of one vault: slot-addressed, so that the workers can scan shared
 * typed arrays, with the main thread's own tables beside it (molecule ids, property columns).
 *
 * A changed molecule gets a new slot and its old slot becomes vacant: slots are never rewritten,
 * which is what lets searches run in the workers while the index changes. Vacant slots are dropped
 * the next time the index is loaded. Only the main thread's tables change in place: a slot's
 * InChIKey and properties arrive after its search data (structure-details.ts), and the index
 * remembers which slots still wait for them.
 */
import { randomUUID } from 'node:crypto'
import { IdSlots } from './id-slots.ts'
import { IndexBuffers, slotState } from './index-buffers.ts'
import {
  molecularPropertyNames,
  type MolecularProperties,
  type MolecularPropertyName,
} from '../../src-common/chem/molecular-properties.ts'
import { popcount } from './popcount.ts'
import type { StructureRecord } from './structure-record.ts'

export class StructureIndex {
  /** Names this index to the workers it is attached to. */
  readonly id = randomUUID()
  readonly buffers = IndexBuffers.create()
  #slotCount = 0
  #unparseableCount = 0
  #ids = new Float64Array(0)
  readonly #slotById = new IdSlots()
  #properties = emptyColumns(0)
  /** Per slot, the `structureDetail` bits still to compute. */
  #pendingDetails = new Uint8Array(0)
  #slotsPending = 0

  /** Slots used so far, vacant ones included: scans cover 0..slotCount-1. */
  get slotCount(): number {
    return this.#slotCount
  }

  /** Molecules in the index, parsed or not. */
  get size(): number {
    return this.#slotById.size
  }

  get unparseableCount(): number {
    return this.#unparseableCount
  }

  has(id: number): boolean {
    return this.#slotById.has(id)
  }

  slotOf(id: number): number | undefined {
    return this.#slotById.get(id)
  }

  /** The molecule in a slot, or undefined when the slot is vacant. */
  idAt(slot: number): number | undefined {
    if (slot < 0 || slot >= this.#slotCount) return undefined
    return this.buffers.state(slot) === slotState.vacant ? undefined : this.#ids[slot]
  }

  stateAt(slot: number): number {
    return this.buffers.state(slot)
  }

  /** A property of every slot (NaN where unknown), valid until the index next grows. */
  propertyColumn(name: MolecularPropertyName): Float64Array {
    return this.#properties[name].subarray(0, this.#slotCount)
  }

  /** Properties in effect for a molecule: the vault's where it gave them, else computed ones. */
  properties(id: number): Partial<MolecularProperties> | undefined {
    const slot = this.#slotById.get(id)
    if (slot === undefined) return undefined
    const known: Partial<MolecularProperties> = {}
    for (const name of molecularPropertyNames) {
      const value = this.#properties[name][slot]!
      if (!Number.isNaN(value)) known[name] = value
    }
    return known
  }

  /** Molecules with some detail still to compute. */
  get pendingDetailsCount(): number {
    return this.#slotsPending
  }

  /** The `structureDetail` bits a slot still waits for. */
  pendingDetailsAt(slot: number): number {
    return this.#pendingDetails[slot] ?? 0
  }

  /** Up to `limit` slots from `fromSlot` on that wait for details, in slot order. */
  slotsPendingDetails(fromSlot: number, limit: number): number[] {
    const slots: number[] = []
    for (let slot = fromSlot; slot < this.#slotCount && slots.length < limit; slot++) {
      if (this.#pendingDetails[slot]) slots.push(slot)
    }
    return slots
  }

  /**
   * Takes in a slot's computed details: computed properties fill the gaps the vault left, and the
   * `computed` bits stop being pending.
   */
  completeDetails(slot: number, computed: number, properties: MolecularProperties | null): void {
    if (properties) {
      for (const name of molecularPropertyNames) {
        if (Number.isNaN(this.#properties[name][slot]!)) {
          this.#properties[name][slot] = properties[name]
        }
      }
    }
    this.#setPending(slot, this.#pendingDetails[slot]! & ~computed)
  }

  put(record: StructureRecord): void {
    const previous = this.#slotById.get(record.id)
    if (previous !== undefined) this.#vacate(previous)
    const slot = this.#slotCount
    this.#ensureCapacity(slot + 1)
    this.#slotCount = slot + 1
    this.#ids[slot] = record.id
    const effective: Partial<MolecularProperties> =
      record.parseError === null
        ? { ...(record.properties ?? {}), ...record.knownProperties }
        : record.knownProperties
    for (const name of molecularPropertyNames) {
      this.#properties[name][slot] = effective[name] ?? Number.NaN
    }
    if (record.parseError === null) {
      this.buffers.writeFingerprint('pattern', slot, record.patternFingerprint)
      this.buffers.writeFingerprint('morgan', slot, record.morganFingerprint)
      this.buffers.morganPopcounts[slot] = popcount(record.morganFingerprint)
      this.buffers.appendMoleculeBlob(slot, record.pickle)
      this.#setPending(slot, record.pendingDetails)
      this.buffers.publishState(slot, slotState.parsed)
    } else {
      this.buffers.publishState(slot, slotState.unparseable)
      this.#unparseableCount++
    }
    this.#slotById.set(record.id, slot)
  }

  remove(id: number): boolean {
    const slot = this.#slotById.get(id)
    if (slot === undefined) return false
    this.#vacate(slot)
    this.#slotById.delete(id)
    return true
  }

  #vacate(slot: number): void {
    if (this.buffers.state(slot) === slotState.unparseable) this.#unparseableCount--
    this.buffers.publishState(slot, slotState.vacant)
    this.buffers.clearFingerprints(slot)
    this.#setPending(slot, 0)
    for (const name of molecularPropertyNames) this.#properties[name][slot] = Number.NaN
  }

  #setPending(slot: number, details: number): void {
    const before = this.#pendingDetails[slot]!
    this.#slotsPending += Number(details !== 0) - Number(before !== 0)
    this.#pendingDetails[slot] = details
  }

  #ensureCapacity(slots: number): void {
    this.buffers.ensureSlotCapacity(slots)
    const capacity = this.buffers.slotCapacity
    if (this.#ids.length >= capacity) return
    const ids = new Float64Array(capacity)
    ids.set(this.#ids)
    this.#ids = ids
    const pending = new Uint8Array(capacity)
    pending.set(this.#pendingDetails)
    this.#pendingDetails = pending
    const properties = emptyColumns(capacity)
    for (const name of molecularPropertyNames) properties[name].set(this.#properties[name])
    this.#properties = properties
  }
}

function emptyColumns(length: number): Record<MolecularPropertyName, Float64Array> {
  return Object.fromEntries(
    molecularPropertyNames.map((name) => [name, new Float64Array(length).fill(Number.NaN)]),
  ) as Record<MolecularPropertyName, Float64Array>
}
