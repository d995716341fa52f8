import type { RequestContext } from '../../core/context.ts'
import type { VaultAccess } from '../../core/sim-core.ts'
import { invalid, notFound, unauthorized, unprocessable } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import type { Params } from '../../core/params.ts'
import { ChemistryError } from '../../chem/chemistry.ts'
import { searchStructures } from '../molecule-query/structure-search.ts'
import { checkFieldValues, fieldsOf, mergeFieldValues } from '../fields.ts'
import type { FieldValue } from '../fields.ts'
import { batchRecords } from '../molecule-query/records.ts'
import type { BatchRow, MoleculeRow } from '../molecule-query/records.ts'
import { defaultDisplay } from '../molecule-query/registry-query.ts'
import { answerRegistryQuery, registryExportable } from '../molecule-query/run-query.ts'
import {
  batchVisibleSql,
  fullScope,
  moleculeVisibleSql,
  readScope,
  sqlList,
} from '../molecule-query/scope.ts'
import {
  insertMolecule,
  readStructureMember,
  writableProjects,
} from '../molecules/molecule-store.ts'
import { visibleMolecule } from '../molecules/module.ts'
import { nextRegistrationName } from '../registration.ts'
import { insertBatch } from './batch-store.ts'
import { readCounterpart, salts, solvents } from './salts.ts'

const readOnlyMembers = [
  'class',
  'owner',
  'owner_id',
  'molecule_batch_identifier',
  'formula_weight',
  'created_at',
  'modified_at',
]
const registrationTypes = ['CHEMICAL_STRUCTURE', 'NUCLEOTIDE', 'AMINO_ACID'] as const
const duplicateResolutions = ['prompt', 'existing', 'new'] as const

function visibleBatch(access: VaultAccess, id: number): BatchRow {
  const scope = fullScope(access)
  const row = access.db
    .prepare(
      `SELECT b.* FROM batches b JOIN molecules m ON m.id = b.molecule_id
       WHERE b.id = ? AND b.vault_id = ? AND ${batchVisibleSql(scope)} AND ${moleculeVisibleSql(scope)}`,
    )
    .get(id, access.vault.id) as BatchRow | undefined
  if (!row) throw notFound(`Batch ${id}`)
  return row
}

function showBatch(access: VaultAccess, id: number, params?: Params): Record<string, unknown> {
  const scope = params ? readScope(access, params) : fullScope(access)
  const display = {
    ...defaultDisplay(),
    noStructures: params?.boolean('no_structures', false) ?? false,
    includeOriginalStructures: params?.boolean('include_original_structures', false) ?? false,
    onlyMoleculeIds: params?.boolean('only_molecule_ids', false) ?? false,
    ownerId: params?.boolean('owner_id', false) ?? false,
  }
  params?.rejectUnknown()
  const [record] = batchRecords(access, [id], { ...display, scope })
  if (!record) throw notFound(`Batch ${id}`)
  return record
}

/**
 * Stoichiometry is set in registration vaults only; elsewhere a body may still carry the current
 * values (an echoed record), which change nothing.
 */
function readStoichiometry(
  access: VaultAccess,
  params: Params,
  current?: BatchRow,
): { core: number; salt: number; solvent: number } | undefined {
  const stoichiometry = params.object('stoichiometry')
  if (!stoichiometry) return undefined
  const result = {
    core: stoichiometry.integer('core_count', { min: 1 }) ?? 1,
    salt: stoichiometry.integer('salt_count', { min: 0 }) ?? 0,
    solvent: stoichiometry.integer('solvent_of_crystallization_count', { min: 0 }) ?? 0,
  }
  stoichiometry.rejectUnknown()
  if (!access.vault.registrationSystem) {
    const unchanged =
      current !== undefined &&
      result.core === current.core_count &&
      result.salt === current.salt_count &&
      result.solvent === current.solvent_of_crystallization_count
    if (!unchanged)
      throw invalid('stoichiometry', 'can only be set in a vault with a registration system')
    return undefined
  }
  return result
}

/**
 * Batch fields are written in registration vaults only (spec, batch create / update body:
 * "registration vaults only"); elsewhere a body may still carry the current values (an echoed
 * record), which change nothing.
 */
