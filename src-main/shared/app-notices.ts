/**
 * What the window must tell the person and keep telling until they dismiss it: things that
 * happened before any window listened (an outbox repaired at the start, by the app or the CLI)
 * or that last (another process holds the data folder). A window asks for the list when it
 * starts and follows `notices.changed` after.
 */
export interface AppNotice {
  /** Stable while what it tells lasts: dismissing it is by this id. */
  id: string
  kind: 'outbox-repaired' | 'cache-rebuilt' | 'data-folder-held'
  severity: 'warning' | 'error'
  /** One line: what happened. */
  title: string
  /** What happened, in full: counts, who, since when. */
  details: string
  /** What the person can do about it. */
  advice: string
  /** The file it is about (the damaged copy kept aside, the lock file), in full; else null. */
  path: string | null
  /** When it happened (ISO). */
  at: string
}
