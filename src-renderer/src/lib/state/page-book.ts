import type { RowRange } from '../../components/table/table-model.ts'

/**
 * Which pages of a paged list have been read and which are being read, so that a scrolling table
 * asks for each page once. Bookkeeping only: nothing renders it.
 */
export class PageBook {
  readonly pageSize: number
  #read = new Set<number>()
  #reading = new Set<number>()

  constructor(pageSize: number) {
    this.pageSize = pageSize
  }

  /** The pages that hold the rows of a range (at least the first page). */
  pagesOf(range: RowRange): number[] {
    const first = Math.floor(Math.max(0, range.start) / this.pageSize)
    const last = Math.max(first, Math.floor(Math.max(0, range.end - 1) / this.pageSize))
    return Array.from({ length: last - first + 1 }, (_, index) => first + index)
  }

  /** Neither read nor being read. */
  needs(page: number): boolean {
    return !this.#read.has(page) && !this.#reading.has(page)
  }

  startReading(page: number): void {
    this.#reading.add(page)
  }

  /** The page's answer arrived (`ok`: its rows are in place; else it may be asked again). */
  finishReading(page: number, ok: boolean): void {
    this.#reading.delete(page)
    if (ok) this.#read.add(page)
  }

  markRead(page: number): void {
    this.#read.add(page)
  }

  /** The rows read so far are gone (replaced): every page must be read again. */
  forgetRead(): void {
    this.#read.clear()
  }

  /** A new question: nothing read, and answers still on their way no longer count. */
  clear(): void {
    this.#read.clear()
    this.#reading.clear()
  }
}