function readBatchFields(
  access: VaultAccess,
  params: Params,
  current: BatchRow | undefined,
): Record<string, FieldValue | null> | undefined {
  const creating = current === undefined
  const values = params.record('batch_fields')
  const checked =
    values && checkFieldValues(access.db, access.vault.id, 'batch', values, 'batch_fields')
  if (checked && !access.vault.registrationSystem) {
    const stored = current ? (JSON.parse(current.fields) as Record<string, FieldValue>) : {}
    const merged = mergeFieldValues(stored, checked)
    const unchanged =
      Object.keys(merged).length === Object.keys(stored).length &&
      Object.entries(merged).every(([name, value]) => stored[name] === value)
    if (!unchanged)
      throw invalid('batch_fields', 'can only be set in a vault with a registration system')
    return undefined
  }
  if (creating && access.vault.registrationSystem) {
    const missing = fieldsOf(access.db, access.vault.id, 'batch')
      .filter((field) => field.required_group_number !== null && checked?.[field.name] == null)
      .map((field) => field.name)
    if (missing.length > 0)
      throw invalid(
        'batch_fields',
        `must include the fields this vault requires: ${missing.join(', ')}`,
      )
  }
  return checked
}

/** The molecule of a new batch: an existing one by id or name, or a new (or duplicate) structure. */
function resolveMolecule(
  access: VaultAccess,
  molecule: Params,
  projectIds: number[],
  duplicate: { id: number; name: string } | undefined,
): number {
  const id = molecule.integer('id')
  const structure = readStructureMember(molecule)
  const name = molecule.string('name')?.trim()
  const registrationType = molecule.oneOf(
    'registration_type',
    registrationTypes,
    'CHEMICAL_STRUCTURE',
  )
  const resolution = molecule.oneOf('duplicate_resolution', duplicateResolutions, 'prompt')
  molecule.rejectUnknown()
  if (id !== undefined) {
    if (structure)
      throw invalid(molecule.nameOf('id'), `cannot be given together with ${structure.member}`)
    return visibleMolecule(access, id).id
  }
  if (!structure) {
    if (name === undefined)
      throw invalid(
        'molecule',
        'needs an id, a name, or a structure (smiles, cxsmiles, molfile or structure)',
      )
    if (registrationType === 'CHEMICAL_STRUCTURE') {
      const existing = access.db
        .prepare(`SELECT id FROM molecules WHERE vault_id = ? AND name = ? COLLATE NOCASE`)
        .get(access.vault.id, name) as { id: number } | undefined
      if (!existing)
        throw invalid(
          molecule.nameOf('name'),
          `'${name}' is not the name of a molecule in this vault`,
        )
      return visibleMolecule(access, existing.id).id
    }
  } else if (registrationType !== 'CHEMICAL_STRUCTURE') {
    throw invalid(structure.member, `cannot be given for registration_type ${registrationType}`)
  }
  if (structure && resolution !== 'new') {
    if (duplicate !== undefined && resolution === 'existing') return duplicate.id
    if (duplicate !== undefined) {
      throw invalid(
        molecule.nameOf('duplicate_resolution'),
        `is needed: molecule ${duplicate.id} (${duplicate.name}) has this structure; use 'existing' to add the batch to it or 'new' to register another molecule`,
      )
    }
  }
  const moleculeName =
    name ??
    (access.vault.registrationSystem ? nextRegistrationName(access.db, access.vault.id) : undefined)
  if (moleculeName === undefined)
    throw invalid(
      molecule.nameOf('name'),
      'is required for a new molecule in a vault without a registration system',
    )
  const clash = access.db
    .prepare(`SELECT id FROM molecules WHERE vault_id = ? AND name = ? COLLATE NOCASE`)
    .get(access.vault.id, moleculeName)
  if (clash)
    throw invalid(molecule.nameOf('name'), `'${moleculeName}' is already the name of a molecule`)
  return insertMolecule(access, { name: moleculeName, structure, registrationType, projectIds })
}

