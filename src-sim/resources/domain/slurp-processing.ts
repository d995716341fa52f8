import type { Database } from 'better-sqlite3'
import { ChemistryError, type Chemistry } from '../../chem/chemistry.ts'
import type { VaultAccess } from '../../core/sim-core.ts'
import { HttpError } from '../../core/http-error.ts'
import { insertBatch } from '../batches/batch-store.ts'
import { checkFieldValues, mergeFieldValues } from '../fields.ts'
import type { FieldValue } from '../fields.ts'
import { insertMolecule } from '../molecules/molecule-store.ts'
import { refreshDoseResponse } from './dose-response-engine.ts'
import { readoutDefinitionsOf, type ReadoutDefinitionRow } from './protocols.ts'
import { writeCell, type ReadoutCell } from './readout-store.ts'
import type { SlurpOptions } from './slurp-options.ts'
import { readImportFile, type ImportFormat, type ImportRecord } from './slurp-reader.ts'
import type { SlurpEvent } from './slurp-store.ts'

/**
 * Processing and committing a slurp. Processing reads the file and plans every record: its
 * structure, whether it adds a batch to an existing molecule or registers a new one, and its
 * readouts; it raises ambiguous events (the structure is already registered), suspicious events
 * (a name registered with another structure, an implausible readout) and import errors.
 * Committing carries the plan out: molecules, batches, runs and readout rows.
 */

export interface PlannedRecord {
  record: number
  structure: string
  smiles: string
  name: string | null
  synonyms: string[]
  moleculeFields: Record<string, FieldValue>
  batchFields: Record<string, FieldValue>
  batchName: string | null
  runIndex: number
  readouts: { definitionId: number; cell: ReadoutCell }[]
  /** Set when the record adds a batch to this registered molecule. */
  existingMoleculeId: number | null
  /** A new molecule whose name is taken by a different structure gets a suffixed name. */
  renamed: boolean
}

export interface SlurpPlan {
  records: PlannedRecord[]
  events: SlurpEvent[]
  outcome: 'commit' | 'await review' | 'rejected' | 'invalid'
}

export interface SlurpSummary {
  records: number
  records_skipped: number
  molecules_created: number
  molecules_matched: number
  batches_created: number
  runs_created: number
  readout_rows_created: number
  runs: number[]
}

const STRUCTURE_HEADERS = ['smiles', 'structure', 'molfile']

export function planSlurp(
  access: VaultAccess,
  chem: Chemistry,
  slurp: { id: number; file_format: ImportFormat; contents: Buffer },
  options: SlurpOptions,
): SlurpPlan {
  const events: SlurpEvent[] = []
  const error = (record: number, message: string): void => {
    events.push({ kind: 'error', record, message, resolution: null })
  }
  let file
  try {
    file = readImportFile(slurp.file_format, slurp.contents)
  } catch (problem) {
    error(0, `the file cannot be read: ${(problem as Error).message}`)
    return { records: [], events, outcome: 'invalid' }
  }
  for (const unreadable of file.errors) error(unreadable.record, unreadable.message)
  // A table's header row names its columns, so a mapped column it lacks means the wrong
  // template; SD data items vary from record to record, so a missing one just fills nothing.
  const missing =
    slurp.file_format === 'sdf'
      ? []
      : options.columns.filter((column) => !file.headers.includes(column.header))
  for (const column of missing)
    error(0, `the file has no column '${column.header}', which the mapping template maps`)
  if (missing.length > 0) return { records: [], events, outcome: 'invalid' }

  const structureHeader =
    options.columns.find((column) => column.target.role === 'structure')?.header ??
    file.headers.find((header) => STRUCTURE_HEADERS.includes(header.toLowerCase()))
  const definitions = new Map(
    (options.protocolId === null ? [] : readoutDefinitionsOf(access.db, options.protocolId)).map(
      (d) => [d.id, d],
    ),
  )
  const runHeader = file.headers.find((header) => header.toLowerCase() === 'run')
  const records: PlannedRecord[] = []
  for (const record of file.records) {
    const planned = planRecord(
      access,
      chem,
      record,
      options,
      structureHeader,
      runHeader,
      definitions,
      events,
      slurp.id,
    )
    if (planned) records.push(planned)
  }
  if (file.records.length === 0 && file.errors.length === 0) error(0, 'the file holds no records')

  const errors = events.filter((event) => event.kind === 'error')
  const pending = events.filter((event) => event.kind !== 'error')
  let outcome: SlurpPlan['outcome'] = 'commit'
  if (errors.length > 0 && !options.ignoreErrors) outcome = 'invalid'
  else if (records.length === 0) outcome = 'invalid'
  else if (pending.some((event) => event.resolution === 'reject')) outcome = 'rejected'
  else if (pending.some((event) => event.resolution === 'none'))
    outcome = options.autoreject ? 'rejected' : 'await review'
  return { records, events, outcome }
}

