import type { Page } from './envelope.ts'
import { ApiError } from './errors.ts'

const maxPageSize = 1000

export interface PageWindow {
  offset: number
  page_size: number
}

export interface PagingOptions {
  /** Records per request, 1 to 1000; default 1000 (fewest requests). */
  pageSize?: number
  /** Where to start; default 0. */
  offset?: number
}

/**
 * Every record of a paged list, fetched a page at a time as the caller iterates. The offset
 * advances by the records actually received (a server may send fewer than asked) until `count`
 * is reached; an answer without a count ends at the first short page, an empty page always ends.
 */
export class Paginated<T> implements AsyncIterable<T> {
  readonly #fetchPage: (window: PageWindow) => Promise<Page<T>>
  readonly #pageSize: number
  readonly #offset: number

  constructor(
    operation: string,
    fetchPage: (window: PageWindow) => Promise<Page<T>>,
    options: PagingOptions = {},
  ) {
    const pageSize = options.pageSize ?? maxPageSize
    const offset = options.offset ?? 0
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > maxPageSize) {
      throw new ApiError({
        kind: 'validation',
        operation,
        message: `page size must be an integer from 1 to ${maxPageSize}, not ${pageSize}.`,
      })
    }
    if (!Number.isInteger(offset) || offset < 0) {
      throw new ApiError({
        kind: 'validation',
        operation,
        message: `offset must be a whole number, not ${offset}.`,
      })
    }
    this.#fetchPage = fetchPage
    this.#pageSize = pageSize
    this.#offset = offset
  }

  async *pages(): AsyncGenerator<Page<T>> {
    let offset = this.#offset
    for (;;) {
      const page = await this.#fetchPage({ offset, page_size: this.#pageSize })
      yield page
      const received = page.objects.length
      offset += received
      if (received === 0) return
      if (page.count === undefined ? received < this.#pageSize : offset >= page.count) return
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page.objects
  }
}