/** The first molecule the user reaches with the same structure as a new batch's molecule member. */
async function findDuplicate(
  access: VaultAccess,
  molecule: Params,
): Promise<{ id: number; name: string } | undefined> {
  const structure = ['smiles', 'cxsmiles', 'molfile', 'structure']
    .map((member) => molecule.raw(member))
    .find((value) => typeof value === 'string')
  if (
    typeof structure !== 'string' ||
    molecule.raw('duplicate_resolution') === 'new' ||
    molecule.has('id')
  )
    return undefined
  const hits = await searchStructures(access.sim, access.vault.id, {
    type: 'exact',
    structure,
    threshold: 1,
  })
  return access.db
    .prepare(
      `SELECT m.id, m.name FROM molecules m WHERE m.id IN ${sqlList(hits.ids)} AND ${moleculeVisibleSql(fullScope(access))} ORDER BY m.id LIMIT 1`,
    )
    .get() as { id: number; name: string } | undefined
}

async function createBatch(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const params = await ctx.input()
  const projectValues = params.idsOrNames('projects')
  if (!projectValues || projectValues.length === 0)
    throw invalid('projects', 'must list at least one project')
  const projectIds = writableProjects(access, projectValues, 'projects')
  const saltName = params.string('salt_name')
  const solvent = params.string('solvent_of_crystallization_name')
  const batch = {
    name: params.string('name')?.trim(),
    saltName: saltName === undefined ? null : readCounterpart(salts, saltName, 'salt_name'),
    solventName:
      solvent === undefined
        ? null
        : readCounterpart(solvents, solvent, 'solvent_of_crystallization_name'),
    stoichiometry: readStoichiometry(access, params),
    fields: mergeFieldValues({}, readBatchFields(access, params, undefined) ?? {}),
  }
  const molecule = params.object('molecule', { required: true })!
  params.ignore(...readOnlyMembers)
  params.rejectUnknown()
  const duplicate = await findDuplicate(access, molecule)
  const id = access.db.transaction(() =>
    insertBatch(access, {
      ...batch,
      moleculeId: resolveMolecule(access, molecule, projectIds, duplicate),
      projectIds,
    }),
  )()
  return showBatch(access, id)
}

/**
 * The molecule member of an update may only repeat the batch's molecule (clients echo the whole
 * record back), never change it: every structure it carries must be the current structure.
 */
function checkSameMolecule(access: VaultAccess, molecule: Params, current: MoleculeRow): void {
  const id = molecule.integer('id')
  if (id !== undefined && id !== current.id) {
    throw invalid(
      'molecule.id',
      `cannot move a batch to another molecule (use a batch move job); the batch belongs to ${current.id}`,
    )
  }
  const canonical = (text: string, member: string) => {
    try {
      return access.sim.chem.canonicalSmiles(text)
    } catch (error) {
      if (error instanceof ChemistryError) throw invalid(member, error.message)
      throw error
    }
  }
  const currentCanonical = current.smiles
    ? access.sim.chem.canonicalSmiles(current.smiles)
    : undefined
  for (const member of ['smiles', 'cxsmiles', 'molfile', 'structure']) {
    const text = molecule.string(member)
    if (text !== undefined && canonical(text, molecule.nameOf(member)) !== currentCanonical) {
      throw invalid(
        molecule.nameOf(member),
        "cannot change the batch's parent structure; molecules are changed with the molecule update operation",
      )
    }
  }
  for (const key of molecule.keys()) molecule.ignore(key)
}