function planRecord(
  access: VaultAccess,
  chem: Chemistry,
  record: ImportRecord,
  options: SlurpOptions,
  structureHeader: string | undefined,
  runHeader: string | undefined,
  definitions: Map<number, ReadoutDefinitionRow>,
  events: SlurpEvent[],
  slurpId: number,
): PlannedRecord | undefined {
  const number = record.number
  const fail = (message: string): undefined => {
    events.push({ kind: 'error', record: number, message, resolution: null })
    return undefined
  }
  const structure =
    record.molblock ?? (structureHeader ? record.values[structureHeader]?.trim() : undefined)
  if (!structure) return fail('the record has no structure (an SD molblock or a SMILES column)')
  let smiles: string
  try {
    smiles = chem.canonicalSmiles(structure)
  } catch (problem) {
    if (problem instanceof ChemistryError) return fail(problem.message)
    throw problem
  }
  const text = (role: string): string | null => {
    const column = options.columns.find((candidate) => candidate.target.role === role)
    const value = column ? record.values[column.header]?.trim() : undefined
    return value ? value : null
  }
  const fieldsFor = (role: 'molecule field' | 'batch field'): Record<string, unknown> =>
    Object.fromEntries(
      options.columns.flatMap((column) =>
        column.target.role === role && record.values[column.header]?.trim()
          ? [[column.target.name, record.values[column.header]!.trim()]]
          : [],
      ),
    )
  let moleculeFields: Record<string, FieldValue>
  let batchFields: Record<string, FieldValue>
  try {
    moleculeFields = mergeFieldValues(
      {},
      checkFieldValues(
        access.db,
        access.vault.id,
        'molecule',
        fieldsFor('molecule field'),
        'molecule field',
      ),
    )
    batchFields = mergeFieldValues(
      {},
      checkFieldValues(
        access.db,
        access.vault.id,
        'batch',
        fieldsFor('batch field'),
        'batch field',
      ),
    )
  } catch (problem) {
    if (problem instanceof HttpError) return fail(problem.message)
    throw problem
  }
  const readouts: PlannedRecord['readouts'] = []
  for (const column of options.columns) {
    if (column.target.role !== 'readout') continue
    const definition = definitions.get(column.target.definitionId)!
    const raw = record.values[column.header]?.trim() ?? ''
    if (raw === '') continue
    const qualified = /^([<>])\s*(.+)$/.exec(raw)
    const body = qualified ? qualified[2]! : raw
    if (definition.data_type === 'Number') {
      const value = Number(body)
      if (!Number.isFinite(value))
        return fail(`'${raw}' in column '${column.header}' is not a number for ${definition.name}`)
      const cell: ReadoutCell = {
        value,
        ...(qualified ? { modifier: qualified[1] as '<' | '>' } : {}),
      }
      readouts.push({ definitionId: definition.id, cell })
      const implausible =
        definition.role === 'concentration'
          ? value <= 0
            ? `a concentration of ${value} ${definition.unit_label}`
            : undefined
          : definition.unit_label === '%' && (value < -100 || value > 200)
            ? `${definition.name} of ${value}%`
            : undefined
      if (implausible) {
        events.push({
          kind: 'suspicious',
          record: number,
          message: `implausible readout: ${implausible}`,
          resolution: options.suspiciousResolution,
        })
      }
    } else {
      readouts.push({ definitionId: definition.id, cell: { value: raw } })
    }
  }
  const runValue = runHeader ? Number(record.values[runHeader]) : 1
  const runIndex =
    Number.isInteger(runValue) && runValue >= 1 && runValue <= options.runs.length
      ? runValue - 1
      : 0

  const name = text('molecule name')
  const planned: PlannedRecord = {
    record: number,
    structure,
    smiles,
    name,
    synonyms: (text('synonyms') ?? '')
      .split(/[;|]/)
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    moleculeFields,
    batchFields,
    batchName: text('batch name'),
    runIndex,
    readouts,
    existingMoleculeId: null,
    renamed: false,
  }
  const named = name
    ? (access.db
        .prepare(`SELECT id, smiles FROM molecules WHERE vault_id = ? AND name = ? COLLATE NOCASE`)
        .get(access.vault.id, name) as { id: number; smiles: string | null } | undefined)
    : undefined
  if (named && named.smiles === smiles) {
    planned.existingMoleculeId = named.id
    return planned
  }
  if (named) {
    events.push({
      kind: 'suspicious',
      record: number,
      message: `the name '${name}' belongs to molecule ${named.id}, which has a different structure`,
      resolution: options.suspiciousResolution,
    })
    planned.renamed = true
  }
  const same = access.db
    .prepare(`SELECT id, name FROM molecules WHERE vault_id = ? AND smiles = ? ORDER BY id LIMIT 1`)
    .get(access.vault.id, smiles) as { id: number; name: string } | undefined
  if (same && !named) {
    events.push({
      kind: 'ambiguous',
      record: number,
      message: `the structure is already registered as molecule ${same.id} (${same.name}): add a batch to it or register a new molecule?`,
      resolution: options.ambiguousResolution,
    })
    if (options.ambiguousResolution === 'new_batch') planned.existingMoleculeId = same.id
  }
  if (planned.existingMoleculeId === null && planned.name === null)
    planned.name = `IMPORT-${slurpId}-${number}`
  return planned
}

