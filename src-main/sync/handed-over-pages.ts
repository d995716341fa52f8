/**
 * Pages a pass has handed to the store and that may not be committed yet. The pass goes on
 * reading while up to `pagesAhead` wait, so that the store seldom waits for a page to be read and
 * made ready. With one page ahead, the cache writer sat idle for about a fifth of a first sync of
 * 100k molecules (1.2 s by pages, 1.4 s by export); with three, 0.7 s and 1.0 s. Six made a first
 * sync about a tenth faster again (21 alternating runs by export), ten no faster.
 * A page that fails is met (thrown) when the pass next waits, before the pages after it, which
 * the store then refuses (CommitPage).
 */
export class HandedOverPages {
  static readonly pagesAhead = 6
  readonly #waiting: Promise<void>[] = []
  /** The page handed over last: it settles after every one before it. */
  #last: Promise<void> = Promise.resolve()

  /** Hands a page over; resolves once few enough wait for the store to read on. */
  async add(stored: Promise<void>): Promise<void> {
    // Its failure is met where the pass waits for it.
    stored.catch(() => {})
    this.#last = stored
    this.#waiting.push(stored)
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
