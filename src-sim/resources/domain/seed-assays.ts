import type { Database } from 'better-sqlite3'
import type { SeedContext, SeededBatch } from '../../core/module.ts'
import type { Random } from '../../core/random.ts'
import { DOSE_RESPONSE_MODELS } from '../../pure/dose-response-models.ts'
import { plateFormat } from '../../pure/well-positions.ts'
import {
  insertDetailRow,
  insertDoseResponseProtocol,
  insertProtocol,
  insertReadoutDefinition,
  insertRun,
  type DoseResponseProtocol,
} from './assay-builder.ts'
import { refreshDoseResponse } from './dose-response-engine.ts'
import type { ReadoutCell } from './readout-store.ts'

/**
 * The demo vault's assay data: dose-response protocols whose runs put 20 compounds at 8
 * concentrations in duplicate on a 384-well plate beside 16 negative (DMSO) and 16 positive
 * controls, a solubility protocol with < and > qualifiers, and a confidential panel. Curves are
 * drawn from a Hill model with noise; some points are flagged outliers, some cells carry notes,
 * some compounds are inactive (their IC50 is '> 30') or very potent ('< 0.0137').
 */

const DAY = 86_400
/** Threefold dilution series from 30 µM. */
const CONCENTRATIONS = Array.from({ length: 8 }, (_, step) =>
  Number((30 / 3 ** step).toPrecision(3)),
)
const COMPOUNDS_PER_RUN = 20
const MAX_SIGNAL = 200_000
const PEOPLE = ['R. Franklin', 'A. Lovelace', 'S. Tanaka', 'K. Lonsdale']

export interface SeededAssays {
  kinase: DoseResponseProtocol
  gpcr: DoseResponseProtocol
  solubilityProtocolId: number
  plateIds: number[]
  runIds: number[]
}

export function seedAssays(seed: SeedContext): SeededAssays {
  const { db, cast, random, now } = seed
  const main = cast.vaults.main.id
  const owner = cast.users.writer.id
  const inProject = (projectId: number): SeededBatch[] =>
    seed.batches.filter((batch) => batch.vaultId === main && batch.projectIds.includes(projectId))

  const kinase = insertDoseResponseProtocol(db, {
    vaultId: main,
    name: 'Kinase IC50 (ADP-Glo)',
    description: 'ADP-Glo luminescence, 1 h at 25 °C, Km ATP',
    category: 'Biochemical',
    ownerId: owner,
    projectIds: [cast.projects.kinase.id],
    fields: { 'Assay Format': 'biochemical', Target: 'EGFR', 'ATP Concentration (uM)': '10' },
    minimumActivity: { min: -15, max: 15 },
    at: now - 300 * DAY,
  })
  const gpcr = insertDoseResponseProtocol(db, {
    vaultId: main,
    name: 'GPCR Radioligand Displacement',
    description: '[3H]-ligand displacement on membrane preparations',
    category: 'Binding',
    ownerId: owner,
    projectIds: [cast.projects.gpcr.id],
    fields: { 'Assay Format': 'biochemical', Target: 'D2R' },
    minimumActivity: { min: -15, max: 15 },
    at: now - 280 * DAY,
  })
  const plateIds: number[] = []
  const runIds: number[] = []
  const doseRuns: [DoseResponseProtocol, number, number][] = [
    [kinase, cast.projects.kinase.id, 120],
    [kinase, cast.projects.kinase.id, 60],
    [kinase, cast.projects.kinase.id, 12],
    [gpcr, cast.projects.gpcr.id, 90],
    [gpcr, cast.projects.gpcr.id, 30],
  ]
  for (const [index, [protocol, projectId, daysAgo]] of doseRuns.entries()) {
    const batches = pick(random, inProject(projectId), COMPOUNDS_PER_RUN)
    const { runId, plateId } = seedDoseResponseRun(db, random, {
      vaultId: main,
      projectId,
      protocol,
      batches,
      runDate: dayOf(now - daysAgo * DAY),
      plateName: `${protocol === kinase ? 'KIN' : 'GPCR'}-P${String(index + 1).padStart(3, '0')}`,
      ownerId: owner,
    })
    runIds.push(runId)
    plateIds.push(plateId)
  }
  for (const protocol of [kinase, gpcr]) {
    seedControlLayout(db, { vaultId: main, protocolId: protocol.protocolId, at: now - 250 * DAY })
    refreshDoseResponse(db, now, protocol.protocolId)
  }
  seedControlLayout(db, {
    vaultId: main,
    runId: runIds[2]!,
    plateId: plateIds[2]!,
    at: now - 12 * DAY,
  })
  const solubilityProtocolId = seedSolubility(seed, [
    ...pick(random, inProject(cast.projects.kinase.id), 12),
    ...pick(random, inProject(cast.projects.gpcr.id), 12),
  ])
  seedConfidentialPanel(seed, inProject(cast.projects.confidential.id))
  return { kinase, gpcr, solubilityProtocolId, plateIds, runIds }
}

