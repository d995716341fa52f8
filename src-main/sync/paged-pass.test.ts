import { describe, expect, it } from 'vitest'
import type { FinishedExport, Page, PageWindow } from '../api/index.ts'
import { exportPass } from './export-pass.ts'
import type { PassPosition } from './kind-cursor.ts'
import { pagedPass, pageSize, type PageCommitter } from './paged-pass.ts'

const start: PassPosition = { startedAt: null, since: null, offset: 0, lastId: null }
const total = 5 * pageSize

/** Records 1..total, listed in pages as the server lists them. */
function listing() {
  const windows: PageWindow[] = []
  const fetchPage = (window: PageWindow): Promise<Page<unknown>> => {
    windows.push(window)
    const first = window.offset ?? 0
    const size = Math.min(window.page_size ?? pageSize, total - first)
    const objects = Array.from({ length: size }, (_, index) => ({ id: first + index + 1 }))
    return Promise.resolve({ objects, count: total, offset: first })
  }
  return { windows, fetchPage }
}

/** A store whose commits the test settles by hand, in the order they were asked. */
function heldStore() {
  const asked: { ids: number[]; settle: (error?: Error) => void }[] = []
  const drafts: IdsDraft[] = []
  const commit: PageCommitter<IdsDraft> = {
    draft: () => {
      const draft = new IdsDraft()
      drafts.push(draft)
      return draft
    },
    commit: (page) => ({
      sent: Promise.resolve(),
      committed: new Promise<void>((resolve, reject) => {
        asked.push({ ids: page.ids, settle: (error) => (error ? reject(error) : resolve()) })
      }),
    }),
  }
  return { asked, drafts, commit }
}

/** A page that keeps only its records' ids. */
class IdsDraft {
  readonly ids: number[] = []
  discarded = false
  get length(): number {
    return this.ids.length
  }
  add(record: unknown): void {
    this.ids.push((record as { id: number }).id)
  }
  discard(): void {
    this.discarded = true
  }
}

/** An export of records 1..total, each with its text. */
function finishedExport(): FinishedExport<unknown> {
  return {
    setAside: [],
    async *recordsWithText() {
      for (let id = 1; id <= total; id++) yield { record: { id }, text: `{"id":${id}}` }
    },
  } as unknown as FinishedExport<unknown>
}

describe('a paged pass stopped as asked', () => {
  it('returns with its last pages still committing, and fetches no page after the stop', async () => {
    const { windows, fetchPage } = listing()
    const store = heldStore()
    let pagesSeen = 0
    const outcome = await pagedPass(fetchPage, start, store.commit, () => ++pagesSeen === 2)
    expect(outcome.stopped).toBe(true)
    // The second page starts one record early (see pagedPass).
    expect(outcome.position).toMatchObject({ offset: 2 * pageSize - 1, lastId: 2 * pageSize - 1 })
    expect(windows.map((window) => window.offset)).toEqual([0, pageSize - 1])
    expect(store.asked).toHaveLength(2)
    expect(outcome.handedOver).toBeDefined()
  })

  it('leaves the pages to the export pass, whose records after them commit after them', async () => {
    const { fetchPage } = listing()
    const store = heldStore()
    const paged = await pagedPass(fetchPage, start, store.commit, () => true)
    const exported = exportPass(finishedExport(), start, store.commit, {}, total, paged)
    await new Promise((resolve) => setImmediate(resolve))
    // The export is read while the paged pass's page is not committed yet.
    expect(store.asked.length).toBeGreaterThan(1)
    for (const commit of store.asked) commit.settle()
    while (store.asked.length < 5) {
      await new Promise((resolve) => setImmediate(resolve))
      for (const commit of store.asked) commit.settle()
    }
    const outcome = await exported
    expect(store.asked.map(({ ids }) => ids[0])).toEqual([1, 1001, 2001, 3001, 4001])
    expect(outcome.ids).toEqual(Array.from({ length: total }, (_, index) => index + 1))
  })

  it('has the export pass meet a failure of the pages it took over', async () => {
    const { fetchPage } = listing()
    const store = heldStore()
    const paged = await pagedPass(fetchPage, start, store.commit, () => true)
    const exported = exportPass(finishedExport(), start, store.commit, {}, total, paged)
    exported.catch(() => {})
    while (store.asked.length < 5) await new Promise((resolve) => setImmediate(resolve))
    store.asked[0]!.settle(new Error('disk full'))
    for (const commit of store.asked.slice(1)) commit.settle()
    await expect(exported).rejects.toThrow('disk full')
  })

  it('lets go of the page it was filling when the export fails midway', async () => {
    const store = heldStore()
    const failing = {
      async *recordsWithText() {
        for (let id = 1; id <= pageSize + 500; id++) yield { record: { id }, text: `{"id":${id}}` }
        throw new Error('connection reset')
      },
    } as unknown as FinishedExport<unknown>
    const exported = exportPass(failing, start, store.commit, {}, total)
    exported.catch(() => {})
    while (store.asked.length < 1) await new Promise((resolve) => setImmediate(resolve))
    store.asked[0]!.settle()
    await expect(exported).rejects.toThrow('connection reset')
    expect(store.asked.map(({ ids }) => ids.length)).toEqual([pageSize])
    expect(store.drafts.map((draft) => [draft.length, draft.discarded])).toEqual([
      [pageSize, false],
      [500, true],
    ])
  })
})
