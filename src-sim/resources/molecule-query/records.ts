import type { Database } from 'better-sqlite3'
import { formatSeconds } from '../../core/dates.ts'
import { counterpartWeight, salts, solvents } from '../batches/salts.ts'
import type { SimCore } from '../../core/sim-core.ts'
import type { DisplayOptions } from './registry-query.ts'
import { batchVisibleSql } from './scope.ts'
import type { QueryScope } from './scope.ts'

export interface MoleculeRow {
  id: number
  vault_id: number
  name: string
  registration_type: string
  description: string | null
  owner_id: number
  smiles: string | null
  cxsmiles: string | null
  original_structure: string | null
  inchi: string | null
  inchi_key: string | null
  molfile: string | null
  formula: string | null
  molecular_weight: number | null
  exact_mass: number | null
  log_p: number | null
  log_d: number | null
  log_s: number | null
  heavy_atom_count: number | null
  num_aromatic_rings: number | null
  num_h_bond_donors: number | null
  num_h_bond_acceptors: number | null
  num_rotatable_bonds: number | null
  num_rule_of_5_violations: number | null
  topological_polar_surface_area: number | null
  fsp3: number | null
  fields: string
  created_at: number
  modified_at: number
}

export interface BatchRow {
  id: number
  vault_id: number
  molecule_id: number
  name: string
  owner_id: number
  data_set_id: number | null
  salt_name: string | null
  solvent_of_crystallization_name: string | null
  core_count: number
  salt_count: number
  solvent_of_crystallization_count: number
  fields: string
  created_at: number
  modified_at: number
}

/**
 * Whose view a record shows: the projects it may name and whose private collections it lists.
 * A VaultAccess is one; the materialised documents use a viewer who reads every project.
 */
export interface RecordViewer {
  db: Database
  projectIds: readonly number[]
  user: { id: number }
  /** Lists the files attached to molecules (a VaultAccess's simulator). */
  sim?: Pick<SimCore, 'moleculeFiles'>
}

export interface RecordOptions extends DisplayOptions {
  scope: QueryScope
  /** Similarity scores to report, from a similarity search. */
  scores?: Map<number, number> | undefined
}

const propertyColumns = [
  'formula',
  'molecular_weight',
  'exact_mass',
  'log_p',
  'log_d',
  'log_s',
  'heavy_atom_count',
  'num_aromatic_rings',
  'num_h_bond_donors',
  'num_h_bond_acceptors',
  'num_rotatable_bonds',
  'num_rule_of_5_violations',
  'topological_polar_surface_area',
  'fsp3',
] as const

const structureColumns = ['smiles', 'cxsmiles', 'inchi', 'inchi_key', 'molfile'] as const

/**
 * A molecule's members in the groups that display options include or leave out, in record order;
 * stored documents keep them apart too (see documents.ts).
 */
interface MoleculePieces {
  /** id to description: the members before the structures. */
  head: Record<string, unknown>
  structures: Record<string, unknown>
  original: Record<string, unknown>
  /** The computed properties, then created_at and modified_at. */
  properties: Record<string, unknown>
}

/** Everything a molecule record holds, before display options join it. */
export interface MoleculeParts extends MoleculePieces {
  id: number
  collections: { id: number; name: string }[]
  /** Batch members (a batch record without its molecule). */
  batches: Record<string, unknown>[]
  fields: Record<string, unknown>
}

type Owners = Map<number, { id: number; first_name: string; last_name: string }>

function owners(db: Database): Owners {
  const rows = db.prepare(`SELECT id, first_name, last_name FROM users`).all() as {
    id: number
    first_name: string
    last_name: string
  }[]
  return new Map(rows.map((row) => [row.id, row]))
}

function ownerMembers(
  ownersById: Owners,
  ownerId: number,
  withId: boolean,
): Record<string, unknown> {
  const owner = ownersById.get(ownerId)
  const members: Record<string, unknown> = {
    owner: owner ? `${owner.first_name} ${owner.last_name}` : '',
  }
  if (withId && owner)
    members.owner_id = { id: owner.id, first_name: owner.first_name, last_name: owner.last_name }
  return members
}

function groupBy<T extends { owner_key: number }>(rows: T[]): Map<number, T[]> {
  const groups = new Map<number, T[]>()
  for (const row of rows) {
    const group = groups.get(row.owner_key)
    if (group) group.push(row)
    else groups.set(row.owner_key, [row])
  }
  return groups
}

function pickFields(json: string, names: readonly string[] | undefined): Record<string, unknown> {
  const values = JSON.parse(json) as Record<string, unknown>
  if (!names) return values
  return Object.fromEntries(Object.entries(values).filter(([name]) => names.includes(name)))
}