interface DoseResponseRunPlan {
  vaultId: number
  projectId: number
  protocol: DoseResponseProtocol
  batches: readonly SeededBatch[]
  runDate: number
  plateName: string
  ownerId: number
}

/**
 * One 384-well plate: column 1 negative controls, column 2 positive controls, then each compound
 * at 8 concentrations in duplicate, filled down the columns.
 */
function seedDoseResponseRun(
  db: Database,
  random: Random,
  plan: DoseResponseRunPlan,
): { runId: number; plateId: number } {
  const at = plan.runDate + 17 * 3600
  const format = plateFormat(384)!
  const runId = insertRun(db, {
    vaultId: plan.vaultId,
    protocolId: plan.protocol.protocolId,
    projectId: plan.projectId,
    runDate: plan.runDate,
    person: random.pick(PEOPLE),
    place: random.pick(['Lab 2.14', 'Lab 3.02', 'HTS core']),
    conditions: `ATP ${random.pick([10, 25, 50])} uM, 1% DMSO`,
    at,
  })
  const plateId = Number(
    db
      .prepare(
        `INSERT INTO plates (vault_id, name, location, concentration, volume, size, owner_id, created_at, modified_at)
         VALUES (?, ?, ?, ?, ?, 384, ?, ?, ?)`,
      )
      .run(
        plan.vaultId,
        plan.plateName,
        'Assay plate stack',
        10,
        20,
        plan.ownerId,
        at - 3600,
        at - 3600,
      ).lastInsertRowid,
  )
  db.prepare(`INSERT INTO plate_projects (plate_id, project_id) VALUES (?, ?)`).run(
    plateId,
    plan.projectId,
  )
  const { concentrationId, responseId, signalId, commentId } = plan.protocol
  const insertWell = db.prepare(
    `INSERT INTO plate_wells (plate_id, row, col, batch_id) VALUES (?, ?, ?, ?)`,
  )
  for (const [col, state, inhibition] of [
    [1, '-', 0],
    [2, '+', 100],
  ] as const) {
    for (let row = 1; row <= format.rows; row += 1) {
      const measured = inhibition + random.gaussian(0, 3)
      insertDetailRow(db, {
        vaultId: plan.vaultId,
        protocolId: plan.protocol.protocolId,
        runId,
        batchId: null,
        plateId,
        well: { row, col },
        controlState: state,
        cells: {
          [responseId]: { value: round(measured, 1) },
          [signalId]: {
            value: Math.round(MAX_SIGNAL * (1 - measured / 100) + random.gaussian(0, 4000)),
          },
        },
        at,
      })
    }
  }
  let well = 0
  for (const batch of plan.batches) {
    const curve = drawCurve(random)
    for (const concentration of CONCENTRATIONS) {
      for (let replicate = 0; replicate < 2; replicate += 1) {
        const position = { row: (well % format.rows) + 1, col: Math.floor(well / format.rows) + 3 }
        well += 1
        const outlier = random.chance(0.025)
        const inhibition = curve(concentration) + random.gaussian(0, 3.5) + (outlier ? 45 : 0)
        const cells: Record<number, ReadoutCell> = {
          [concentrationId]: { value: concentration },
          [responseId]: {
            value: round(inhibition, 1),
            ...(outlier ? { outlier: true, note: 'pipetting error' } : {}),
          },
          [signalId]: {
            value: Math.round(MAX_SIGNAL * (1 - inhibition / 100) + random.gaussian(0, 4000)),
          },
        }
        if (concentration === CONCENTRATIONS[0] && random.chance(0.15)) {
          cells[commentId] = { value: 'precipitate at top concentration' }
        }
        insertDetailRow(db, {
          vaultId: plan.vaultId,
          protocolId: plan.protocol.protocolId,
          runId,
          batchId: batch.id,
          plateId,
          well: position,
          cells,
          at,
        })
        insertWell.run(plateId, position.row, position.col, batch.id)
      }
    }
  }
  return { runId, plateId }
}

/** A compound's % inhibition curve: mostly Hill curves, some inactive, some very potent. */
function drawCurve(random: Random): (x: number) => number {
  const kind = random.next()
  const ic50 = kind < 0.12 ? 5000 : kind < 0.2 ? 0.002 : Math.pow(10, between(random, -1.8, 1.3))
  const parameters = {
    min: random.gaussian(2, 2),
    max: random.gaussian(98, 2),
    slope: between(random, 0.8, 1.6),
    ic50,
  }
  return (x) => DOSE_RESPONSE_MODELS.Hill.evaluate(x, parameters)
}

