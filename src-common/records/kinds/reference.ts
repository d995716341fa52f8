/**
 * The vault's reference data and jobs: vaults, projects, users, field definitions, templates,
 * saved searches, collections, imports and batch moves. The window has no pages of their own for
 * them; they feed choices, names and sync progress.
 */
import { toLinkIds, toPersonName, toText } from '../../values.ts'
import { column, link, person, text } from '../columns.ts'
import { declareKind } from '../kind-declaration.ts'

const nameOnly = (record: Record<string, unknown>) => ({ name: toText(record.name) })

export const vaults = declareKind({
  name: 'vaults',
  code: 1,
  singular: 'Vault',
  plural: 'Vaults',
  searchOf: nameOnly,
})

export const projects = declareKind({
  name: 'projects',
  code: 2,
  pull: { order: 10, mode: 'listed' },
  singular: 'Project',
  plural: 'Projects',
  searchOf: nameOnly,
})

export const dataSets = declareKind({
  name: 'data_sets',
  code: 3,
  pull: { order: 20, mode: 'listed' },
  singular: 'Data set',
  plural: 'Data sets',
  searchOf: nameOnly,
})

export const fields = declareKind({
  name: 'fields',
  code: 4,
  pull: { order: 30, mode: 'listed' },
  singular: 'Field definition',
  plural: 'Field definitions',
  columns: [
    text('field_type', 'type', { filterable: true }),
    text('data_type', 'data_type_name', { filterable: true }),
  ],
  searchOf: nameOnly,
})

export const pickListValues = declareKind({
  name: 'pick_list_values',
  code: 5,
  // After the fields (30): the pick list fields name whose values to read.
  pull: { order: 35, mode: 'listed' },
  singular: 'Pick list value',
  plural: 'Pick list values',
  nameOf: (record) => toText(record.value ?? record.name),
  columns: [link('field_id', ['field_id', 'field'], { filterable: true, linksTo: 'fields' })],
  indexes: ['field_id'],
  parentColumn: 'field_id',
})

export const users = declareKind({
  name: 'users',
  code: 6,
  pull: { order: 40, mode: 'listed', adminOnly: true },
  singular: 'User',
  plural: 'Users',
  nameOf: (record) => toPersonName(record) ?? toText(record.email),
  columns: [
    text('email', 'email', { sortable: true, filterable: true }),
    text('role_name', 'role_name', { sortable: true, filterable: true }),
  ],
  searchOf: (record) => ({ name: toPersonName(record), identifiers: [toText(record.email)] }),
})

export const collections = declareKind({
  name: 'collections',
  code: 9,
  pull: { order: 70, mode: 'incremental' },
  singular: 'Collection',
  plural: 'Collections',
  columns: [
    person('owner', 'owner', { sortable: true, filterable: true }),
    text('collection_type', 'class', { filterable: true }),
  ],
  searchOf: nameOnly,
})

export const savedSearches = declareKind({
  name: 'saved_searches',
  code: 19,
  pull: { order: 170, mode: 'listed' },
  singular: 'Saved search',
  plural: 'Saved searches',
  idOf: (record) => record.id ?? record.saved_search_session_id,
  columns: [
    column(
      'project_id',
      'INTEGER',
      (record) =>
        link('project_id', ['project', 'project_id']).read(record) ??
        toLinkIds(record.projects)[0] ??
        null,
      { filterable: true, linksTo: 'projects' },
    ),
    link('search_id', ['search_id'], { filterable: true }),
  ],
  searchOf: nameOnly,
})

export const mappingTemplates = declareKind({
  name: 'mapping_templates',
  code: 20,
  pull: { order: 180, mode: 'listed' },
  singular: 'Mapping template',
  plural: 'Mapping templates',
  columns: [person('owner', 'owner', { sortable: true, filterable: true })],
  searchOf: nameOnly,
})

export const importParsers = declareKind({
  name: 'import_parsers',
  code: 21,
  pull: { order: 190, mode: 'listed' },
  singular: 'Import parser',
  plural: 'Import parsers',
  searchOf: nameOnly,
})

export const registrationForms = declareKind({
  name: 'registration_forms',
  code: 22,
  pull: { order: 200, mode: 'listed' },
  singular: 'Registration form',
  plural: 'Registration forms',
  searchOf: nameOnly,
})

export const registrationSystems = declareKind({
  name: 'registration_systems',
  code: 23,
  pull: { order: 210, mode: 'listed' },
  singular: 'Registration system',
  plural: 'Registration systems',
  searchOf: nameOnly,
})

export const vaultStatus = declareKind({
  name: 'vault_status',
  code: 26,
  pull: { order: 220, mode: 'listed', adminOnly: true },
  singular: 'Vault status',
  plural: 'Vault status',
  idOf: (_record, vaultId) => vaultId,
})

export const slurps = declareKind({
  name: 'slurps',
  code: 27,
  singular: 'Import',
  plural: 'Imports',
  columns: [
    column('status', 'TEXT', (record) => toText(record.state ?? record.status), {
      sortable: true,
      filterable: true,
    }),
    person('owner', 'owner', { sortable: true, filterable: true }),
    link('project_id', ['project', 'project_id'], { filterable: true, linksTo: 'projects' }),
  ],
})

export const batchMoveJobs = declareKind({
  name: 'batch_move_jobs',
  code: 28,
  singular: 'Batch move',
  plural: 'Batch moves',
  columns: [
    link('batch_id', ['batch'], { filterable: true, linksTo: 'batches' }),
    link('molecule_id', ['molecule'], { filterable: true, linksTo: 'molecules' }),
    text('status', 'status', { sortable: true, filterable: true }),
  ],
  indexes: ['batch_id'],
})

export const referenceKinds = [
  vaults,
  projects,
  dataSets,
  fields,
  pickListValues,
  users,
  collections,
  savedSearches,
  mappingTemplates,
  importParsers,
  registrationForms,
  registrationSystems,
  vaultStatus,
  slurps,
  batchMoveJobs,
] as const
