import type { RequestContext } from '../../core/context.ts'
import type { VaultAccess } from '../../core/sim-core.ts'
import { depictPng } from '../../chem/depiction.ts'
import type { FileExportable } from '../../core/exports/exportable.ts'
import { invalid, notFound, unauthorized, unprocessable } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import { Params } from '../../core/params.ts'
import { checkFieldValues, mergeFieldValues } from '../fields.ts'
import type { FieldValue } from '../fields.ts'
import { moleculeRecords } from '../molecule-query/records.ts'
import type { MoleculeRow } from '../molecule-query/records.ts'
import { defaultDisplay } from '../molecule-query/registry-query.ts'
import { documentTables } from '../molecule-query/document-schema.ts'
import { startDocuments } from '../molecule-query/documents.ts'
import { answerRegistryQuery, registryExportable } from '../molecule-query/run-query.ts'
import { startSearchIndex, stopSearchIndex } from '../molecule-query/search-index.ts'
import { fullScope, moleculeVisibleSql, readScope, sqlList } from '../molecule-query/scope.ts'
import {
  assertUnusedName,
  completeIdentity,
  insertMolecule,
  readStructureMember,
  replaceSynonyms,
  synonymsOf,
  usableCollections,
  writableProjects,
  writeStructure,
} from './molecule-store.ts'
import { registrySchema } from './schema.ts'
import { seedMolecules } from './seed.ts'

/** Members of a molecule record that a client may send back unchanged; they are not writable. */
const readOnlyMembers = [
  'class',
  'owner',
  'owner_id',
  'registration_type',
  'inchi',
  'inchi_key',
  'iupac_name',
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
  'batches',
  'source_files',
  'created_at',
  'modified_at',
  'original_structure',
  'similarity',
]

/** A molecule the user reaches (through a project or a public data set), or 404. */
export function visibleMolecule(access: VaultAccess, id: number): MoleculeRow {
  const scope = fullScope(access)
  const row = access.db
    .prepare(
      `SELECT m.* FROM molecules m WHERE m.id = ? AND m.vault_id = ? AND ${moleculeVisibleSql(scope)}`,
    )
    .get(id, access.vault.id) as MoleculeRow | undefined
  if (!row) throw notFound(`Molecule ${id}`)
  return row
}

function showMolecule(access: VaultAccess, id: number, params?: Params): Record<string, unknown> {
  const scope = params ? readScope(access, params) : fullScope(access)
  const display = {
    ...defaultDisplay(),
    noStructures: params?.boolean('no_structures', false) ?? false,
    includeOriginalStructures: params?.boolean('include_original_structures', false) ?? false,
    onlyBatchIds: params?.boolean('only_batch_ids', false) ?? false,
    ownerId: params?.boolean('owner_id', false) ?? false,
  }
  params?.rejectUnknown()
  const [record] = moleculeRecords(access, [id], { ...display, scope })
  if (!record) throw notFound(`Molecule ${id}`)
  // A molecule read alone lists its files even when it has none.
  return { ...record, source_files: record.source_files ?? [] }
}

function readUdfs(
  access: VaultAccess,
  params: Params,
): Record<string, FieldValue | null> | undefined {
  const udfs = params.record('udfs')
  const moleculeFields = params.record('molecule_fields')
  if (udfs && moleculeFields)
    throw invalid(
      'molecule_fields',
      'cannot be given together with udfs (they are the same values)',
    )
  const values = udfs ?? moleculeFields
  return (
    values &&
    checkFieldValues(
      access.db,
      access.vault.id,
      'molecule',
      values,
      udfs ? 'udfs' : 'molecule_fields',
    )
  )
}

async function createMolecule(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  if (access.vault.registrationSystem) {
    throw unprocessable(
      'This vault has a registration system: molecules are created through the molecule member of a new batch',
    )
  }
  const params = await ctx.input()
  const name = params.requiredString('name').trim()
  const projectValues = params.idsOrNames('projects')
  if (!projectValues || projectValues.length === 0)
    throw invalid('projects', 'must list at least one project')
  const molecule = {
    name,
    description: params.string('description', { allowEmpty: true }),
    structure: readStructureMember(params),
    synonyms: params.strings('synonyms'),
    fields: mergeFieldValues({}, readUdfs(access, params) ?? {}),
    projectIds: writableProjects(access, projectValues, 'projects'),
    collectionIds: usableCollections(access, params.ids('collections') ?? [], 'collections'),
  }
  params.ignore(...readOnlyMembers)
  params.rejectUnknown()
  const id = access.db.transaction(() => {
    assertUnusedName(access.db, access.vault.id, name, 0)
    return insertMolecule(access, molecule)
  })()
  return showMolecule(access, id)
}

