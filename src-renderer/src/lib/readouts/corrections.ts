/**
 * A correction of one readout row, as its dialog edits it: each readout's value and outlier flag
 * (the only members the vault lets change), and the payload of the changes made.
 */
import type { ReadoutCell } from './readout-cell.ts'
import type { ReadoutDefinition } from './readout-rows.ts'

export interface CellEdit {
  value: string
  outlier: boolean
}

/** What the form starts from: the value as typed (no rounding), the flag as it is. */
export function editOf(cell: ReadoutCell | null | undefined): CellEdit {
  return {
    value: cell?.value === null || !cell ? '' : String(cell.value),
    outlier: cell?.outlier ?? false,
  }
}

export type CellChange = { value?: number | string | null; outlier?: boolean }

/**
 * The changed readouts, keyed by definition id, or what is wrong with the edits. An emptied
 * value clears it; a numeric readout takes numbers only; only a numeric value can be an outlier.
 */
export function readoutChanges(
  definitions: readonly ReadoutDefinition[],
  cells: ReadonlyMap<number, ReadoutCell>,
  edits: ReadonlyMap<number, CellEdit>,
): { ok: true; readouts: Record<string, CellChange> } | { ok: false; message: string } {
  const readouts: Record<string, CellChange> = {}
  for (const definition of definitions) {
    const edit = edits.get(definition.id)
    if (!edit) continue
    const before = editOf(cells.get(definition.id))
    const change: CellChange = {}
    const typed = edit.value.trim()
    if (typed !== before.value.trim()) {
      if (typed === '') change.value = null
      else if (definition.text) change.value = typed
      else {
        const number = Number(typed.replace(/\s/g, ''))
        if (!Number.isFinite(number)) {
          return { ok: false, message: `${definition.name} takes a number, not “${typed}”.` }
        }
        change.value = number
      }
    }
    if (edit.outlier !== before.outlier) {
      if (edit.outlier && (definition.text || typed === '')) {
        return {
          ok: false,
          message: `${definition.name} cannot be an outlier: only a numeric value can.`,
        }
      }
      change.outlier = edit.outlier
    }
    if (Object.keys(change).length > 0) readouts[String(definition.id)] = change
  }
  if (Object.keys(readouts).length === 0) return { ok: false, message: 'Nothing was changed.' }
  return { ok: true, readouts }
}
