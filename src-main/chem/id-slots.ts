/**
 * Which index slot holds each molecule id. Vault ids are counters, so whole ids from 0 up to a
 * bound that grows with the index live in a typed array (slot + 1, 0 for none); any other id in a
 * map. A search by results looks up tens of thousands of ids at once: in a map of 250k entries
 * that took 20-35 ms, in the array well under one.
 */
export class IdSlots {
  #dense = new Int32Array(0)
  readonly #sparse = new Map<number, number>()
  #size = 0

  get size(): number {
    return this.#size
  }

  get(id: number): number | undefined {
    if (id >= 0 && id < this.#dense.length && Number.isInteger(id)) {
      const stored = this.#dense[id]!
      if (stored !== 0) return stored - 1
    }
    return this.#sparse.size === 0 ? undefined : this.#sparse.get(id)
  }

  has(id: number): boolean {
    return this.get(id) !== undefined
  }

  set(id: number, slot: number): void {
    if (!this.#fitsDense(id)) {
      if (!this.#sparse.has(id)) this.#size++
      this.#sparse.set(id, slot)
      return
    }
    if (id >= this.#dense.length) this.#grow(id)
    if (this.#dense[id] === 0) {
      // An id kept in the map while the bound was lower moves here.
      if (!this.#sparse.delete(id)) this.#size++
    }
    this.#dense[id] = slot + 1
  }

  delete(id: number): boolean {
    if (id >= 0 && id < this.#dense.length && Number.isInteger(id) && this.#dense[id] !== 0) {
      this.#dense[id] = 0
      this.#size--
      return true
    }
    if (!this.#sparse.delete(id)) return false
    this.#size--
    return true
  }

  /** Whole ids up to four per molecule held (at least a million) go in the array. */
  #fitsDense(id: number): boolean {
    return Number.isInteger(id) && id >= 0 && id < Math.max(1 << 20, 4 * (this.#size + 1))
  }

  #grow(id: number): void {
    const grown = new Int32Array(Math.max(id + 1, Math.min(this.#dense.length * 2, 1 << 30), 1024))
    grown.set(this.#dense)
    this.#dense = grown
  }
}
