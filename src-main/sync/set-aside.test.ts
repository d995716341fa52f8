import { describe, expect, it } from 'vitest'
import type { Page, PageWindow, SetAside } from '../api/index.ts'
import { page } from '../api/envelope.ts'
import { integer, object } from '../api/shape.ts'
import type { PassPosition } from './kind-cursor.ts'
import { pagedPass, pageSize, type PageCommitter } from './paged-pass.ts'
import { SetAsideTally } from './set-aside.ts'

const total = 3 * pageSize
/** Records 1..total; those in `unreadable` come without an id. */
function listing(unreadable: ReadonlySet<number>) {
  const windows: PageWindow[] = []
  const read = page(object({ id: integer }))
  const fetchPage = (window: PageWindow): Promise<Page<unknown>> => {
    windows.push(window)
    const first = window.offset ?? 0
    const size = Math.min(window.page_size ?? pageSize, total - first)
    const objects = Array.from({ length: size }, (_, index) => {
      const id = first + index + 1
      return unreadable.has(id) ? { name: `record ${id}` } : { id }
    })
    return Promise.resolve(read({ objects, count: total, offset: first }))
  }
  return { windows, fetchPage }
}

function store() {
  const ids: number[] = []
  const setAside: SetAside[] = []
  const commit: PageCommitter = {
    draft: () => {
      const draft = {
        length: 0,
        add: (record: unknown) => {
          ids.push((record as { id: number }).id)
          draft.length++
        },
        discard: () => {},
      }
      return draft
    },
    commit: () => ({ sent: Promise.resolve(), committed: Promise.resolve() }),
    setAside: (records) => setAside.push(...records),
  }
  return { ids, setAside, commit }
}

const start: PassPosition = { startedAt: null, since: null, offset: 0, lastId: null }

describe('a paged pass over records that cannot be read', () => {
  it('counts them in its positions, reports them, and reads every other record once', async () => {
    // The last record of the first page, and one in the middle of the second.
    const unreadable = new Set([pageSize, pageSize + 500])
    const { windows, fetchPage } = listing(unreadable)
    const { ids, setAside, commit } = store()
    const outcome = await pagedPass(fetchPage, start, commit)
    expect(outcome.position.offset).toBe(total)
    expect(new Set(ids).size).toBe(total - 2)
    expect(ids.filter((id) => unreadable.has(id))).toEqual([])
    // Each page after the first starts one record early (see pagedPass); one without an id
    // among them moves the pass on all the same.
    expect(windows.map((window) => window.offset)).toEqual([
      0,
      pageSize - 1,
      2 * pageSize - 2,
      3 * pageSize - 3,
    ])
    // Reported once, though the second page repeats the first one's last record.
    expect(setAside).toEqual([
      { index: pageSize - 1, reason: 'id: expected an integer, got nothing' },
      { index: 500, reason: 'id: expected an integer, got nothing' },
    ])
  })
})

describe('the tally of what a pull set aside', () => {
  it('counts by kind and keeps a few reasons, each once', () => {
    const tally = new SetAsideTally()
    tally.note('plates', [{ reason: 'a' }, { reason: 'a' }, { reason: 'b' }])
    tally.note('plates', [{ reason: 'c' }, { reason: 'd' }])
    tally.note('runs', [])
    expect(tally.reports(['runs', 'plates'])).toEqual([
      { kind: 'plates', count: 5, reasons: ['a', 'b', 'c'] },
    ])
  })
})
