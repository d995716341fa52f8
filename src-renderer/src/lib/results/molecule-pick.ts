/**
 * Molecules picked in a results plot (a box, a lasso, a histogram's range), kept in the results
 * table's address so that back, forward and reload keep the table narrowed to them. A pick is
 * written compactly: the ids ascending, each as its distance from the one before in base 36, a
 * run of consecutive ids as `distance-more` (`5-3.c.2` is 5, 6, 7, 8, 20, 22). A pick whose
 * compact form would make the address unwieldy is kept in the page's storage instead (the last
 * few, by a hash of their compact form) and the address names it: `~k3j9x0a2b1q`. An address
 * naming a pick this page no longer keeps reads as a pick of unknown molecules.
 */

/** What `results.table` takes as `moleculeIds`. */
export const maxPicked = 250_000

/** A longer compact form goes to the page's storage, its key to the address. */
export const inlineLimit = 1500

/** Picks kept in storage, oldest forgotten first. */
const keptPicks = 8

export interface MoleculePick {
  /** The molecules, ascending; null for a stored pick this page no longer has. */
  ids: readonly number[] | null
  /** How the address writes it: the compact form, or `~` and its storage key. */
  token: string
}

/** The compact form of ids (any order, repeats ignored). */
export function encodeIds(ids: Iterable<number>): string {
  const sorted = [...new Set(ids)].sort((first, second) => first - second)
  const parts: string[] = []
  let index = 0
  let previous = 0
  while (index < sorted.length) {
    const start = sorted[index]!
    let end = index
    while (end + 1 < sorted.length && sorted[end + 1] === sorted[end]! + 1) end += 1
    const run = end - index
    const distance = (start - previous).toString(36)
    parts.push(run > 0 ? `${distance}-${run.toString(36)}` : distance)
    previous = sorted[end]!
    index = end + 1
  }
  return parts.join('.')
}

const partPattern = /^([0-9a-z]{1,11})(?:-([0-9a-z]{1,11}))?$/

/** The ids of a compact form, ascending; null when it is not one (or holds too many). */
export function decodeIds(text: string): number[] | null {
  if (text === '') return []
  const ids: number[] = []
  let previous = 0
  for (const [position, part] of text.split('.').entries()) {
    const match = partPattern.exec(part)
    if (!match) return null
    const distance = parseInt(match[1]!, 36)
    const run = match[2] === undefined ? 0 : parseInt(match[2], 36)
    // Ascending and without repeats: only the first id may be at distance 0 (from zero).
    if (position > 0 && distance < 1) return null
    const start = previous + distance
    if (ids.length + run + 1 > maxPicked || !Number.isSafeInteger(start + run)) return null
    for (let id = start; id <= start + run; id += 1) ids.push(id)
    previous = start + run
  }
  return ids
}

/** Where stored picks are kept: the page's local storage, or nothing (tests, hosts without it). */
export interface PickStorage {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

const storagePrefix = 'vault-desk.results.pick/'
const indexKey = 'vault-desk.results.picks'

/**
 * The picks too large for an address, kept in memory and, where it can, in storage, so that a
 * reload (or the Results tab's memory of the last table) finds them again.
 */
export class PickMemory {
  readonly #storage: () => PickStorage | null
  readonly #kept = new Map<string, string>()

  constructor(storage: () => PickStorage | null) {
    this.#storage = storage
  }

  /** The pick of these molecules, stored here when too large for an address. */
  pick(ids: Iterable<number>): MoleculePick {
    const compact = encodeIds(ids)
    const sorted = decodeIds(compact)
    if (sorted === null) {
      throw new RangeError(`A pick holds at most ${maxPicked.toLocaleString('en-US')} molecules.`)
    }
    if (compact.length <= inlineLimit) return { ids: sorted, token: compact }
    const key = hashOf(compact)
    this.#keep(key, compact)
    return { ids: sorted, token: `~${key}` }
  }

  /** A pick as an address writes it; null when it is not one. */
  read(token: string): MoleculePick | null {
    if (!token.startsWith('~')) {
      const ids = decodeIds(token)
      return ids === null ? null : { ids, token }
    }
    const key = token.slice(1)
    if (!/^[0-9a-z]{1,16}$/.test(key)) return null
    const compact = this.#kept.get(key) ?? this.#stored(key)
    const ids = compact === null ? null : decodeIds(compact)
    if (ids !== null && compact !== null) this.#kept.set(key, compact)
    return { ids, token }
  }

  #stored(key: string): string | null {
    try {
      return this.#storage()?.getItem(storagePrefix + key) ?? null
    } catch {
      return null
    }
  }

  #keep(key: string, compact: string): void {
    this.#kept.delete(key)
    this.#kept.set(key, compact)
    while (this.#kept.size > keptPicks) this.#kept.delete(this.#kept.keys().next().value!)
    const storage = (() => {
      try {
        return this.#storage()
      } catch {
        return null
      }
    })()
    if (!storage) return
    try {
      const index = readIndex(storage).filter((kept) => kept !== key)
      index.push(key)
      while (index.length > keptPicks) storage.removeItem(storagePrefix + index.shift()!)
      storage.setItem(storagePrefix + key, compact)
      storage.setItem(indexKey, JSON.stringify(index))
    } catch {
      // Storage full or refused: the pick is still kept in memory for this page.
    }
  }
}

function readIndex(storage: PickStorage): string[] {
  try {
    const index: unknown = JSON.parse(storage.getItem(indexKey) ?? '[]')
    return Array.isArray(index) ? index.filter((key) => typeof key === 'string') : []
  } catch {
    return []
  }
}

/**
 * A 64-bit hash of a text in base 36 (two 32-bit FNV-1a lanes from different offsets): a storage
 * key that two picks will not share.
 */
export function hashOf(text: string): string {
  let first = 0x811c9dc5
  let second = 0x01000193
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index)
    first = Math.imul(first ^ code, 0x01000193)
    second = Math.imul(second ^ code, 0x0100019d)
  }
  return (first >>> 0).toString(36).padStart(7, '0') + (second >>> 0).toString(36).padStart(7, '0')
}

function pageStorage(): PickStorage | null {
  try {
    return (globalThis as { localStorage?: PickStorage }).localStorage ?? null
  } catch {
    return null
  }
}

/** The window's picks. */
export const picks = new PickMemory(pageStorage)
