import { setTimeout as delay } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { PageDraft } from '../../src-main/store/page-draft.ts'
import type { VaultCache } from '../../src-main/store/vault-cache.ts'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { collected } from '../support/garbage.ts'
import { cachedIds, clientOf, pull, temporaryCache } from './support.ts'

/**
 * Sync hands pages to the store while earlier ones commit (HandedOverPages). A page's records must
 * die young once sent to the writer: held until their page committed, they were promoted to the
 * old generation, and collecting them took the main thread a fifth of a first sync.
 */
describe('a first sync', () => {
  let sim: VaultSim
  beforeAll(async () => {
    sim = await startVaultSim({ port: 0, seed: 8000 })
  })
  afterAll(() => sim.stop())

  let cache: VaultCache
  let file: string
  let dispose: () => Promise<void>
  beforeEach(() => ({ cache, file, dispose } = temporaryCache()))
  const add = PageDraft.prototype.add
  afterEach(async () => {
    PageDraft.prototype.add = add
    await dispose()
  })

  it("lets go of a page's records once it has handed them to the writer", async () => {
    const main = sim.cast.vaults.main.id
    // From the first page of molecules on, another connection holds the write lock: the writer
    // waits for it (its busy timeout) with those pages in hand, and sync reads on meanwhile.
    const other = new Database(file)
    const pages: WeakRef<object>[][] = []
    const added = new WeakMap<PageDraft, WeakRef<object>[]>()
    // Not a vi.spyOn: a spy keeps the arguments of every call.
    PageDraft.prototype.add = function (record, text) {
      let records = added.get(this)
      if (!records) added.set(this, (records = []))
      records.push(new WeakRef(record as object))
      add.call(this, record, text)
    }
    const applyDraft = cache.writer.applyDraft.bind(cache.writer)
    cache.writer.applyDraft = (draft, options = {}, commitOptions = {}) => {
      if (draft.kind === 'molecules') {
        if (pages.length === 0) other.exec('BEGIN IMMEDIATE')
        pages.push(added.get(draft) ?? [])
      }
      return applyDraft(draft, options, commitOptions)
    }
    const pulled = pull(clientOf(sim), cache, {
      vaultIds: [main],
      exportThreshold: Number.POSITIVE_INFINITY,
    })
    let letGo: boolean
    try {
      const until = performance.now() + 2500
      while (pages.length < 3 && performance.now() < until) await delay(5)
      expect(pages.length).toBeGreaterThanOrEqual(3)
      // The last page handed over may still be in hand: sync reads on from it.
      letGo = await collected(pages.slice(0, -1).flat())
      expect(cache.counts()[main]?.molecules ?? 0).toBe(0)
    } finally {
      other.exec('COMMIT')
      other.close()
    }
    await pulled
    expect(letGo).toBe(true)
    expect(cachedIds(cache, 'molecules', main)).toHaveLength(8000)
  })
})
