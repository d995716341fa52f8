import type { PendingReadoutRow } from '../store/curve-queries.ts'
import type { Outbox } from '../sync/outbox/outbox.ts'

/**
 * Readout rows with corrections waiting in the outbox (a well marked as an outlier), as their
 * cached copies with the corrections applied: what curves and plate quality lay over the index.
 */
export function pendingReadoutRows(
  outbox: Outbox | null | undefined,
  connectionId: string,
  vaultId: number,
): PendingReadoutRow[] {
  if (!outbox) return []
  return outbox
    .pendingList(connectionId, vaultId, 'readout_rows')
    .flatMap(({ id, record, state, itemIds }) =>
      id === null ? [] : [{ rowId: id, record, state, itemIds }],
    )
}
