import type { CallOptions, FinishedExport } from '../api/index.ts'
import type { PassPosition } from './kind-cursor.ts'
import { HandedOverPages } from './handed-over-pages.ts'
import {
  idOf,
  pageSize,
  pushId,
  type PageCommitter,
  type PageInProgress,
  type PassOutcome,
} from './paged-pass.ts'

/**
 * Reads a finished export (the whole kind at one moment) as it streams in, committing it a page
 * at a time with the position reached. Records come in id order, as pages do, so a pass stopped
 * here resumes with pages from the last committed record; should the export not be in id order,
 * the position keeps only its offset. A pass that read pages while the server made the export
 * (`before`) goes on from where they stopped: the export's records up to the last id they read
 * are skipped, while the last of their pages still commit (the export's pages commit after them).
 */
export async function exportPass<Draft extends PageInProgress>(
  finished: FinishedExport<unknown>,
  start: PassPosition,
  pages: PageCommitter<Draft>,
  call: CallOptions,
  /** How many records the export should hold, as the listing counted them. */
  total: number | null,
  before?: PassOutcome,
): Promise<PassOutcome> {
  const ids: number[] = before?.ids ? [...before.ids] : []
  let position: PassPosition = before?.position ?? { ...start, offset: 0, lastId: null }
  const readThrough = before?.position.lastId ?? null
  let ordered = true
  // Each record is made ready for its tables as it comes (PageDraft), and its object let go.
  let draft = pages.draft()
  let lastId: number | null = null
  // The stream goes on while pages commit; each commits only after the one before it did.
  const handedOver = before?.handedOver ?? new HandedOverPages()
  const flush = async () => {
    const page = draft
    draft = pages.draft()
    position = {
      ...position,
      offset: position.offset + page.length,
      lastId: ordered ? lastId : null,
    }
    await handedOver.add(pages.commit(page, position, total))
  }
  try {
    // The records the pages read are dropped unread where their text shows the id first.
    const scanning = readThrough === null ? {} : { skipThroughId: readThrough }
    for await (const { record, text } of finished.recordsWithText(call, scanning)) {
      const id = idOf(record)
      if (readThrough !== null && id !== null && id <= readThrough) continue
      if (ordered && id !== null && ids.length > 0 && id <= ids.at(-1)!) ordered = false
      pushId(ids, record)
      draft.add(record, text)
      lastId = id
      if (draft.length === pageSize) await flush()
    }
    if (draft.length > 0) await flush()
    if (finished.setAside.length > 0) pages.setAside?.(finished.setAside)
    await handedOver.committed()
  } finally {
    // A pass stopped by a failure leaves nothing of its own running, nor a page half sent.
    draft.discard()
    await handedOver.settled()
  }
  return { position, ids, total }
}
