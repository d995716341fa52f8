/**
 * Where the pull of one kind of one vault stands. Sync saves it with every committed page (in
 * the page's transaction), so that a sync stopped anywhere resumes after the last committed page.
 */
export interface KindCursor {
  /**
   * `modified_after` of the next pass: one second before the server time at which the last
   * complete pass began. Timestamps have one-second precision, so a record changed in that second
   * after the pass read it is fetched again rather than missed; the cache replaces records by id,
   * so the overlap never duplicates anything. Null until a first complete pass.
   */
  since: string | null
  /** The pass under way, when one was interrupted; null between passes. */
  pass: PassPosition | null
  /**
   * When the server last said this kind is not available here (administrators only, or 403 or
   * 404 for its list), if it did: it is asked again a retry interval later.
   */
  deniedAt?: string
  /**
   * When (local ISO time) the kind was last read whole or compared with the server's id list:
   * reference data and deletion checks are due again one refresh interval later.
   */
  checkedAt?: string
}

/** How far a pass got, in the server's id order. */
export interface PassPosition {
  /** Server time when the pass began; null until it committed its first page. */
  startedAt: string | null
  /** `modified_after` of this pass; null when it reads everything. */
  since: string | null
  /** Records the pass has committed: the offset of the next page. */
  offset: number
  /** The highest id committed, to notice records that moved because others were deleted. */
  lastId: number | null
}

export const emptyCursor: KindCursor = { since: null, pass: null }

/** Reads a saved cursor; anything unreadable (an older format, say) starts the kind afresh. */
export function readKindCursor(saved: unknown): KindCursor {
  if (typeof saved !== 'object' || saved === null) return emptyCursor
  const value = saved as Record<string, unknown>
  const since = typeof value.since === 'string' ? value.since : null
  const deniedAt = typeof value.deniedAt === 'string' ? { deniedAt: value.deniedAt } : {}
  const checkedAt = typeof value.checkedAt === 'string' ? { checkedAt: value.checkedAt } : {}
  return { since, pass: readPass(value.pass), ...deniedAt, ...checkedAt }
}

function readPass(value: unknown): PassPosition | null {
  if (typeof value !== 'object' || value === null) return null
  const pass = value as Record<string, unknown>
  if (typeof pass.startedAt !== 'string') return null
  if (!Number.isSafeInteger(pass.offset) || (pass.offset as number) < 0) return null
  return {
    startedAt: pass.startedAt,
    since: typeof pass.since === 'string' ? pass.since : null,
    offset: pass.offset as number,
    lastId: Number.isSafeInteger(pass.lastId) ? (pass.lastId as number) : null,
  }
}

/**
 * The cursor after a complete pass that began at `startedAt` (server time); `checkedAt` when the
 * pass also read the whole kind or its id list.
 */
export function completedCursor(startedAt: string, checkedAt: string | undefined): KindCursor {
  return { since: oneSecondBefore(startedAt), pass: null, ...(checkedAt ? { checkedAt } : {}) }
}

export function oneSecondBefore(isoTime: string): string {
  const millis = Date.parse(isoTime)
  if (Number.isNaN(millis)) throw new RangeError(`Not a time: ${isoTime}`)
  return new Date(Math.floor(millis / 1000) * 1000 - 1000).toISOString().replace('.000Z', 'Z')
}
