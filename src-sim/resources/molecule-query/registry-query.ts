import type { VaultAccess } from '../../core/sim-core.ts'
import { invalid, notFound } from '../../core/http-error.ts'
import type { Params } from '../../core/params.ts'
import { readPageUnlessExporting } from '../../core/pagination.ts'
import type { Page } from '../../core/pagination.ts'
import { fieldsOf } from '../fields.ts'
import { batchVisibleSql, moleculeVisibleSql, readScope, sqlList } from './scope.ts'
import type { QueryScope } from './scope.ts'
import type { StructureSearch, StructureSearchType } from './structure-search.ts'

export type QueryTarget = 'molecules' | 'batches'

/** How matching records are written. */
export interface DisplayOptions {
  noStructures: boolean
  includeOriginalStructures: boolean
  ownerId: boolean
  /** Batch records: the nested molecule is reduced to its id. */
  onlyMoleculeIds: boolean
  /** Molecule records: batches are listed as ids. */
  onlyBatchIds: boolean
  moleculeFields: readonly string[] | undefined
  batchFields: readonly string[] | undefined
}

/** A molecule or batch query, validated and turned into SQL over `molecules m` (and `batches b`). */
export interface RegistryQuery {
  target: QueryTarget
  scope: QueryScope
  /** Conditions beyond vault and visibility, with their arguments. */
  conditions: string[]
  args: unknown[]
  structure: StructureSearch | undefined
  /** An `inchikey` lookup: InChIKeys missing from bulk-seeded molecules must be computed first. */
  needsInchiKeys: boolean
  /** The ids-only body form (`batches` or `molecules` alone). */
  requestedIds: number[] | undefined
  onlyIds: boolean
  async: boolean
  format: string | undefined
  page: Page
  display: DisplayOptions
}

const batchQueryMembers = [
  'async',
  'format',
  'batch_fields',
  'molecule_fields',
  'created_after',
  'created_before',
  'modified_after',
  'modified_before',
  'molecule_created_after',
  'molecule_created_before',
  'molecule_batch_identifier',
  'collection_criteria',
  'data_sets',
  'projects',
  'fields_search',
  'protocol_criteria',
  'structure_criterion',
  'include_original_structures',
  'no_structures',
  'only_ids',
  'only_molecule_ids',
  'owner_id',
  'page_size',
  'offset',
]

const structureProperties: Record<string, { column: string; integer: boolean }> = {
  heavy_atom_count: { column: 'heavy_atom_count', integer: true },
  num_aromatic_rings: { column: 'num_aromatic_rings', integer: true },
  num_h_bond_acceptors: { column: 'num_h_bond_acceptors', integer: true },
  num_h_bond_donors: { column: 'num_h_bond_donors', integer: true },
  num_rotatable_bonds: { column: 'num_rotatable_bonds', integer: true },
  num_rule_of_5_violations: { column: 'num_rule_of_5_violations', integer: true },
  cd_molweight: { column: 'molecular_weight', integer: false },
  exact_mass: { column: 'exact_mass', integer: false },
  log_p: { column: 'log_p', integer: false },
  log_d: { column: 'log_d', integer: false },
  log_s: { column: 'log_s', integer: false },
  topological_polar_surface_area: { column: 'topological_polar_surface_area', integer: false },
}

/**
 * Reads every member of a batch or molecule query body (or the deprecated GET form's query
 * string) and rejects the rest by name. Batch-level conditions in a molecule query match a
 * molecule when any of its batches matches.
 */