/** Carries out a plan in one transaction and answers what it created. */
export function commitSlurp(
  access: VaultAccess,
  slurp: { id: number; project_id: number },
  options: SlurpOptions,
  plan: SlurpPlan,
  skipped: number,
): SlurpSummary {
  const db = access.db
  const now = access.sim.clock.nowSeconds()
  const summary: SlurpSummary = {
    records: plan.records.length + skipped,
    records_skipped: skipped,
    molecules_created: 0,
    molecules_matched: 0,
    batches_created: 0,
    runs_created: 0,
    readout_rows_created: 0,
    runs: [],
  }
  return db.transaction(() => {
    const withReadouts = plan.records.some((record) => record.readouts.length > 0)
    const runIds =
      options.protocolId !== null && withReadouts
        ? options.runs.map((run) =>
            Number(
              db
                .prepare(
                  `INSERT INTO runs (vault_id, protocol_id, project_id, run_date, person, place, conditions, slurp_id, created_at, modified_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
                )
                .run(
                  access.vault.id,
                  options.protocolId,
                  slurp.project_id,
                  run.runDate,
                  run.person,
                  run.place,
                  run.conditions,
                  slurp.id,
                  now,
                  now,
                ).lastInsertRowid,
            ),
          )
        : []
    summary.runs = runIds
    summary.runs_created = runIds.length
    const molecules = new Map<string, number>()
    const batches = new Map<string, number>()
    for (const record of plan.records) {
      let moleculeId = record.existingMoleculeId
      if (moleculeId !== null) {
        summary.molecules_matched += molecules.has(`existing:${moleculeId}`) ? 0 : 1
        molecules.set(`existing:${moleculeId}`, moleculeId)
      } else {
        const key = `${record.smiles}\u0000${record.name}`
        moleculeId = molecules.get(key) ?? null
        if (moleculeId === null) {
          moleculeId = insertMolecule(access, {
            name: uniqueMoleculeName(
              db,
              access.vault.id,
              record.name!,
              record.renamed ? slurp.id : undefined,
            ),
            structure: { member: `record ${record.record}`, text: record.structure },
            synonyms: record.synonyms,
            fields: record.moleculeFields,
            projectIds: [slurp.project_id],
          })
          molecules.set(key, moleculeId)
          summary.molecules_created += 1
        }
      }
      const batchKey = `${moleculeId}\u0000${record.batchName ?? ''}`
      let batchId = batches.get(batchKey)
      if (batchId === undefined) {
        const existing = record.batchName
          ? (db
              .prepare(`SELECT id FROM batches WHERE molecule_id = ? AND name = ?`)
              .get(moleculeId, record.batchName) as { id: number } | undefined)
          : undefined
        batchId =
          existing?.id ??
          insertBatch(access, {
            moleculeId,
            name: record.batchName ?? undefined,
            projectIds: [slurp.project_id],
            fields: record.batchFields,
          })
        if (!existing) summary.batches_created += 1
        batches.set(batchKey, batchId)
      }
      if (record.readouts.length === 0 || runIds.length === 0) continue
      const rowId = Number(
        db
          .prepare(
            `INSERT INTO readout_rows (vault_id, protocol_id, run_id, type, batch_id, created_at, modified_at)
             VALUES (?, ?, ?, 'detail row', ?, ?, ?)`,
          )
          .run(
            access.vault.id,
            options.protocolId,
            runIds[record.runIndex] ?? runIds[0],
            batchId,
            now,
            now,
          ).lastInsertRowid,
      )
      for (const readout of record.readouts)
        writeCell(db, rowId, readout.definitionId, readout.cell)
      summary.readout_rows_created += 1
    }
    if (options.protocolId !== null && runIds.length > 0)
      refreshDoseResponse(db, now, options.protocolId, runIds)
    return summary
  })()
}

function uniqueMoleculeName(
  db: Database,
  vaultId: number,
  name: string,
  slurpId: number | undefined,
): string {
  const taken = (candidate: string): boolean =>
    db
      .prepare(`SELECT 1 FROM molecules WHERE vault_id = ? AND name = ? COLLATE NOCASE`)
      .get(vaultId, candidate) !== undefined
  let candidate = slurpId === undefined ? name : `${name} (import ${slurpId})`
  for (let suffix = 2; taken(candidate); suffix += 1) candidate = `${name} (${suffix})`
  return candidate
}
