import { setAsideIn, type Page, type PageWindow, type SetAside } from '../api/index.ts'
import { addInParts } from '../store/page-draft.ts'
import { toId } from '../../src-common/values.ts'
import { HandedOverPages, type HandedPage } from './handed-over-pages.ts'
import type { PassPosition } from './kind-cursor.ts'

/**
 * The largest page the service serves (spec: Limits), and what the cache writer commits in one
 * transaction (off the main thread, so its size costs the window nothing).
 */
export const pageSize = 1000

/**
 * Where a pass's pages go. Each is filled record by record (`draft`, made ready for its tables as
 * each record comes), then stored with the position it brings the pass to, in one transaction
 * (`commit`). A pass commits its next pages before the last one is committed (see
 * HandedOverPages), so pages must reach the store in the order they are committed, and none may
 * commit after one that failed (CacheWriter's `after`).
 */
export interface PageCommitter<Draft extends PageInProgress = PageInProgress> {
  draft(): Draft
  commit(page: Draft, position: PassPosition, total: number | null): HandedPage
  /** Records of a page (or an export) that the API's reader set aside: the rest are committed. */
  setAside?(records: readonly SetAside[]): void
}

/** A page being filled (the store's PageDraft): its records so far, and how to add the next. */
export interface PageInProgress {
  readonly length: number
  /** `text`: the record's JSON text as the server wrote it, where the record is exactly that. */
  add(record: unknown, text?: string): void
  /** The page will not be committed (the pass failed): what went ahead of it is let go. */
  discard(): void
}

export interface PassOutcome {
  position: PassPosition
  /** Every id the pass read, when it read the whole listing from its first page; else null. */
  ids: number[] | null
  /** The server's count of matching records, as the last page said. */
  total: number | null
  /** Set when the pass stopped before the end of the listing, as asked (`stopWhen`). */
  stopped?: true
  /**
   * A stopped pass's pages that may not be committed yet: the pass that goes on from it reads on
   * while they commit, and meets their failure (see exportPass).
   */
  handedOver?: HandedOverPages
}

interface Answer {
  requestOffset: number
  page: Page<unknown>
}

/**
 * Reads a paged listing from `start` to its end, committing each page with its position. The
 * server orders every listing by id, so after the first page each request starts one record
 * early: that record must be the last one committed. When it is not, records before it were
 * deleted meanwhile and the rest moved down; the pass steps back a page rather than skip any.
 * The next page is requested while the current one is being committed, and handed over to be
 * committed while the one before it still is (so that the store is never idle waiting for the
 * next page to be made ready): a page commits only after the one before it did. A pass that stops
 * as asked returns at once, its last pages still committing (PassOutcome.handedOver), so that the
 * pass that goes on from it keeps the store busy.
 */
export async function pagedPass<Draft extends PageInProgress>(
  fetchPage: (window: PageWindow) => Promise<Page<unknown>>,
  start: PassPosition,
  pages: PageCommitter<Draft>,
  /** Asked as each page comes: true stops the pass after handing it over (none is fetched ahead). */
  stopWhen: () => boolean = () => false,
): Promise<PassOutcome> {
  const ids: number[] | null = start.offset === 0 ? [] : null
  const request = (position: PassPosition): Promise<Answer> => {
    const requestOffset =
      position.offset > 0 && position.lastId !== null ? position.offset - 1 : position.offset
    const answer = fetchPage({ offset: requestOffset, page_size: pageSize }).then((page) => ({
      requestOffset,
      page,
    }))
    // A page fetched ahead may fail after the pass has stopped for another reason.
    answer.catch(() => {})
    return answer
  }
  let position = start
  let pending = request(position)
  const handedOver = new HandedOverPages()
  let handedOn = false
  try {
    for (;;) {
      const { requestOffset, page } = await pending
      const records = page.objects
      const setAside = setAsideIn(records)
      // Positions count what the server served, the records set aside too.
      const served = records.length + setAside.length
      const total = page.count ?? null
      if (movedDown(position, requestOffset, records, setAside)) {
        position = { ...position, offset: Math.max(0, position.offset - pageSize) }
        pending = request(position)
        continue
      }
      const reached: PassPosition = {
        ...position,
        offset: requestOffset + served,
        lastId: highestId(position.lastId, records),
      }
      const finished =
        served === 0 ||
        (page.count === undefined ? served < pageSize : reached.offset >= page.count)
      const stopping = !finished && stopWhen()
      if (!finished && !stopping) pending = request(reached)
      const draft = pages.draft()
      try {
        await addInParts(draft, records, page.texts?.())
      } catch (error) {
        draft.discard()
        throw error
      }
      // The record a page repeats from the one before was reported with it.
      const repeated = requestOffset < position.offset ? 1 : 0
      const newlySetAside = setAside.filter((record) => record.index >= repeated)
      if (newlySetAside.length > 0) pages.setAside?.(newlySetAside)
      await handedOver.add(pages.commit(draft, reached, total))
      position = reached
      if (ids) for (const record of records) pushId(ids, record)
      if (finished) {
        await handedOver.committed()
        return { position, ids, total }
      }
      if (stopping) {
        handedOn = true
        return { position, ids, total, stopped: true, handedOver }
      }
    }
  } finally {
    // A pass stopped by a failure leaves nothing of its own running.
    if (!handedOn) await handedOver.settled()
  }
}

/**
 * The page should begin with the last record committed; a later one means records vanished. A
 * page whose first record was set aside cannot tell, and is taken as it is.
 */
function movedDown(
  position: PassPosition,
  requestOffset: number,
  records: readonly unknown[],
  setAside: readonly SetAside[],
) {
  if (position.lastId === null || requestOffset === position.offset) return false
  if (setAside[0]?.index === 0) return false
  if (records.length === 0) return true
  const firstId = idOf(records[0])
  return firstId !== null && firstId > position.lastId
}

function highestId(lastId: number | null, records: readonly unknown[]): number | null {
  let highest = lastId
  for (const record of records) {
    const id = idOf(record)
    if (id !== null && (highest === null || id > highest)) highest = id
  }
  return highest
}

export function idOf(record: unknown): number | null {
  return typeof record === 'object' && record !== null
    ? toId((record as { id?: unknown }).id)
    : null
}

export function pushId(ids: number[], record: unknown): void {
  const id = idOf(record)
  if (id !== null) ids.push(id)
}
