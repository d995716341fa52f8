const minute = 60_000
const hour = 60 * minute
const day = 24 * hour

/**
 * "5 minutes ago", "yesterday", or a date once it is more than a week old. Times slightly in the
 * future (a clock that runs ahead of the vault's) read as "just now" rather than "in 2 minutes".
 */
export function relativeTime(then: Date, now: Date, locale?: string): string {
  const elapsed = now.getTime() - then.getTime()
  if (elapsed < 45_000) return 'just now'
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' })
  if (elapsed < hour) return format.format(-Math.round(elapsed / minute), 'minute')
  if (elapsed < day) return format.format(-Math.round(elapsed / hour), 'hour')
  if (elapsed < 7 * day) return format.format(-Math.round(elapsed / day), 'day')
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }).format(then)
}

/** The top bar's words for the last successful sync. */
export function describeLastSync(lastSyncAt: string | null, now: Date, locale?: string): string {
  if (lastSyncAt === null) return 'Never synced'
  const then = new Date(lastSyncAt)
  if (Number.isNaN(then.getTime())) return 'Last sync time unknown'
  return `Synced ${relativeTime(then, now, locale)}`
}
