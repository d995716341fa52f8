/**
 * A readout row as aggregates and criteria use it, read from the record the vault sent:
 * `{id, type ("detail row" | "aggregate row"), molecule, batch, run {id, run_date}, protocol,
 * control_state?, readouts {definition id: cell}}`. Links may be bare ids or `{id}` objects and
 * ids may be strings; a control well has no molecule or batch. Each cell is read with its
 * definition's data type and unit (`readReadoutCell`).
 */
import { isObject, toId, toLinkId, toText } from '../../values.ts'
import type { AggregatableRow } from './aggregates.ts'
import { readReadoutCell, type CellContext, type ReadCell } from './readout-value.ts'

export interface ResultRow extends AggregatableRow {
  id: number | null
  runId: number | null
  /** As given: "2024-03-05" or a timestamp; null when the vault did not say. */
  runDate: string | null
}

/** Reads a readout row record; null when it is not an object. */
export function readResultRow(
  raw: unknown,
  definitionContext: (definitionId: number) => CellContext | undefined = () => undefined,
): ResultRow | null {
  if (!isObject(raw)) return null
  const run = raw.run
  const cells = new Map<number, ReadCell>()
  if (isObject(raw.readouts)) {
    for (const [key, cell] of Object.entries(raw.readouts)) {
      const definitionId = toId(key)
      if (definitionId !== null) {
        cells.set(definitionId, readReadoutCell(cell, definitionContext(definitionId)))
      }
    }
  }
  const control = toText(raw.control_state)?.trim() ?? null
  return {
    id: toId(raw.id),
    protocolId: toLinkId(raw.protocol),
    runId: toLinkId(run),
    runDate: toText(isObject(run) ? run.run_date : raw.run_date),
    batchId: toLinkId(raw.batch),
    moleculeId: toLinkId(raw.molecule),
    aggregateRow: typeof raw.type === 'string' && /aggregate/i.test(raw.type),
    controlState: control === '' ? null : control,
    cells,
  }
}
