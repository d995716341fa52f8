import { invalid } from '../../core/http-error.ts'
import type { Params } from '../../core/params.ts'
import {
  isOnPlate,
  parseWellLabel,
  type PlateFormat,
  type WellPosition,
} from '../../pure/well-positions.ts'

/** Reads a well written either as `{pos: "A01"}` or as `{row, col}` (both counted from 1). */
export function readWellPosition(item: Params, format: PlateFormat, member: string): WellPosition {
  const hasPos = item.has('pos')
  const hasGrid = item.has('row') || item.has('col')
  if (hasPos === hasGrid) {
    item.ignore('pos', 'row', 'col')
    throw invalid(member, 'must give a well either as pos (such as A01) or as row and col')
  }
  if (hasPos) {
    const label = item.requiredString('pos')
    const position = parseWellLabel(label, format)
    if (!position) {
      throw invalid(
        `${member}.pos`,
        `${JSON.stringify(label)} is not a well of a ${format.size}-well plate`,
      )
    }
    return position
  }
  const position = { row: item.requiredInteger('row'), col: item.requiredInteger('col') }
  if (!isOnPlate(position, format)) {
    throw invalid(
      member,
      `row ${position.row}, col ${position.col} is not a well of a ${format.size}-well plate ` +
        `(${format.rows} rows, ${format.columns} columns)`,
    )
  }
  return position
}
