import { describe, expect, it } from 'vitest'
import type { Page } from './envelope.ts'
import { ApiError } from './errors.ts'
import { Paginated, type PageWindow } from './paginated.ts'

/** A fake list of `total` records that answers at most `serverCap` per page. */
function source(total: number, options: { serverCap?: number; withCount?: boolean } = {}) {
  const windows: PageWindow[] = []
  const fetchPage = async (window: PageWindow): Promise<Page<number>> => {
    windows.push(window)
    const size = Math.min(window.page_size, options.serverCap ?? Infinity)
    const objects = Array.from(
      { length: Math.max(0, Math.min(size, total - window.offset)) },
      (_, index) => window.offset + index,
    )
    return {
      count: options.withCount === false ? undefined : total,
      offset: window.offset,
      objects,
    }
  }
  return { windows, fetchPage }
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of iterable) out.push(item)
  return out
}

describe('Paginated', () => {
  it('reads every record, advancing by what was received until count is reached', async () => {
    const { windows, fetchPage } = source(25)
    const records = await collect(new Paginated('x.list', fetchPage, { pageSize: 10 }))
    expect(records).toEqual(Array.from({ length: 25 }, (_, index) => index))
    expect(windows.map((window) => window.offset)).toEqual([0, 10, 20])
  })

  it('keeps going when the server sends fewer records than asked', async () => {
    const { windows, fetchPage } = source(25, { serverCap: 7 })
    const records = await collect(new Paginated('x.list', fetchPage, { pageSize: 10 }))
    expect(records).toHaveLength(25)
    expect(windows.map((window) => window.offset)).toEqual([0, 7, 14, 21])
  })

  it('ends at the first short page when the answer has no count', async () => {
    const { windows, fetchPage } = source(25, { withCount: false })
    const records = await collect(new Paginated('x.list', fetchPage, { pageSize: 10 }))
    expect(records).toHaveLength(25)
    expect(windows).toHaveLength(3)
  })

  it('stops on an empty page even if the count promised more', async () => {
    const fetchPage = async (window: PageWindow): Promise<Page<number>> => ({
      count: 100,
      offset: window.offset,
      objects: window.offset === 0 ? [1, 2] : [],
    })
    expect(await collect(new Paginated('x.list', fetchPage, { pageSize: 2 }))).toEqual([1, 2])
  })

  it('starts at the given offset and yields whole pages too', async () => {
    const { fetchPage } = source(5)
    const pages = await collect(
      new Paginated('x.list', fetchPage, { pageSize: 2, offset: 1 }).pages(),
    )
    expect(pages.map((page) => page.objects)).toEqual([
      [1, 2],
      [3, 4],
    ])
  })

  it.each([0, 1001, 2.5])('refuses a page size of %d', (pageSize) => {
    expect(() => new Paginated('x.list', source(1).fetchPage, { pageSize })).toThrow(ApiError)
  })
})