async function updateBatch(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const id = ctx.pathId('batch_id')
  const row = visibleBatch(access, id)
  const db = access.db
  const currentProjects = db
    .prepare(`SELECT project_id FROM batch_projects WHERE batch_id = ?`)
    .pluck()
    .all(id) as number[]
  if (!currentProjects.some((projectId) => access.canEditProject(projectId))) {
    throw unauthorized(
      `The API key is not authorized to change batch ${id}: it needs write permission in one of its projects`,
    )
  }
  const params = await ctx.input()
  const bodyId = params.integer('id')
  if (bodyId !== undefined && bodyId !== id)
    throw invalid('id', `must equal the id in the path (${id}), got ${bodyId}`)
  const molecule = params.object('molecule')
  if (molecule)
    checkSameMolecule(
      access,
      molecule,
      db.prepare(`SELECT * FROM molecules WHERE id = ?`).get(row.molecule_id) as MoleculeRow,
    )
  const name = params.string('name')?.trim()
  const saltName = params.string('salt_name', { allowEmpty: true })
  const solvent = params.string('solvent_of_crystallization_name', { allowEmpty: true })
  const stoichiometry = readStoichiometry(access, params, row)
  const fields = readBatchFields(access, params, row)
  const projectValues = params.idsOrNames('projects')
  params.ignore(...readOnlyMembers)
  params.rejectUnknown()
  if (projectValues && projectValues.length === 0) return deleteBatch(access, row)
  const newProjects = projectValues && writableProjects(access, projectValues, 'projects')
  db.transaction(() => {
    if (name !== undefined && name !== row.name) {
      if (
        db
          .prepare(`SELECT 1 FROM batches WHERE molecule_id = ? AND name = ? AND id != ?`)
          .get(row.molecule_id, name, id)
      ) {
        throw invalid('name', `'${name}' is already the name of a batch of this molecule`)
      }
      db.prepare(`UPDATE batches SET name = ? WHERE id = ?`).run(name, id)
    }
    if (saltName !== undefined) {
      db.prepare(`UPDATE batches SET salt_name = ? WHERE id = ?`).run(
        saltName === '' ? null : readCounterpart(salts, saltName, 'salt_name'),
        id,
      )
    }
    if (solvent !== undefined) {
      const value =
        solvent === ''
          ? null
          : readCounterpart(solvents, solvent, 'solvent_of_crystallization_name')
      db.prepare(`UPDATE batches SET solvent_of_crystallization_name = ? WHERE id = ?`).run(
        value,
        id,
      )
    }
    if (stoichiometry) {
      db.prepare(
        `UPDATE batches SET core_count = ?, salt_count = ?, solvent_of_crystallization_count = ? WHERE id = ?`,
      ).run(stoichiometry.core, stoichiometry.salt, stoichiometry.solvent, id)
    }
    if (fields) {
      const merged = mergeFieldValues(JSON.parse(row.fields) as Record<string, FieldValue>, fields)
      db.prepare(`UPDATE batches SET fields = ? WHERE id = ?`).run(JSON.stringify(merged), id)
    }
    if (newProjects) {
      db.prepare(
        `DELETE FROM batch_projects WHERE batch_id = ? AND project_id IN ${sqlList(access.projectIds)}`,
      ).run(id)
      const insert = db.prepare(
        `INSERT OR IGNORE INTO batch_projects (batch_id, project_id) VALUES (?, ?)`,
      )
      const insertMoleculeProject = db.prepare(
        `INSERT OR IGNORE INTO molecule_projects (molecule_id, project_id) VALUES (?, ?)`,
      )
      for (const projectId of newProjects) {
        insert.run(id, projectId)
        insertMoleculeProject.run(row.molecule_id, projectId)
      }
    }
    const now = access.sim.clock.nowSeconds()
    db.prepare(`UPDATE batches SET modified_at = ? WHERE id = ?`).run(now, id)
    db.prepare(`UPDATE molecules SET modified_at = ? WHERE id = ?`).run(now, row.molecule_id)
  })()
  return showBatch(access, id)
}

/** An empty `projects` deletes the batch, unless other records still refer to it. */
function deleteBatch(access: VaultAccess, row: BatchRow): Record<string, unknown> {
  const dependent = access.sim.dependentData('batch', row.id)
  if (dependent.length > 0) {
    throw unprocessable(`Batch ${row.id} cannot be deleted: ${dependent.join('; ')} refer to it`)
  }
  const record = showBatch(access, row.id)
  access.db.transaction(() => {
    access.db.prepare(`DELETE FROM batches WHERE id = ?`).run(row.id)
    access.db
      .prepare(`UPDATE molecules SET modified_at = ? WHERE id = ?`)
      .run(access.sim.clock.nowSeconds(), row.molecule_id)
  })()
  return { ...record, projects: [] }
}

/** Batches: create (with a new or existing molecule), query (both forms), show, update. */
export const batchesModule: SimModule = {
  name: 'batches',
  routes(router) {
    router.post('/vaults/{vault_id}/batches', createBatch)
    router.query('/vaults/{vault_id}/batches', (ctx) => answerRegistryQuery(ctx, 'batches'))
    router.get('/vaults/{vault_id}/batches/{batch_id}', async (ctx) => {
      const id = ctx.pathId('batch_id')
      visibleBatch(ctx.access, id)
      return showBatch(ctx.access, id, await ctx.input())
    })
    router.put('/vaults/{vault_id}/batches/{batch_id}', updateBatch)
  },
  exportables: [registryExportable('batches')],
}