/** Projects of records, limited to those the user reaches (others are never named). */
function projectsOf(
  db: Database,
  table: 'molecule_projects' | 'batch_projects',
  ids: readonly number[],
  viewer: RecordViewer,
): Map<number, { id: number; name: string }[]> {
  const key = table === 'molecule_projects' ? 'molecule_id' : 'batch_id'
  const rows = db
    .prepare(
      `SELECT t.${key} AS owner_key, p.id, p.name FROM ${table} t JOIN projects p ON p.id = t.project_id
       WHERE t.${key} IN (SELECT value FROM json_each(?)) AND p.id IN (SELECT value FROM json_each(?))
       ORDER BY p.id`,
    )
    .all(JSON.stringify(ids), JSON.stringify(viewer.projectIds)) as {
    owner_key: number
    id: number
    name: string
  }[]
  const grouped = new Map<number, { id: number; name: string }[]>()
  for (const [owner, projects] of groupBy(rows))
    grouped.set(
      owner,
      projects.map(({ id, name }) => ({ id, name })),
    )
  return grouped
}

function batchWeight(batch: BatchRow, moleculeWeight: number | null): number | null {
  if (moleculeWeight === null) return null
  const weight =
    moleculeWeight * batch.core_count +
    counterpartWeight(salts, batch.salt_name) * batch.salt_count +
    counterpartWeight(solvents, batch.solvent_of_crystallization_name) *
      batch.solvent_of_crystallization_count
  return Math.round(weight * 1000) / 1000
}

function batchMembers(
  batch: BatchRow,
  molecule: { name: string; molecular_weight: number | null },
  projects: { id: number; name: string }[],
  ownersById: Owners,
  options: DisplayOptions,
): Record<string, unknown> {
  return {
    id: batch.id,
    class: 'batch',
    name: batch.name,
    molecule_batch_identifier: `${molecule.name}-${batch.name}`,
    formula_weight: batchWeight(batch, molecule.molecular_weight),
    batch_fields: pickFields(batch.fields, options.batchFields),
    ...ownerMembers(ownersById, batch.owner_id, options.ownerId),
    projects,
    salt_name: batch.salt_name ?? '',
    solvent_of_crystallization_name: batch.solvent_of_crystallization_name ?? '',
    stoichiometry: {
      core_count: batch.core_count,
      salt_count: batch.salt_count,
      solvent_of_crystallization_count: batch.solvent_of_crystallization_count,
    },
    created_at: formatSeconds(batch.created_at),
    modified_at: formatSeconds(batch.modified_at),
  }
}