function seedControlLayout(
  db: Database,
  layout: { vaultId: number; protocolId?: number; runId?: number; plateId?: number; at: number },
): void {
  const id = Number(
    db
      .prepare(
        `INSERT INTO control_layouts (vault_id, protocol_id, run_id, plate_id, size, created_at, modified_at)
         VALUES (?, ?, ?, ?, 384, ?, ?)`,
      )
      .run(
        layout.vaultId,
        layout.protocolId ?? null,
        layout.runId ?? null,
        layout.plateId ?? null,
        layout.at,
        layout.at,
      ).lastInsertRowid,
  )
  const insert = db.prepare(
    `INSERT INTO control_layout_wells (layout_id, row, col, control_state) VALUES (?, ?, ?, ?)`,
  )
  for (let row = 1; row <= 16; row += 1) {
    insert.run(id, row, 1, '-')
    insert.run(id, row, 2, row === 16 ? '#' : '+')
  }
}

/** Kinetic solubility with the instrument's limits written as qualifiers. */
function seedSolubility(seed: SeedContext, batches: readonly SeededBatch[]): number {
  const { db, cast, random, now } = seed
  const protocolId = insertProtocol(db, {
    vaultId: cast.vaults.main.id,
    name: 'Kinetic Solubility (PBS pH 7.4)',
    description: 'Nephelometry, 2 h shake, 1% DMSO',
    category: 'ADME',
    ownerId: cast.users.admin.id,
    projectIds: [cast.projects.kinase.id, cast.projects.gpcr.id],
    fields: { 'Assay Format': 'physicochemical' },
    at: now - 200 * DAY,
  })
  const solubilityId = insertReadoutDefinition(db, protocolId, {
    name: 'Solubility',
    dataType: 'Number',
    role: 'measured',
    unit: 'uM',
    precision: 1,
  })
  const methodId = insertReadoutDefinition(db, protocolId, {
    name: 'Method',
    dataType: 'Text',
    role: 'measured',
  })
  for (const [projectKey, daysAgo] of [
    ['kinase', 45],
    ['gpcr', 40],
  ] as const) {
    const projectId = cast.projects[projectKey].id
    const runDate = dayOf(now - daysAgo * DAY)
    const runId = insertRun(db, {
      vaultId: cast.vaults.main.id,
      protocolId,
      projectId,
      runDate,
      person: random.pick(PEOPLE),
      place: 'ADME lab',
      conditions: 'PBS pH 7.4, 25 °C',
      at: runDate + 15 * 3600,
    })
    for (const batch of batches.filter((candidate) => candidate.projectIds.includes(projectId))) {
      const solubility = Math.pow(10, between(random, -0.5, 2.6))
      const cell: ReadoutCell =
        solubility > 200
          ? { value: 200, modifier: '>' }
          : solubility < 1
            ? { value: 1, modifier: '<', note: 'below the limit of quantification' }
            : { value: round(solubility, 1) }
      insertDetailRow(db, {
        vaultId: cast.vaults.main.id,
        protocolId,
        runId,
        batchId: batch.id,
        cells: { [solubilityId]: cell, [methodId]: { value: 'nephelometry' } },
        at: runDate + 15 * 3600,
      })
    }
  }
  return protocolId
}

function seedConfidentialPanel(seed: SeedContext, batches: readonly SeededBatch[]): void {
  const { db, cast, random, now } = seed
  if (batches.length === 0) return
  const panel = insertDoseResponseProtocol(db, {
    vaultId: cast.vaults.main.id,
    name: 'Partner Selectivity Panel',
    description: 'Confidential partner kinase panel',
    category: 'Selectivity',
    ownerId: cast.users.admin.id,
    projectIds: [cast.projects.confidential.id],
    at: now - 100 * DAY,
  })
  seedDoseResponseRun(db, random, {
    vaultId: cast.vaults.main.id,
    projectId: cast.projects.confidential.id,
    protocol: panel,
    batches: pick(random, batches, 8),
    runDate: dayOf(now - 20 * DAY),
    plateName: 'PARTNER-P001',
    ownerId: cast.users.admin.id,
  })
  refreshDoseResponse(db, now, panel.protocolId)
}

function pick<T>(random: Random, items: readonly T[], count: number): T[] {
  const pool = [...items]
  const chosen: T[] = []
  while (chosen.length < count && pool.length > 0)
    chosen.push(pool.splice(random.integer(0, pool.length - 1), 1)[0]!)
  return chosen
}

function between(random: Random, low: number, high: number): number {
  return low + random.next() * (high - low)
}

function dayOf(seconds: number): number {
  return seconds - (seconds % DAY)
}

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits))
}
