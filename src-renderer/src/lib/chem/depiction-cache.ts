import { SvelteMap } from 'svelte/reactivity'
import type { Depiction, VaultDeskBridge } from '../bridge.ts'
import { svgDataUrl } from './depiction-url.ts'

/** A depiction as the screen shows it: an image address, or why there is no picture. */
export type ShownDepiction =
  { kind: 'image'; url: string; highlighted: boolean } | { kind: 'unparseable'; reason: string }

export function shownDepiction(depiction: Depiction): ShownDepiction {
  return depiction.kind === 'svg'
    ? { kind: 'image', url: svgDataUrl(depiction.svg), highlighted: depiction.highlighted }
    : { kind: 'unparseable', reason: depiction.reason }
}

export interface DepictionCacheOptions {
  /** Thumbnails kept (least recently drawn go first). */
  limit?: number
  /** How long changes are gathered before the thumbnails in view are asked for again (ms). */
  renewDelay?: number
  schedule?: (work: () => void, delay: number) => unknown
}

/** `chem.depictMany` takes at most this many molecules. */
export const depictManyLimit = 200

/**
 * Thumbnails of molecules for the lists, kept in the renderer per vault and molecule: the table
 * says which molecules are in view, and the ones not drawn yet are asked for together, one
 * `chem.depictMany` per 200. When sync changes molecules (or the structure index reaches more of
 * them), the thumbnails in view are asked for again; the old drawings stay until the new arrive,
 * so nothing flickers.
 */
export class DepictionCache {
  readonly #entries = new SvelteMap<string, ShownDepiction>()
  readonly #bridge: VaultDeskBridge
  readonly #limit: number
  readonly #renewDelay: number
  readonly #schedule: (work: () => void, delay: number) => unknown
  /** Keys whose drawing may be out of date. */
  readonly #stale = new Set<string>()
  /** Keys main had no drawing for (not indexed yet): asked again when the index grows. */
  readonly #missing = new Set<string>()
  readonly #asking = new Set<string>()
  /** Molecules waiting to be asked for, by vault (`connectionId/vaultId`). */
  readonly #queued = new Map<string, { connectionId: string; vaultId: number; ids: Set<number> }>()
  #flushing = false
  /** The molecules each vault's table showed last, to renew after a change. */
  readonly #inView = new Map<string, readonly number[]>()
  readonly #renewing = new Set<string>()

  constructor(bridge: VaultDeskBridge, options: DepictionCacheOptions = {}) {
    this.#bridge = bridge
    this.#limit = options.limit ?? 3000
    this.#renewDelay = options.renewDelay ?? 300
    this.#schedule = options.schedule ?? ((work, delay) => setTimeout(work, delay))
  }

