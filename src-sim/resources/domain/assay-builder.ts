import type { Database } from 'better-sqlite3'
import type { EquationType } from '../../pure/dose-response-models.ts'
import { writeCell, type ReadoutCell } from './readout-store.ts'

/**
 * Inserts protocols, runs and readout rows directly: the API has no operation that creates a
 * protocol, so the demo seed and the conformance suites build their assay data with these.
 */

export interface NewProtocol {
  vaultId: number
  name: string
  description?: string
  category?: string
  ownerId: number
  projectIds: readonly number[]
  dataSetId?: number
  fields?: Record<string, string>
  at: number
}

export function insertProtocol(db: Database, protocol: NewProtocol): number {
  const id = Number(
    db
      .prepare(
        `INSERT INTO protocols (vault_id, name, description, category, data_set_id, owner_id, created_at, modified_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        protocol.vaultId,
        protocol.name,
        protocol.description ?? '',
        protocol.category ?? '',
        protocol.dataSetId ?? null,
        protocol.ownerId,
        protocol.at,
        protocol.at,
      ).lastInsertRowid,
  )
  const share = db.prepare(`INSERT INTO protocol_projects (protocol_id, project_id) VALUES (?, ?)`)
  for (const projectId of protocol.projectIds) share.run(id, projectId)
  const field = db.prepare(
    `INSERT INTO protocol_field_values (protocol_id, name, value) VALUES (?, ?, ?)`,
  )
  for (const [name, value] of Object.entries(protocol.fields ?? {})) field.run(id, name, value)
  return id
}

export interface NewReadoutDefinition {
  name: string
  dataType: 'Number' | 'Text'
  role: 'concentration' | 'measured' | 'calculated'
  unit?: string
  precision?: number
  aggregation?: string
}

export function insertReadoutDefinition(
  db: Database,
  protocolId: number,
  definition: NewReadoutDefinition,
): number {
  const position = db
    .prepare(`SELECT COUNT(*) AS count FROM readout_definitions WHERE protocol_id = ?`)
    .get(protocolId) as { count: number }
  return Number(
    db
      .prepare(
        `INSERT INTO readout_definitions (protocol_id, name, data_type, unit_label, precision, aggregation, role, position)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        protocolId,
        definition.name,
        definition.dataType,
        definition.unit ?? '',
        definition.precision ?? 3,
        definition.aggregation ??
          (definition.role === 'calculated' ? 'geometric mean' : 'arithmetic mean'),
        definition.role,
        position.count,
      ).lastInsertRowid,
  )
}

export interface NewCalculation {
  protocolId: number
  name: string
  equationType: EquationType
  concentrationId: number
  responseId: number
  resultId: number
  fitParameters?: Record<string, unknown>
  minimumActivity?: { min?: number; max?: number }
  at: number
}

export function insertCalculation(db: Database, calculation: NewCalculation): number {
  return Number(
    db
      .prepare(
        `INSERT INTO dose_response_calculations (protocol_id, name, equation_type, concentration_definition_id,
           response_definition_id, result_definition_id, fit_parameters, minimum_activity, created_at, modified_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        calculation.protocolId,
        calculation.name,
        calculation.equationType,
        calculation.concentrationId,
        calculation.responseId,
        calculation.resultId,
        JSON.stringify(calculation.fitParameters ?? {}),
        JSON.stringify(calculation.minimumActivity ?? {}),
        calculation.at,
        calculation.at,
      ).lastInsertRowid,
  )
}

export interface NewRun {
  vaultId: number
  protocolId: number
  projectId: number
  /** Epoch seconds of the run day's UTC midnight. */
  runDate: number
  person?: string
  place?: string
  conditions?: string
  slurpId?: number
  at: number
}

export function insertRun(db: Database, run: NewRun): number {
  return Number(
    db
      .prepare(
        `INSERT INTO runs (vault_id, protocol_id, project_id, run_date, person, place, conditions, slurp_id, created_at, modified_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        run.vaultId,
        run.protocolId,
        run.projectId,
        run.runDate,
        run.person ?? '',
        run.place ?? '',
        run.conditions ?? '',
        run.slurpId ?? null,
        run.at,
        run.at,
      ).lastInsertRowid,
  )
}

export interface NewDetailRow {
  vaultId: number
  protocolId: number
  runId: number
  batchId: number | null
  plateId?: number
  well?: { row: number; col: number }
  controlState?: '+' | '-' | '#'
  sampleId?: number
  cells: Record<number, ReadoutCell>
  at: number
}

export function insertDetailRow(db: Database, row: NewDetailRow): number {
  const id = Number(
    db
      .prepare(
        `INSERT INTO readout_rows (vault_id, protocol_id, run_id, type, batch_id, plate_id, well_row, well_col,
           control_state, sample_id, created_at, modified_at)
         VALUES (?, ?, ?, 'detail row', ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        row.vaultId,
        row.protocolId,
        row.runId,
        row.batchId,
        row.plateId ?? null,
        row.well?.row ?? null,
        row.well?.col ?? null,
        row.controlState ?? null,
        row.sampleId ?? null,
        row.at,
        row.at,
      ).lastInsertRowid,
  )
  for (const [definitionId, cell] of Object.entries(row.cells))
    writeCell(db, id, Number(definitionId), cell)
  return id
}

export interface DoseResponseProtocol {
  protocolId: number
  concentrationId: number
  responseId: number
  signalId: number
  commentId: number
  resultId: number
  calculationId: number
}

/**
 * A dose-response protocol as assay groups set them up: concentration (µM), % inhibition, the raw
 * signal, a comment, and an IC50 calculated by a Hill fit.
 */
export function insertDoseResponseProtocol(
  db: Database,
  protocol: NewProtocol & { minimumActivity?: { min?: number; max?: number } },
): DoseResponseProtocol {
  const protocolId = insertProtocol(db, protocol)
  const concentrationId = insertReadoutDefinition(db, protocolId, {
    name: 'Concentration',
    dataType: 'Number',
    role: 'concentration',
    unit: 'uM',
    precision: 4,
  })
  const responseId = insertReadoutDefinition(db, protocolId, {
    name: '% Inhibition',
    dataType: 'Number',
    role: 'measured',
    unit: '%',
    precision: 1,
  })
  const signalId = insertReadoutDefinition(db, protocolId, {
    name: 'Signal',
    dataType: 'Number',
    role: 'measured',
    unit: 'RLU',
    precision: 0,
  })
  const commentId = insertReadoutDefinition(db, protocolId, {
    name: 'Comment',
    dataType: 'Text',
    role: 'measured',
  })
  const resultId = insertReadoutDefinition(db, protocolId, {
    name: 'IC50',
    dataType: 'Number',
    role: 'calculated',
    unit: 'uM',
    precision: 3,
  })
  const calculationId = insertCalculation(db, {
    protocolId,
    name: 'IC50',
    equationType: 'Hill',
    concentrationId,
    responseId,
    resultId,
    ...(protocol.minimumActivity ? { minimumActivity: protocol.minimumActivity } : {}),
    at: protocol.at,
  })
  return { protocolId, concentrationId, responseId, signalId, commentId, resultId, calculationId }
}