async function updateMolecule(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const id = ctx.pathId('id')
  const row = visibleMolecule(access, id)
  const projectIds = access.db
    .prepare(`SELECT project_id FROM molecule_projects WHERE molecule_id = ?`)
    .pluck()
    .all(id) as number[]
  if (!projectIds.some((projectId) => access.canEditProject(projectId))) {
    throw unauthorized(
      `The API key is not authorized to change molecule ${id}: it needs write permission in one of its projects`,
    )
  }
  const params = await ctx.input()
  const bodyId = params.integer('id')
  if (bodyId !== undefined && bodyId !== id)
    throw invalid('id', `must equal the id in the path (${id}), got ${bodyId}`)
  const name = params.string('name')?.trim()
  const description = params.string('description', { allowEmpty: true })
  const structure = readStructureMember(params)
  const synonyms = params.strings('synonyms')
  const udfs = readUdfs(access, params)
  const projectValues = params.idsOrNames('projects')
  if (projectValues && projectValues.length === 0)
    throw invalid('projects', 'must list at least one project')
  const newProjects = projectValues && writableProjects(access, projectValues, 'projects')
  const collections = params.ids('collections')
  const newCollections = collections && usableCollections(access, collections, 'collections')
  params.ignore(...readOnlyMembers)
  params.rejectUnknown()
  const db = access.db
  db.transaction(() => {
    const now = access.sim.clock.nowSeconds()
    if (name !== undefined && name !== row.name) {
      assertUnusedName(db, access.vault.id, name, id)
      // A renamed molecule keeps its old name as a synonym.
      const kept = synonyms ?? synonymsOf(db, id)
      replaceSynonyms(db, id, kept.includes(row.name) ? kept : [...kept, row.name])
      db.prepare(`UPDATE molecules SET name = ? WHERE id = ?`).run(name, id)
    } else if (synonyms) {
      replaceSynonyms(db, id, synonyms)
    }
    if (description !== undefined)
      db.prepare(`UPDATE molecules SET description = ? WHERE id = ?`).run(description, id)
    if (structure) writeStructure(db, access.sim.chem, id, structure)
    if (udfs) {
      const merged = mergeFieldValues(JSON.parse(row.fields) as Record<string, FieldValue>, udfs)
      db.prepare(`UPDATE molecules SET fields = ? WHERE id = ?`).run(JSON.stringify(merged), id)
    }
    if (newProjects) {
      // Memberships in projects the user cannot see are kept: the user can only replace what they see.
      db.prepare(
        `DELETE FROM molecule_projects WHERE molecule_id = ? AND project_id IN ${sqlList(access.projectIds)}`,
      ).run(id)
      const insert = db.prepare(
        `INSERT OR IGNORE INTO molecule_projects (molecule_id, project_id) VALUES (?, ?)`,
      )
      for (const projectId of newProjects) insert.run(id, projectId)
    }
    if (newCollections) {
      db.prepare(
        `DELETE FROM collection_molecules WHERE molecule_id = ? AND collection_id IN
           (SELECT id FROM collections WHERE vault_id = ? AND (kind = 'vault_collection' OR owner_id = ?))`,
      ).run(id, access.vault.id, access.user.id)
      const insert = db.prepare(
        `INSERT OR IGNORE INTO collection_molecules (collection_id, molecule_id) VALUES (?, ?)`,
      )
      for (const collectionId of newCollections) insert.run(collectionId, id)
    }
    db.prepare(`UPDATE molecules SET modified_at = ? WHERE id = ?`).run(now, id)
  })()
  return showMolecule(access, id)
}

const imageExportable: FileExportable = {
  kind: 'molecule_image',
  formats: ['png', 'svg'],
  render(access, params, format) {
    const id = params.requiredInteger('molecule_id')
    const width = params.integer('width') ?? 300
    const height = params.integer('height') ?? 300
    const row = visibleMolecule(access, id)
    if (!row.smiles) throw unprocessable(`Molecule ${id} has no structure to draw`)
    if (format === 'svg')
      return new TextEncoder().encode(access.sim.chem.svg(row.smiles, width, height))
    return depictPng(access.sim.chem.molblock(row.smiles), width, height)
  },
}

async function moleculeImage(ctx: RequestContext): Promise<unknown> {
  const id = ctx.pathId('id')
  visibleMolecule(ctx.access, id)
  const params = await ctx.input()
  params.integer('width', { min: 16, max: 2000 })
  params.integer('height', { min: 16, max: 2000 })
  const format = params.oneOf('format', ['png', 'svg'] as const, 'png')
  params.rejectUnknown()
  const exportParams = new Params(
    { ...params.toJSON(), molecule_id: id },
    'query',
    ctx.user.timeZone,
  )
  return ctx.sim.exports.start(ctx.access, 'molecule_image', exportParams, format)
}

/**
 * Molecules: create, query (both forms), show, update, image export. When the simulator starts,
 * the triggers of the stored record documents go in (and missing documents are written), and a
 * large vault's bulk-seeded molecules begin to be identified in the background.
 */
export const moleculesModule: SimModule = {
  name: 'molecules',
  schema: `${registrySchema}${documentTables}`,
  routes(router) {
    router.post('/vaults/{vault_id}/molecules', createMolecule)
    router.query('/vaults/{vault_id}/molecules', (ctx) => answerRegistryQuery(ctx, 'molecules'))
    router.get('/vaults/{vault_id}/molecules/{id}', async (ctx) => {
      const id = ctx.pathId('id')
      visibleMolecule(ctx.access, id)
      completeIdentity(ctx.sim, id)
      return showMolecule(ctx.access, id, await ctx.input())
    })
    router.put('/vaults/{vault_id}/molecules/{id}', updateMolecule)
    router.get('/vaults/{vault_id}/molecules/{id}/image', moleculeImage)
  },
  seed: seedMolecules,
  start(sim) {
    startDocuments(sim.db)
    startSearchIndex(sim, sim.indexing)
  },
  stop: stopSearchIndex,
  exportables: [registryExportable('molecules'), imageExportable],
  dependentData: {
    project: (db, projectId) => {
      const molecules = db
        .prepare(`SELECT COUNT(*) FROM molecule_projects WHERE project_id = ?`)
        .pluck()
        .get(projectId) as number
      const batches = db
        .prepare(`SELECT COUNT(*) FROM batch_projects WHERE project_id = ?`)
        .pluck()
        .get(projectId) as number
      if (molecules + batches === 0) return undefined
      return `${molecules} molecules and ${batches} batches`
    },
  },
}