  /** Renews thumbnails when molecules change or the structure index reaches more of them. */
  start(): () => void {
    const stops = [
      this.#bridge.on('records.changed', ({ connectionId, vaultId, kinds }) => {
        if (kinds.includes('molecules')) this.renew(connectionId, vaultId)
      }),
      this.#bridge.on('chem.indexProgress', ({ connectionId, vaultId }) =>
        this.renew(connectionId, vaultId, 'missing'),
      ),
    ]
    return () => stops.forEach((stop) => stop())
  }

  /** The thumbnail of a molecule; undefined while it is not drawn (yet). */
  get(connectionId: string, vaultId: number, moleculeId: number): ShownDepiction | undefined {
    return this.#entries.get(keyOf(connectionId, vaultId, moleculeId))
  }

  /** The molecules in view: those not drawn (or out of date) are asked for. */
  want(connectionId: string, vaultId: number, moleculeIds: readonly number[]): void {
    const vault = `${connectionId}/${vaultId}`
    this.#inView.set(vault, moleculeIds)
    const queue = this.#queued.get(vault) ?? { connectionId, vaultId, ids: new Set<number>() }
    for (const id of moleculeIds) {
      const key = keyOf(connectionId, vaultId, id)
      if (this.#asking.has(key) || this.#missing.has(key)) continue
      if (this.#entries.has(key) && !this.#stale.has(key)) continue
      queue.ids.add(id)
    }
    if (queue.ids.size === 0) return
    this.#queued.set(vault, queue)
    if (this.#flushing) return
    this.#flushing = true
    // Rows arrive page by page within one turn: gather them into as few requests as possible.
    queueMicrotask(() => this.#flush())
  }

  /**
   * Marks a vault's thumbnails out of date (`all`) or only asks again for the ones main had not
   * drawn (`missing`), then, a moment later, asks for the ones in view.
   */
  renew(connectionId: string, vaultId: number, which: 'all' | 'missing' = 'all'): void {
    const prefix = `${connectionId}/${vaultId}/`
    for (const key of [...this.#missing]) if (key.startsWith(prefix)) this.#missing.delete(key)
    if (which === 'all') {
      for (const key of this.#entries.keys()) if (key.startsWith(prefix)) this.#stale.add(key)
    }
    const vault = `${connectionId}/${vaultId}`
    if (this.#renewing.has(vault)) return
    this.#renewing.add(vault)
    this.#schedule(() => {
      this.#renewing.delete(vault)
      const inView = this.#inView.get(vault)
      if (inView) this.want(connectionId, vaultId, inView)
    }, this.#renewDelay)
  }

  /** Forgets the thumbnails of connections that are gone. */
  retainConnections(connectionIds: readonly string[]): void {
    const gone = (key: string) => !connectionIds.includes(connectionOf(key))
    for (const key of [...this.#entries.keys()]) {
      if (gone(key)) {
        this.#entries.delete(key)
        this.#stale.delete(key)
      }
    }
    for (const key of [...this.#missing]) if (gone(key)) this.#missing.delete(key)
    for (const vault of [...this.#inView.keys()]) {
      if (gone(`${vault}/0`)) this.#inView.delete(vault)
    }
  }

  get size(): number {
    return this.#entries.size
  }

  #flush(): void {
    this.#flushing = false
    const queued = [...this.#queued.values()]
    this.#queued.clear()
    for (const { connectionId, vaultId, ids } of queued) {
      const all = [...ids]
      for (let start = 0; start < all.length; start += depictManyLimit) {
        void this.#ask(connectionId, vaultId, all.slice(start, start + depictManyLimit))
      }
    }
  }

  async #ask(connectionId: string, vaultId: number, ids: readonly number[]): Promise<void> {
    const keys = ids.map((id) => keyOf(connectionId, vaultId, id))
    for (const key of keys) this.#asking.add(key)
    const result = await this.#bridge.invoke('chem.depictMany', {
      connectionId,
      vaultId,
      moleculeIds: [...ids],
      size: 'thumbnail',
    })
    for (const key of keys) this.#asking.delete(key)
    // A failure leaves the placeholders: the next change or scroll asks again.
    if (!result.ok) return
    ids.forEach((id, index) => {
      const key = keys[index]!
      const depiction = result.value[String(id)]
      if (!depiction) {
        // Not indexed yet (an old drawing, if any, stays): asked again as the index grows.
        this.#missing.add(key)
        return
      }
      this.#stale.delete(key)
      this.#entries.delete(key)
      this.#entries.set(key, shownDepiction(depiction))
    })
    this.#trim()
  }

  #trim(): void {
    const over = this.#entries.size - this.#limit
    if (over <= 0) return
    let removed = 0
    for (const key of this.#entries.keys()) {
      if (removed >= over) break
      this.#entries.delete(key)
      this.#stale.delete(key)
      removed++
    }
  }
}

function keyOf(connectionId: string, vaultId: number, moleculeId: number): string {
  return `${connectionId}/${vaultId}/${moleculeId}`
}

/** The connection of a key (connection ids are opaque: the vault and molecule ids end the key). */
function connectionOf(key: string): string {
  return key.split('/').slice(0, -2).join('/')
}
