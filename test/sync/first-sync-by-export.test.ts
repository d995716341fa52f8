import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { PageDraft } from '../../src-main/store/page-draft.ts'
import type { VaultCache } from '../../src-main/store/vault-cache.ts'
import { idOf } from '../../src-main/sync/paged-pass.ts'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { cachedIds, clientOf, pull, temporaryCache } from './support.ts'

const cancelExport = 'DELETE /vaults/{vault_id}/exports/{export_id}'

interface HandedPage {
  records: readonly unknown[]
  texts: readonly (string | undefined)[] | undefined
}

let cache: VaultCache
let dispose: () => Promise<void>
beforeEach(() => ({ cache, dispose } = temporaryCache()))
const add = PageDraft.prototype.add
afterEach(async () => {
  PageDraft.prototype.add = add
  await dispose()
})

/**
 * The pages of molecules sync hands the store, with the texts that came with them: what was added
 * to each page (PageDraft) that the writer was given.
 */
function handedPages(): HandedPage[] {
  const pages: HandedPage[] = []
  const added = new WeakMap<PageDraft, { records: unknown[]; texts: (string | undefined)[] }>()
  PageDraft.prototype.add = function (record, text) {
    let page = added.get(this)
    if (!page) added.set(this, (page = { records: [], texts: [] }))
    page.records.push(record)
    page.texts.push(text)
    add.call(this, record, text)
  }
  const applyDraft = cache.writer.applyDraft.bind(cache.writer)
  cache.writer.applyDraft = (draft, options = {}, commitOptions = {}) => {
    if (draft.kind === 'molecules') pages.push(added.get(draft) ?? { records: [], texts: [] })
    return applyDraft(draft, options, commitOptions)
  }
  return pages
}

/** A simulator for the tests of a describe block, its exports made in `exportMs`. */
function useSim(molecules: number, exportMs: number): () => VaultSim {
  let sim: VaultSim
  beforeAll(async () => {
    sim = await startVaultSim({
      port: 0,
      seed: molecules,
      exportTiming: { startDelayMs: 5, durationMs: exportMs },
    })
  })
  afterAll(() => sim.stop())
  return () => sim
}

async function serverMoleculeIds(sim: VaultSim): Promise<number[]> {
  const ids: number[] = []
  for await (const id of clientOf(sim).molecules.queryIds(sim.cast.vaults.main.id, {})) {
    ids.push(id)
  }
  return ids.sort((a, b) => a - b)
}

describe('a first sync by export, while the server makes the export', () => {
  // Far more records than the pages read in the time the server takes to make the export.
  const simulator = useSim(20_000, 300)

  it('reads pages, then the records after them from the export, none twice', async () => {
    const sim = simulator()
    const pages = handedPages()
    const main = sim.cast.vaults.main.id
    sim.resetStats()
    const client = clientOf(sim)
    let queries = 0
    client.onCall((call) => {
      if (call.operation === 'molecules.query') queries++
    })
    await pull(client, cache, { vaultIds: [main], exportThreshold: 1000 })
    expect(sim.stats.downloads).toBe(1)
    // The first query only counts the records; every other one gave a page, handed over first.
    const fromPages = pages.slice(0, queries - 1)
    const fromExport = pages.slice(queries - 1)
    expect(fromPages.length).toBeGreaterThan(0)
    expect(fromExport.length).toBeGreaterThan(0)
    const idsOf = (some: HandedPage[]) =>
      some.flatMap(({ records }) => records.map((record) => idOf(record)!))
    const lastPaged = Math.max(...idsOf(fromPages))
    expect(idsOf(fromExport).every((id) => id > lastPaged)).toBe(true)
    expect(cachedIds(cache, 'molecules', main)).toEqual(await serverMoleculeIds(sim))
  })

  it("hands the store each record's text as the server sent it, paged or exported", async () => {
    const sim = simulator()
    const pages = handedPages()
    await pull(clientOf(sim), cache, {
      vaultIds: [sim.cast.vaults.main.id],
      exportThreshold: 1000,
    })
    expect(pages.length).toBeGreaterThan(1)
    for (const { records, texts } of pages) {
      expect(texts).toHaveLength(records.length)
      records.forEach((record, index) => expect(JSON.parse(texts![index]!)).toEqual(record))
    }
  })
})

describe('a first sync by export whose pages reach the end first', () => {
  const simulator = useSim(1500, 60_000)

  it('stores every record from pages and cancels the export', async () => {
    const sim = simulator()
    const main = sim.cast.vaults.main.id
    sim.resetStats()
    await pull(clientOf(sim), cache, { vaultIds: [main], exportThreshold: 1000 })
    expect(sim.stats.downloads).toBe(0)
    expect(sim.stats.byOperation[cancelExport]).toBe(1)
    expect(cachedIds(cache, 'molecules', main)).toEqual(await serverMoleculeIds(sim))
  })
})
