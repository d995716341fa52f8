import type { ConnectionSyncState } from '../bridge.ts'
import { formatTimestamp } from '../../../../src-common/format/dates.ts'

/** How a connection's last sync went, in one line: "Completed 24 Jul 2026, 17:00". */
export function describeOutcome(state: ConnectionSyncState, locale?: string): string {
  if (state.running) return 'Running now'
  const when = state.finishedAt ? ` ${formatTimestamp(state.finishedAt, locale)}` : ''
  switch (state.lastOutcome) {
    case null:
      return 'Not synced yet'
    case 'completed':
      return `Completed${when}`
    case 'cancelled':
      return `Stopped${when}`
    case 'offline':
      return `Stopped${when}: the vault did not answer`
    case 'needs_token':
      return `Stopped${when}: the vault refused the token`
    case 'failed':
      return `Failed${when}${state.lastError ? `: ${state.lastError.message}` : ''}`
  }
}