export function readRegistryQuery(
  access: VaultAccess,
  params: Params,
  target: QueryTarget,
): RegistryQuery {
  const idsMember = target === 'batches' ? 'batches' : 'molecules'
  if (params.has(idsMember)) {
    const others = params.keys().filter((key) => key !== idsMember)
    if (others.length > 0) {
      throw invalid(
        idsMember,
        `cannot be combined with other members (also got ${others.join(', ')})`,
      )
    }
    const ids = params.ids(idsMember) ?? []
    if (ids.length > 1000) throw invalid(idsMember, `may list at most 1000 ids, got ${ids.length}`)
    return {
      target,
      scope: readScope(access, params),
      conditions: [],
      args: [],
      structure: undefined,
      needsInchiKeys: false,
      requestedIds: ids,
      onlyIds: false,
      async: false,
      format: undefined,
      page: { pageSize: Math.max(ids.length, 1), offset: 0 },
      display: defaultDisplay(),
    }
  }

  const scope = readScope(access, params)
  const conditions: string[] = []
  const args: unknown[] = []
  const add = (condition: string, ...values: unknown[]) => {
    conditions.push(condition)
    args.push(...values)
  }
  const onBatches = (condition: string) =>
    target === 'batches'
      ? condition
      : `EXISTS (SELECT 1 FROM batches b WHERE b.molecule_id = m.id AND ${condition})`

  const dateColumn = (member: string): string =>
    member.startsWith('molecule_created')
      ? 'm.created_at'
      : `${target === 'batches' ? 'b' : 'm'}.${member.startsWith('created') ? 'created_at' : 'modified_at'}`
  for (const member of ['created', 'modified', 'molecule_created']) {
    const after = params.date(`${member}_after`)
    const before = params.date(`${member}_before`)
    if (after !== undefined) add(`${dateColumn(member)} >= ?`, after)
    if (before !== undefined) add(`${dateColumn(member)} < ?`, before)
  }

  const identifier = params.string('molecule_batch_identifier')
  if (identifier !== undefined) add(onBatches(`(m.name || '-' || b.name) = ?`), identifier)

  readCollectionCriteria(access, params, add)
  readFieldsSearch(access, params, target, add)
  readStructureCriterion(params, add)

  const protocolCriteria = params.objects('protocol_criteria')
  if (protocolCriteria && protocolCriteria.length > 0) {
    const resolve = access.sim.protocolCriteria
    if (!resolve)
      throw invalid(
        'protocol_criteria',
        'cannot be answered: no assay data is loaded in this simulator',
      )
    const batchIds = [...resolve(access, protocolCriteria)]
    add(onBatches(`b.id IN ${sqlList(batchIds)}`))
  }

  let structure: StructureSearch | undefined
  let needsInchiKeys = false
  if (target === 'molecules') {
    const batchIds = params.ids('batches')
    if (batchIds) add(onBatches(`b.id IN ${sqlList(batchIds)}`))
    const names = params.strings('names')
    if (names) {
      add(
        `(m.name COLLATE NOCASE IN (SELECT value FROM json_each(?)) OR EXISTS (SELECT 1 FROM molecule_synonyms s
          WHERE s.molecule_id = m.id AND s.synonym COLLATE NOCASE IN (SELECT value FROM json_each(?))))`,
        JSON.stringify(names),
        JSON.stringify(names),
      )
    }
    const inchiKey = params.string('inchikey')
    if (inchiKey !== undefined) {
      add('m.inchi_key = ?', inchiKey.trim().toUpperCase())
      needsInchiKeys = true
    }
    structure = readStructureSearch(params)
  }

  const isAsync = params.boolean('async', false)
  const display: DisplayOptions = {
    noStructures: params.boolean('no_structures', false),
    includeOriginalStructures: params.boolean('include_original_structures', false),
    ownerId: params.boolean('owner_id', false),
    onlyMoleculeIds: params.boolean('only_molecule_ids', false),
    onlyBatchIds: target === 'molecules' ? params.boolean('only_batch_ids', false) : false,
    moleculeFields: params.strings('molecule_fields'),
    batchFields: params.strings('batch_fields'),
  }
  const onlyIds =
    params.boolean('only_ids', false) || (target === 'molecules' && display.onlyMoleculeIds)
  const page = readPageUnlessExporting(params, isAsync)
  params.ignore(...batchQueryMembers)
  params.rejectUnknown()
  return {
    target,
    scope,
    conditions,
    args,
    structure,
    needsInchiKeys,
    requestedIds: undefined,
    onlyIds,
    async: isAsync,
    format: params.string('format'),
    page,
    display,
  }
}

export function defaultDisplay(): DisplayOptions {
  return {
    noStructures: false,
    includeOriginalStructures: false,
    ownerId: false,
    onlyMoleculeIds: false,
    onlyBatchIds: false,
    moleculeFields: undefined,
    batchFields: undefined,
  }
}

/** The visibility and conditions of a query as one WHERE clause. */
export function whereClause(
  query: RegistryQuery,
  vaultId: number,
): { sql: string; args: unknown[] } {
  const visible =
    query.target === 'batches'
      ? `${batchVisibleSql(query.scope)} AND ${moleculeVisibleSql(query.scope)}`
      : moleculeVisibleSql(query.scope)
  const alias = query.target === 'batches' ? 'b' : 'm'
  return {
    sql: [`${alias}.vault_id = ?`, visible, ...query.conditions].join(' AND '),
    args: [vaultId, ...query.args],
  }
}

type Add = (condition: string, ...values: unknown[]) => void

/** Collection criteria combine left to right; the first entry's junction is ignored. */
function readCollectionCriteria(access: VaultAccess, params: Params, add: Add): void {
  const criteria = params.objects('collection_criteria')
  if (!criteria || criteria.length === 0) return
  let expression = ''
  criteria.forEach((criterion, index) => {
    const collectionId = criterion.requiredInteger('collection_id')
    const junction = criterion.oneOf('junction', ['AND', 'OR', 'XOR'] as const, 'AND')
    const notIn = criterion.boolean('not_in', false)
    criterion.rejectUnknown()
    const collection = access.db
      .prepare(
        `SELECT id FROM collections WHERE id = ? AND vault_id = ? AND (kind = 'vault_collection' OR owner_id = ?)`,
      )
      .get(collectionId, access.vault.id, access.user.id)
    if (!collection) throw notFound(`Collection ${collectionId}`)
    const member = `${notIn ? 'NOT ' : ''}EXISTS (SELECT 1 FROM collection_molecules cm WHERE cm.collection_id = ${collectionId} AND cm.molecule_id = m.id)`
    if (index === 0) expression = member
    else if (junction === 'XOR') expression = `((${expression}) != (${member}))`
    else expression = `((${expression}) ${junction} (${member}))`
  })
  add(expression)
}