function loadMolecules(db: Database, ids: readonly number[]): Map<number, MoleculeRow> {
  const rows = db
    .prepare(`SELECT * FROM molecules WHERE id IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(ids)) as MoleculeRow[]
  return new Map(rows.map((row) => [row.id, row]))
}

function moleculePieces(
  row: MoleculeRow,
  extras: { projects: { id: number; name: string }[]; synonyms: string[]; ownersById: Owners },
  options: DisplayOptions,
): MoleculePieces {
  const head: Record<string, unknown> = {
    id: row.id,
    class: 'molecule',
    name: row.name,
    synonyms: extras.synonyms,
    registration_type: row.registration_type,
    ...ownerMembers(extras.ownersById, row.owner_id, options.ownerId),
    projects: extras.projects,
  }
  if (row.description) head.description = row.description
  const structures: Record<string, unknown> = {}
  for (const column of structureColumns) if (row[column] !== null) structures[column] = row[column]
  const original: Record<string, unknown> = {}
  if (row.original_structure !== null) original.original_structure = row.original_structure
  const properties: Record<string, unknown> = {}
  for (const column of propertyColumns) if (row[column] !== null) properties[column] = row[column]
  properties.created_at = formatSeconds(row.created_at)
  properties.modified_at = formatSeconds(row.modified_at)
  return { head, structures, original, properties }
}

/** Molecule members shared by molecule records and the molecule nested in a batch. */
function moleculeMembers(pieces: MoleculePieces, options: DisplayOptions): Record<string, unknown> {
  return {
    ...pieces.head,
    ...(options.noStructures ? {} : pieces.structures),
    ...(options.includeOriginalStructures ? pieces.original : {}),
    ...pieces.properties,
  }
}

function synonymsOf(db: Database, ids: readonly number[]): Map<number, string[]> {
  const synonyms = new Map<number, string[]>()
  const rows = db
    .prepare(
      `SELECT molecule_id AS owner_key, synonym FROM molecule_synonyms
       WHERE molecule_id IN (SELECT value FROM json_each(?)) ORDER BY molecule_id, position`,
    )
    .all(JSON.stringify(ids)) as { owner_key: number; synonym: string }[]
  for (const row of rows) {
    const list = synonyms.get(row.owner_key)
    if (list) list.push(row.synonym)
    else synonyms.set(row.owner_key, [row.synonym])
  }
  return synonyms
}

/** The parts of molecule records in the order of `ids`, each with its visible batches. */
export function moleculeParts(
  viewer: RecordViewer,
  ids: readonly number[],
  options: RecordOptions,
): MoleculeParts[] {
  if (ids.length === 0) return []
  const db = viewer.db
  const rows = loadMolecules(db, ids)
  const projects = projectsOf(db, 'molecule_projects', ids, viewer)
  const synonyms = synonymsOf(db, ids)
  const collections = groupBy(
    db
      .prepare(
        `SELECT cm.molecule_id AS owner_key, c.id, c.name FROM collection_molecules cm JOIN collections c ON c.id = cm.collection_id
         WHERE cm.molecule_id IN (SELECT value FROM json_each(?)) AND (c.kind = 'vault_collection' OR c.owner_id = ?)
         ORDER BY c.id`,
      )
      .all(JSON.stringify(ids), viewer.user.id) as {
      owner_key: number
      id: number
      name: string
    }[],
  )
  const batchRows = db
    .prepare(
      `SELECT b.* FROM batches b WHERE b.molecule_id IN (SELECT value FROM json_each(?))
       AND ${batchVisibleSql(options.scope)} ORDER BY b.id`,
    )
    .all(JSON.stringify(ids)) as BatchRow[]
  const batchesByMolecule = new Map<number, BatchRow[]>()
  for (const batch of batchRows) {
    const list = batchesByMolecule.get(batch.molecule_id)
    if (list) list.push(batch)
    else batchesByMolecule.set(batch.molecule_id, [batch])
  }
  const batchProjects = projectsOf(
    db,
    'batch_projects',
    batchRows.map((batch) => batch.id),
    viewer,
  )
  const ownersById = owners(db)
  const parts: MoleculeParts[] = []
  for (const id of ids) {
    const row = rows.get(id)
    if (!row) continue
    const pieces = moleculePieces(
      row,
      { projects: projects.get(id) ?? [], synonyms: synonyms.get(id) ?? [], ownersById },
      options,
    )
    parts.push({
      ...pieces,
      id,
      collections: (collections.get(id) ?? []).map(({ id: collectionId, name }) => ({
        id: collectionId,
        name,
      })),
      batches: (batchesByMolecule.get(id) ?? []).map((batch) =>
        batchMembers(batch, row, batchProjects.get(batch.id) ?? [], ownersById, options),
      ),
      fields: pickFields(row.fields, options.moleculeFields),
    })
  }
  return parts
}

/**
 * Molecule records in the order of `ids`, each with its visible batches and, when it has any, the
 * files attached to it (`source_files`, a member of the molecule record: docs/spec/gaps.md; sparse,
 * as the spec allows, so a molecule without files has none).
 */
export function moleculeRecords(
  viewer: RecordViewer,
  ids: readonly number[],
  options: RecordOptions,
): Record<string, unknown>[] {
  const files = viewer.sim?.moleculeFiles(ids)
  return moleculeParts(viewer, ids, options).map((parts) => {
    const record: Record<string, unknown> = {
      ...moleculeMembers(parts, options),
      collections: parts.collections,
      batches: options.onlyBatchIds ? parts.batches.map((batch) => batch.id) : parts.batches,
      molecule_fields: parts.fields,
      udfs: parts.fields,
    }
    const listed = files?.get(parts.id)
    if (listed) record.source_files = listed
    const score = options.scores?.get(parts.id)
    if (score !== undefined) record.similarity = score
    return record
  })
}

/** Batch records in the order of `ids`, each with its molecule (or only its id). */
export function batchRecords(
  viewer: RecordViewer,
  ids: readonly number[],
  options: RecordOptions,
): Record<string, unknown>[] {
  if (ids.length === 0) return []
  const db = viewer.db
  const batchRows = new Map(
    (
      db
        .prepare(`SELECT * FROM batches WHERE id IN (SELECT value FROM json_each(?))`)
        .all(JSON.stringify(ids)) as BatchRow[]
    ).map((row) => [row.id, row]),
  )
  const moleculeIds = [...new Set([...batchRows.values()].map((batch) => batch.molecule_id))]
  const molecules = loadMolecules(db, moleculeIds)
  const batchProjects = projectsOf(db, 'batch_projects', ids, viewer)
  const moleculeProjects = options.onlyMoleculeIds
    ? new Map<number, { id: number; name: string }[]>()
    : projectsOf(db, 'molecule_projects', moleculeIds, viewer)
  const synonyms = options.onlyMoleculeIds
    ? new Map<number, string[]>()
    : synonymsOf(db, moleculeIds)
  const ownersById = owners(db)
  const records: Record<string, unknown>[] = []
  for (const id of ids) {
    const batch = batchRows.get(id)
    const molecule = batch && molecules.get(batch.molecule_id)
    if (!batch || !molecule) continue
    const record = batchMembers(batch, molecule, batchProjects.get(id) ?? [], ownersById, options)
    record.molecule = options.onlyMoleculeIds
      ? molecule.id
      : {
          ...moleculeMembers(
            moleculePieces(
              molecule,
              {
                projects: moleculeProjects.get(molecule.id) ?? [],
                synonyms: synonyms.get(molecule.id) ?? [],
                ownersById,
              },
              options,
            ),
            options,
          ),
          molecule_fields: pickFields(molecule.fields, options.moleculeFields),
        }
    records.push(record)
  }
  return records
}
