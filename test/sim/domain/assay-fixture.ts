import type { VaultSim } from '../../../src-sim/index.ts'
import { DOSE_RESPONSE_MODELS } from '../../../src-sim/pure/dose-response-models.ts'
import {
  insertDetailRow,
  insertDoseResponseProtocol,
  insertRun,
  type DoseResponseProtocol,
} from '../../../src-sim/resources/domain/assay-builder.ts'
import { refreshDoseResponse } from '../../../src-sim/resources/domain/dose-response-engine.ts'

/**
 * Known assay data for the conformance suites. The API cannot create protocols, so suites build
 * them with the same builder as the demo seed, on a simulator seeded with a few molecules.
 */

export const DAY = 86_400
/** Threefold dilutions from 30 µM, as the demo seed uses. */
export const CONCENTRATIONS = [30, 10, 3.33, 1.11, 0.37, 0.123, 0.0412, 0.0137]

export interface SeedBatch {
  id: number
  moleculeId: number
  projectId: number
}

/** The main vault's batches in a project, oldest first. */
export function batchesIn(sim: VaultSim, projectId: number): SeedBatch[] {
  return sim.core.db
    .prepare(
      `SELECT batches.id, batches.molecule_id AS moleculeId, batch_projects.project_id AS projectId
       FROM batches JOIN batch_projects ON batch_projects.batch_id = batches.id
       WHERE batches.vault_id = ? AND batch_projects.project_id = ? ORDER BY batches.id`,
    )
    .all(sim.cast.vaults.main.id, projectId) as SeedBatch[]
}

export interface CurveSpec {
  batchId: number
  /** Inhibition follows a Hill curve from 0 to 100 % with this IC50 (µM) and slope 1. */
  ic50: number
}

export interface DoseResponseFixture extends DoseResponseProtocol {
  runId: number
  plateId: number
}

/**
 * A dose-response protocol in one project with one run on a 96-well plate: 4 negative and 4
 * positive control wells, and each curve at 8 concentrations in duplicate without noise.
 */
export function buildDoseResponse(
  sim: VaultSim,
  options: { projectId: number; name: string; curves: CurveSpec[]; runDaysAgo?: number },
): DoseResponseFixture {
  const db = sim.core.db
  const now = sim.clock.nowSeconds()
  const vaultId = sim.cast.vaults.main.id
  const protocol = insertDoseResponseProtocol(db, {
    vaultId,
    name: options.name,
    ownerId: sim.cast.users.writer.id,
    projectIds: [options.projectId],
    at: now - 10 * DAY,
  })
  const runDate = now - (now % DAY) - (options.runDaysAgo ?? 5) * DAY
  const runId = insertRun(db, {
    vaultId,
    protocolId: protocol.protocolId,
    projectId: options.projectId,
    runDate,
    person: 'R. Franklin',
    at: now - DAY,
  })
  const plateId = Number(
    db
      .prepare(
        `INSERT INTO plates (vault_id, name, size, owner_id, created_at, modified_at) VALUES (?, ?, 96, ?, ?, ?)`,
      )
      .run(vaultId, `${options.name} plate`, sim.cast.users.writer.id, now, now).lastInsertRowid,
  )
  db.prepare(`INSERT INTO plate_projects (plate_id, project_id) VALUES (?, ?)`).run(
    plateId,
    options.projectId,
  )
  for (let row = 1; row <= 4; row += 1) {
    for (const [col, state, value] of [
      [1, '-', 1],
      [2, '+', 99],
    ] as const) {
      insertDetailRow(db, {
        vaultId,
        protocolId: protocol.protocolId,
        runId,
        batchId: null,
        plateId,
        well: { row, col },
        controlState: state,
        cells: { [protocol.responseId]: { value: value + (row % 2 === 0 ? 1 : -1) } },
        at: now - DAY,
      })
    }
  }
  let well = 0
  for (const curve of options.curves) {
    for (const concentration of CONCENTRATIONS) {
      for (let replicate = 0; replicate < 2; replicate += 1) {
        const inhibition = DOSE_RESPONSE_MODELS.Hill.evaluate(concentration, {
          min: 0,
          max: 100,
          slope: 1,
          ic50: curve.ic50,
        })
        insertDetailRow(db, {
          vaultId,
          protocolId: protocol.protocolId,
          runId,
          batchId: curve.batchId,
          plateId,
          well: { row: (well % 8) + 1, col: Math.floor(well / 8) + 3 },
          cells: {
            [protocol.concentrationId]: { value: concentration },
            [protocol.responseId]: { value: Number(inhibition.toFixed(3)) },
          },
          at: now - DAY,
        })
        well += 1
      }
    }
  }
  refreshDoseResponse(db, now, protocol.protocolId)
  return { ...protocol, runId, plateId }
}

/** Numbers in answers are numbers; this narrows one for arithmetic in assertions. */
export function numberOf(value: unknown): number {
  if (typeof value !== 'number') throw new Error(`Expected a number, got ${JSON.stringify(value)}`)
  return value
}