function readFieldsSearch(
  access: VaultAccess,
  params: Params,
  target: QueryTarget,
  add: Add,
): void {
  const searches = params.objects('fields_search')
  if (!searches) return
  const moleculeFields = new Map(
    fieldsOf(access.db, access.vault.id, 'molecule').map((field) => [field.name, field]),
  )
  const batchFields = new Map(
    fieldsOf(access.db, access.vault.id, 'batch').map((field) => [field.name, field]),
  )
  for (const search of searches) {
    const name = search.requiredString('name')
    const kinds = (['text_value', 'number_value', 'date_value'] as const).filter((key) =>
      search.has(key),
    )
    if (kinds.length !== 1) {
      throw invalid(
        search.nameOf('name'),
        'needs exactly one of text_value, number_value or date_value',
      )
    }
    const kind = kinds[0]!
    let comparison: string
    let value: unknown
    if (kind === 'text_value') {
      comparison = `LIKE ? ESCAPE '\\'`
      value = `%${search.requiredString('text_value').replace(/[\\%_]/g, (character) => `\\${character}`)}%`
    } else if (kind === 'number_value') {
      comparison = '= ?'
      value = search.number('number_value', { required: true })
    } else {
      const seconds = search.date('date_value')!
      comparison = '= ?'
      value = new Date(seconds * 1000).toISOString().slice(0, 10)
    }
    search.rejectUnknown()
    const path = `$."${name.replaceAll('"', '\\"')}"`
    if (name === 'Molecule Name') add(`m.name ${comparison}`, value)
    else if (name === 'Batch Name')
      add(
        target === 'batches'
          ? `b.name ${comparison}`
          : `EXISTS (SELECT 1 FROM batches b WHERE b.molecule_id = m.id AND b.name ${comparison})`,
        value,
      )
    else if (name === 'Synonyms')
      add(
        `EXISTS (SELECT 1 FROM molecule_synonyms s WHERE s.molecule_id = m.id AND s.synonym ${comparison})`,
        value,
      )
    else if (moleculeFields.has(name)) add(`json_extract(m.fields, ?) ${comparison}`, path, value)
    else if (batchFields.has(name)) {
      add(
        target === 'batches'
          ? `json_extract(b.fields, ?) ${comparison}`
          : `EXISTS (SELECT 1 FROM batches b WHERE b.molecule_id = m.id AND json_extract(b.fields, ?) ${comparison})`,
        path,
        value,
      )
    } else {
      throw invalid(
        search.nameOf('name'),
        `'${name}' is not a molecule or batch field of this vault`,
      )
    }
  }
}

function readStructureCriterion(params: Params, add: Add): void {
  const criterion = params.object('structure_criterion')
  if (!criterion) return
  for (const [property, { column, integer }] of Object.entries(structureProperties)) {
    const read = (key: string) => (integer ? criterion.integer(key) : criterion.number(key))
    const minimum = read(`${property}_minimum`)
    const maximum = read(`${property}_maximum`)
    if (minimum !== undefined && maximum !== undefined && minimum > maximum) {
      throw invalid(
        criterion.nameOf(`${property}_minimum`),
        `(${minimum}) is above ${property}_maximum (${maximum})`,
      )
    }
    if (minimum !== undefined) add(`m.${column} >= ?`, minimum)
    if (maximum !== undefined) add(`m.${column} <= ?`, maximum)
  }
  criterion.rejectUnknown()
}

function readStructureSearch(params: Params): StructureSearch | undefined {
  const structure = params.string('structure')
  const type = params.oneOf('structure_search_type', [
    'exact',
    'substructure',
    'similarity',
  ] as const)
  const threshold = params.number('structure_similarity_threshold')
  if (structure === undefined) {
    if (type !== undefined || threshold !== undefined) {
      throw invalid(
        'structure',
        'is required with structure_search_type or structure_similarity_threshold',
      )
    }
    return undefined
  }
  if (threshold !== undefined && !(threshold >= 0 && threshold <= 1)) {
    throw invalid('structure_similarity_threshold', `must be between 0 and 1, got ${threshold}`)
  }
  const searchType: StructureSearchType = type ?? 'substructure'
  return { structure, type: searchType, threshold: threshold ?? 0.7 }
}
