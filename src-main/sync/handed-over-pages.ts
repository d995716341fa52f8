/** A page handed to the store. */
export interface HandedPage {
  /** Settles once the page has crossed to the store's writer (its records held no longer). */
  sent: Promise<void>
  /** Resolves once the page is committed. */
  committed: Promise<void>
}

/**
 * Pages a pass has handed to the store and that may not be committed yet. The pass goes on
 * reading while up to `pagesAhead` wait, so that the store seldom waits for a page to be read and
 * made ready: with fewer, the cache writer sat idle for a good part of a first sync, and more gain
 * nothing (bench/README.md).
 * A page that fails is met (thrown) when the pass next waits, before the pages after it, which
 * the store then refuses (PageCommitter).
 */
export class HandedOverPages {
  static readonly pagesAhead = 6
  readonly #waiting: Promise<void>[] = []
  /** The page handed over last: it settles after every one before it. */
  #last: Promise<void> = Promise.resolve()

  /**
   * Hands a page over; resolves once it has crossed to the store and few enough wait for the
   * store to read on. Pages wait in the writer's queue, not as records on the main thread: read on
   * at once, the pass parsed thousands of records ahead of those sent, which lived long enough
   * to be promoted to the old generation, where collecting them costs the main thread far more.
   */
  async add(page: HandedPage): Promise<void> {
    const { committed } = page
    // Its failure is met where the pass waits for it.
    committed.catch(() => {})
    this.#last = committed
    this.#waiting.push(committed)
    await page.sent.catch(() => {})
    while (this.#waiting.length > HandedOverPages.pagesAhead) await this.#waiting.shift()
  }

  /** Resolves once every page handed over is committed; throws the first failure. */
  async committed(): Promise<void> {
    while (this.#waiting.length > 0) await this.#waiting.shift()
  }

  /** Resolves once every page handed over is committed or has failed. */
  async settled(): Promise<void> {
    await this.#last.catch(() => {})
  }
}
