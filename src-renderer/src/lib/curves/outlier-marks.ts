/**
 * Marking a curve's point as an outlier, or taking the mark back, from its panel: the same queued
 * readout correction (`readout.update`) as the correction dialog queues, based on the row as the
 * cache holds it (so that a change by someone else meanwhile is a conflict to resolve, not a
 * silent overwrite). Main lays the waiting correction over the cache at once, so the curve is
 * refitted without the point in the next answer.
 */
import type { CurveCalculation } from '../../../../src-main/ipc/contract.ts'
import type { ReadoutCorrection } from '../../../../src-common/outbox/payloads/readout-rows.ts'
import { toText } from '../../../../src-common/values.ts'
import { announce, type RecordDesk } from '../state/record-desk.ts'
import type { PanelPoint } from './curve-plot.ts'

/**
 * The correction that marks (or unmarks) a point: the response readout's flag. Taking a mark back
 * clears the concentration's flag too, since a point is an outlier when either cell is.
 */
export function outlierCorrection(
  point: Pick<PanelPoint, 'rowId' | 'response' | 'responseModifier'>,
  calculation: Pick<CurveCalculation, 'response' | 'concentration'> | null,
  outlier: boolean,
): { ok: true; payload: ReadoutCorrection } | { ok: false; message: string } {
  const response = calculation?.response?.definitionId
  if (response === undefined) {
    return { ok: false, message: 'The calculation names no response readout to flag.' }
  }
  if (outlier && (point.response === null || point.responseModifier !== null)) {
    return {
      ok: false,
      message: 'Only a measured number can be an outlier; this response is text or qualified.',
    }
  }
  const readouts: ReadoutCorrection['readouts'] = { [String(response)]: { outlier } }
  const concentration = calculation?.concentration?.definitionId
  if (!outlier && concentration !== undefined && concentration !== response) {
    readouts[String(concentration)] = { outlier: false }
  }
  return { ok: true, payload: { row: point.rowId, readouts } }
}

/** Queues the mark and announces it; throws with the reason when it could not be queued. */
export async function queueOutlierMark(
  desk: RecordDesk,
  point: PanelPoint,
  calculation: CurveCalculation | null,
  outlier: boolean,
): Promise<void> {
  const correction = outlierCorrection(point, calculation, outlier)
  if (!correction.ok) throw new Error(correction.message)
  const { session, connectionId, vaultId } = desk
  const row = await session.bridge.invoke('records.get', {
    connectionId,
    vaultId,
    kind: 'readout_rows',
    id: point.rowId,
  })
  const modifiedAt = row.ok ? toText(row.value?.record.json.modified_at) : null
  const result = await session.outbox.queue({
    connectionId,
    vaultId,
    operation: 'readout.update',
    payload: correction.payload,
    ...(modifiedAt ? { baseModifiedAt: modifiedAt } : {}),
  })
  const where = point.well ? `well ${point.well}` : `readout row ${point.rowId}`
  const what = outlier ? `${where} marked as an outlier` : `${where} no longer an outlier`
  if (!announce(desk, result, what) && !result.ok) throw new Error(result.error.message)
}
