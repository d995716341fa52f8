import {
  anything,
  arrayOf,
  boolean,
  idOr,
  integer,
  mapOf,
  object,
  optional,
  string,
  ShapeError,
  timestamp,
  type Infer,
  type Parser,
} from '../shape.ts'
import { reference } from './common.ts'

/**
 * Protocols, runs and readout rows refer to each other, so their shapes live together here and
 * are used by the protocol, run and readout row modules.
 */
const readoutDefinition = object({
  id: integer,
  name: optional(string),
  data_type: optional(string),
  unit_label: optional(string),
  precision: optional(integer),
  aggregation: optional(string),
})
export type ReadoutDefinition = Infer<typeof readoutDefinition>

export const run = object({
  id: integer,
  class: optional(string),
  run_date: optional(timestamp),
  person: optional(string),
  place: optional(string),
  conditions: optional(string),
  protocol: optional(idOr(reference)),
  project: optional(reference),
  project_id: optional(integer),
  slurp: optional(idOr(anything)),
  plate_statistics: optional(anything),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
})
export type Run = Infer<typeof run>

export const protocol = object({
  id: integer,
  class: optional(string),
  name: optional(string),
  description: optional(string),
  category: optional(string),
  data_set: optional(reference),
  projects: optional(arrayOf(reference)),
  owner: optional(string),
  protocol_fields: optional(mapOf(anything)),
  readout_definitions: optional(arrayOf(readoutDefinition)),
  calculations: optional(arrayOf(anything)),
  runs: optional(arrayOf(run)),
  /** Averages come as formatted strings ("967E-06"), kept as sent. */
  protocol_statistics: optional(arrayOf(anything)),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
})
export type Protocol = Infer<typeof protocol>

const readoutCellObject = object({
  value: optional(anything),
  modifier: optional(string),
  outlier: optional(boolean),
  note: optional(string),
})

/**
 * One readout: a value (number or text) with an optional modifier, outlier flag and note; or,
 * as real vaults send cells that have only a value (protocol data), that value bare: `12`,
 * `"1.20E+2"`, `">30000"`, `"ND"`. Cells are read into typed values by
 * `src-common/analysis/readouts/readout-value.ts`.
 */
export type ReadoutCell = Infer<typeof readoutCellObject> | number | string | boolean

const readoutCell: Parser<ReadoutCell> = (value) =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? readoutCellObject(value)
    : scalarCell(value)

function scalarCell(value: unknown): number | string | boolean {
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') {
    return value
  }
  throw new ShapeError('a readout cell (an object, a number or text)', value)
}

/** Detail and aggregate rows; control-well rows have no molecule or batch. */
export const readoutRow = object({
  id: integer,
  class: optional(string),
  type: optional(string),
  molecule: optional(idOr(anything)),
  batch: optional(idOr(anything)),
  run: optional(idOr(object({ id: integer, run_date: optional(timestamp) }))),
  protocol: optional(idOr(anything)),
  plate: optional(idOr(anything)),
  well: optional(anything),
  control_state: optional(string),
  /** Keyed by readout definition id. */
  readouts: optional(mapOf(readoutCell)),
})
export type ReadoutRow = Infer<typeof readoutRow>
