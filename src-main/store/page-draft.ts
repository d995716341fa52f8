import { pageBuilder, type ApplyPageOptions } from './cache-writes.ts'
import type { PageBuilder, PreparedPage } from './record-rows.ts'

/**
 * Records made ready and sent as one part of a page, between two yields to the event loop: about
 * a millisecond of work, so that handing a page of a thousand molecules to the writer never holds
 * the main thread for a frame, on a busy machine too (twice as many did not: bench/README.md). A
 * multiple of the rows of one multi-row INSERT.
 */
export const recordsPerPart = 64

/**
 * Where the parts of a page go as soon as they are made, ahead of the page (the cache writer's
 * worker, see CacheWriter.partSink), instead of waiting with the page until it is whole.
 */
export interface PartSink {
  /** Takes the next part; the parts it took come before those the page is handed over with. */
  take(part: PreparedPage): void
  /** The page will not be handed over: the parts taken are let go. */
  drop(): void
}

/**
 * A page of records made ready for its tables (record-rows.ts) as each record comes, in parts of
 * recordsPerPart, instead of once the page is whole. A record read from a download is then held
 * as an object only for the piece of the download it came in: gathered into a page first, a page
 * of molecules (about 10 MB of objects) lived through the young generation's collections, which
 * copied it each time and promoted what they copied twice. With a PartSink, each full part goes
 * on as it is made too, so that neither do the parts wait through collections for the page.
 */
export class PageDraft {
  readonly kind: string
  readonly vaultId: number | string
  /** Where full parts went as they were made, if anywhere; handed over with the page. */
  readonly sink: PartSink | undefined
  readonly #options: Pick<ApplyPageOptions, 'parentId'>
  readonly #parts: PreparedPage[] = []
  #builder: PageBuilder
  #length = 0
  #finished = false

  /** Throws for an unknown kind, a bad vault id or a parent where none applies (pageBuilder). */
  constructor(
    kind: string,
    vaultId: number | string,
    options: Pick<ApplyPageOptions, 'parentId'> = {},
    sink?: PartSink,
  ) {
    this.kind = kind
    this.vaultId = vaultId
    this.sink = sink
    this.#options = options
    this.#builder = pageBuilder(kind, vaultId, options)
  }

  /** How many records the page holds. */
  get length(): number {
    return this.#length
  }

  /** Adds the next record of the page; `text` is its JSON text where the record is exactly that. */
  add(record: unknown, text?: string): void {
    if (this.#finished) throw new Error(`This page of ${this.kind} was handed over already.`)
    this.#builder.add(record, text)
    this.#length++
    if (this.#length % recordsPerPart === 0) {
      const part = this.#builder.finish()
      if (this.sink) this.sink.take(part)
      else this.#parts.push(part)
      this.#builder = pageBuilder(this.kind, this.vaultId, this.#options, this.#length)
    }
  }

  /**
   * The page in its parts (at least one), made ready; nothing can be added after. With a sink,
   * the parts it has not taken: the rest of the page, the last part, which may be empty.
   */
  finish(): PreparedPage[] {
    if (!this.#finished) {
      this.#finished = true
      if (this.#parts.length === 0 || this.#length % recordsPerPart !== 0) {
        this.#parts.push(this.#builder.finish())
      }
    }
    return this.#parts
  }

  /** The page will not be handed over: nothing can be added, and what went ahead is let go. */
  discard(): void {
    if (this.#finished) return
    this.#finished = true
    this.sink?.drop()
  }
}

/**
 * Adds a page's records to a draft a part at a time (recordsPerPart), yielding to the event loop
 * between parts, so that making a page ready never holds the main thread for a frame.
 */
export async function addInParts<Draft extends Pick<PageDraft, 'add'>>(
  draft: Draft,
  records: readonly unknown[],
  texts?: readonly (string | undefined)[],
): Promise<Draft> {
  for (let index = 0; index < records.length; index++) {
    if (index > 0 && index % recordsPerPart === 0) {
      await new Promise((resolve) => setImmediate(resolve))
    }
    draft.add(records[index], texts?.[index])
  }
  return draft
}
