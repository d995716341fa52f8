import { SvelteSet } from 'svelte/reactivity'
import type { RowKey } from './table-model.ts'

type KeyAt = (position: number) => RowKey | null

/**
 * Which rows are selected, by key (so that a selection survives re-sorting), following the usual
 * desktop rules: a click selects one row, Ctrl/Cmd toggles one, Shift extends from the anchor.
 * Positions are places in the table's current order; `keyAt` turns them into keys, or null for a
 * row that is not loaded yet (which cannot be selected).
 */
export class RowSelection {
  readonly keys = new SvelteSet<RowKey>()
  /** Where a Shift-extension starts: the last row selected or toggled on its own. */
  anchor = $state<number | null>(null)

  has(key: RowKey): boolean {
    return this.keys.has(key)
  }

  get size(): number {
    return this.keys.size
  }

  selectOnly(position: number, keyAt: KeyAt): void {
    this.keys.clear()
    const key = keyAt(position)
    if (key !== null) this.keys.add(key)
    this.anchor = position
  }

  toggle(position: number, keyAt: KeyAt): void {
    const key = keyAt(position)
    if (key === null) return
    if (this.keys.has(key)) this.keys.delete(key)
    else this.keys.add(key)
    this.anchor = position
  }

  /** Selects exactly the rows between the anchor and `position`, both included. */
  extendTo(position: number, keyAt: KeyAt): void {
    const anchor = this.anchor ?? position
    this.keys.clear()
    const [from, to] = anchor <= position ? [anchor, position] : [position, anchor]
    for (let index = from; index <= to; index++) this.#add(keyAt(index))
    this.anchor = anchor
  }

  selectAll(count: number, keyAt: KeyAt): void {
    this.keys.clear()
    for (let index = 0; index < count; index++) this.#add(keyAt(index))
  }

  clear(): void {
    this.keys.clear()
    this.anchor = null
  }

  #add(key: RowKey | null): void {
    if (key !== null) this.keys.add(key)
  }

  /** Keeps only keys that still name a row, after the rows changed under the selection. */
  retain(isPresent: (key: RowKey) => boolean): void {
    for (const key of [...this.keys]) if (!isPresent(key)) this.keys.delete(key)
  }
}
