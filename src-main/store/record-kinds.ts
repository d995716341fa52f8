import { AppError } from '../shared/app-error.ts'
import {
  distinct,
  isObject,
  toFlag,
  toId,
  toLinkId,
  toLinkIds,
  toNumber,
  toPersonName,
  toText,
  type JsonObject,
  type SqlValue,
} from './record-values.ts'
import { normalizeTimestamp } from './timestamps.ts'

/** The text of a record that search matches, by search-index column. */
export interface SearchDocument {
  name?: string | null
  identifiers?: readonly (string | null)[]
  synonyms?: readonly (string | null)[]
  content?: readonly (string | null)[]
}

export interface ColumnReader {
  readonly column: string
  readonly read: (record: JsonObject) => SqlValue
}

/** How one kind of server record is kept in the cache (its table is in cache-schema.ts). */
export interface RecordKind {
  readonly name: RecordKindName
  /** Stored in search rowids and project links: never renumber. At most 63. */
  readonly code: number
  readonly table: string
  /** The server id; `id` unless a kind says otherwise (vault status has none: one per vault). */
  readonly idOf: (record: JsonObject, vaultId: number) => unknown
  readonly nameOf: (record: JsonObject) => SqlValue
  readonly columns: readonly ColumnReader[]
  /**
   * A column that sync gives as `parentId` because the listing is nested under that parent and
   * the records may not say it (a protocol's dose-response calculations, for example).
   */
  readonly parentColumn?: string
  readonly projectsOf?: (record: JsonObject) => number[]
  readonly searchOf?: (record: JsonObject) => SearchDocument
  /** Columns a list may be sorted by; `name`, `created_at`, `modified_at` and `id` always are. */
  readonly sortable: readonly string[]
  /** Columns a list may be filtered on by equality; `vault_id` always is. */
  readonly filterable: readonly string[]
}

export const recordKindNames = [
  'vaults',
  'projects',
  'data_sets',
  'fields',
  'pick_list_values',
  'users',
  'molecules',
  'batches',
  'collections',
  'protocols',
  'runs',
  'readout_rows',
  'plates',
  'control_layouts',
  'inventory_locations',
  'inventory_samples',
  'eln_entries',
  'files',
  'saved_searches',
  'mapping_templates',
  'import_parsers',
  'registration_forms',
  'registration_systems',
  'dose_response_calculations',
  'dose_response_series',
  'vault_status',
  'slurps',
  'batch_move_jobs',
] as const

export type RecordKindName = (typeof recordKindNames)[number]

const text =
  (key: string) =>
  (record: JsonObject): SqlValue =>
    toText(record[key])
const number =
  (key: string) =>
  (record: JsonObject): SqlValue =>
    toNumber(record[key])
const link =
  (...keys: string[]) =>
  (record: JsonObject): SqlValue => {
    for (const key of keys) {
      const id = toLinkId(record[key])
      if (id !== null) return id
    }
    return null
  }
const time =
  (key: string) =>
  (record: JsonObject): SqlValue =>
    normalizeTimestamp(record[key])
const person =
  (key: string) =>
  (record: JsonObject): SqlValue =>
    toPersonName(record[key])

const column = (name: string, read: (record: JsonObject) => SqlValue): ColumnReader => ({
  column: name,
  read,
})

/** String values of a vault-defined field map (`molecule_fields`, `batch_fields`...). */
export function fieldTexts(value: unknown): string[] {
  if (!isObject(value)) return []
  const texts: string[] = []
  for (const item of Object.values(value)) {
    if (typeof item === 'string') texts.push(item)
    else if (Array.isArray(item)) {
      for (const element of item) if (typeof element === 'string') texts.push(element)
    } else if (isObject(item) && typeof (item.name ?? item.value) === 'string') {
      texts.push((item.name ?? item.value) as string)
    }
  }
  return texts
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item) => typeof item === 'string') : []
}

function anyCellHas(readouts: unknown, test: (cell: JsonObject) => boolean): number {
  if (!isObject(readouts)) return 0
  for (const cell of Object.values(readouts)) if (isObject(cell) && test(cell)) return 1
  return 0
}

const ownId = (record: JsonObject): unknown => record.id
const nameMember = text('name')
const projectList = (record: JsonObject): number[] => toLinkIds(record.projects)
const nameOnly = (record: JsonObject): SearchDocument => ({ name: toText(record.name) })

interface KindSpec {
  idOf?: RecordKind['idOf']
  nameOf?: RecordKind['nameOf']
  columns?: ColumnReader[]
  parentColumn?: string
  projectsOf?: RecordKind['projectsOf']
  searchOf?: RecordKind['searchOf']
  sortable?: string[]
  filterable?: string[]
}

const specs: Record<RecordKindName, KindSpec & { code: number }> = {
  vaults: { code: 1, searchOf: nameOnly },
  projects: { code: 2, searchOf: nameOnly },
  data_sets: { code: 3, searchOf: nameOnly },
  fields: {
    code: 4,
    columns: [column('field_type', text('type')), column('data_type', text('data_type_name'))],
    filterable: ['field_type', 'data_type'],
    searchOf: nameOnly,
  },
  pick_list_values: {
    code: 5,
    nameOf: (record) => toText(record.value ?? record.name),
    columns: [column('field_id', link('field_id', 'field'))],
    parentColumn: 'field_id',
    filterable: ['field_id'],
  },
  users: {
    code: 6,
    nameOf: (record) => toPersonName(record) ?? toText(record.email),
    columns: [column('email', text('email')), column('role_name', text('role_name'))],
    sortable: ['email', 'role_name'],
    filterable: ['email', 'role_name'],
    searchOf: (record) => ({ name: toPersonName(record), identifiers: [toText(record.email)] }),
  },
  molecules: {
    code: 7,
    columns: [
      column('registration_type', text('registration_type')),
      column('owner', person('owner')),
      column('inchi_key', text('inchi_key')),
      column('formula', text('formula')),
      column('molecular_weight', number('molecular_weight')),
      column('log_p', number('log_p')),
    ],
    projectsOf: projectList,
    sortable: ['owner', 'molecular_weight', 'log_p', 'registration_type', 'formula'],
    filterable: ['registration_type', 'owner', 'inchi_key', 'formula'],
    // A molecule's document also holds its batches' identifiers and field values: batches are
    // found through their molecule, which saves a document per batch.
    searchOf: (record) => {
      const identifiers: (string | null)[] = [toText(record.inchi_key)]
      const content = fieldTexts(record.molecule_fields ?? record.udfs)
      if (Array.isArray(record.batches)) {
        for (const batch of record.batches) {
          if (!isObject(batch)) continue
          identifiers.push(toText(batch.molecule_batch_identifier))
          content.push(...fieldTexts(batch.batch_fields))
        }
      }
      const synonyms: (string | null)[] = stringsOf(record.synonyms)
      synonyms.push(toText(record.iupac_name))
      return { name: toText(record.name), identifiers, synonyms, content: distinct(content) }
    },
  },
  batches: {
    code: 8,
    columns: [
      column('molecule_id', link('molecule', 'molecule_id')),
      // Set by the writer for a batch nested in its molecule (its JSON is read from there).
      column('position', () => null),
      column('identifier', text('molecule_batch_identifier')),
      column('owner', person('owner')),
      column('salt_name', text('salt_name')),
      column('formula_weight', number('formula_weight')),
    ],
    projectsOf: projectList,
    sortable: ['identifier', 'owner', 'formula_weight', 'salt_name'],
    filterable: ['molecule_id', 'identifier', 'owner', 'salt_name'],
  },
  collections: {
    code: 9,
    columns: [column('owner', person('owner')), column('collection_type', text('class'))],
    sortable: ['owner'],
    filterable: ['owner', 'collection_type'],
    searchOf: nameOnly,
  },
  protocols: {
    code: 10,
    columns: [
      column('category', text('category')),
      column('data_set_id', link('data_set', 'data_set_id')),
      column('owner', person('owner')),
    ],
    projectsOf: projectList,
    sortable: ['category', 'owner'],
    filterable: ['category', 'data_set_id', 'owner'],
    searchOf: (record) => ({
      name: toText(record.name),
      content: [
        toText(record.description),
        toText(record.category),
        ...fieldTexts(record.protocol_fields),
      ],
    }),
  },
  runs: {
    code: 11,
    nameOf: (record) => toText(record.name) ?? toText(record.run_date),
    columns: [
      column('protocol_id', link('protocol', 'protocol_id')),
      column('project_id', link('project', 'project_id')),
      column('run_date', text('run_date')),
      column('person', person('person')),
      column('place', text('place')),
      column('slurp_id', link('slurp', 'slurp_id')),
    ],
    sortable: ['run_date', 'person', 'place'],
    filterable: ['protocol_id', 'project_id', 'run_date', 'person', 'place', 'slurp_id'],
  },
  readout_rows: {
    code: 12,
    columns: [
      column('protocol_id', link('protocol', 'protocol_id')),
      column('run_id', link('run', 'run_id')),
      column('run_date', (record) =>
        isObject(record.run) ? toText(record.run.run_date) : toText(record.run_date),
      ),
      column('molecule_id', link('molecule', 'molecule_id')),
      column('batch_id', link('batch', 'batch_id')),
      column('plate_id', link('plate', 'plate_id')),
      column('row_type', text('type')),
      column('control_state', text('control_state')),
      column('well', (record) =>
        isObject(record.well) ? toText(record.well.pos) : toText(record.well),
      ),
      column('has_modifier', (record) =>
        anyCellHas(record.readouts, (cell) => toText(cell.modifier) !== null),
      ),
      column('has_outlier', (record) =>
        anyCellHas(record.readouts, (cell) => toFlag(cell.outlier) === 1),
      ),
      column('has_note', (record) =>
        anyCellHas(record.readouts, (cell) => typeof cell.note === 'string' && cell.note !== ''),
      ),
    ],
    sortable: ['row_type', 'well', 'control_state', 'run_date'],
    filterable: [
      'protocol_id',
      'run_id',
      'molecule_id',
      'batch_id',
      'plate_id',
      'row_type',
      'control_state',
      'well',
      'has_modifier',
      'has_outlier',
      'has_note',
    ],
  },
  plates: {
    code: 13,
    columns: [column('location', text('location'))],
    projectsOf: projectList,
    sortable: ['location'],
    filterable: ['location'],
    searchOf: nameOnly,
  },
  control_layouts: {
    code: 14,
    columns: [
      column('protocol_id', link('protocol', 'protocol_id')),
      column('run_id', link('run', 'run_id')),
      column('plate_id', link('plate_id', 'plate')),
    ],
    filterable: ['protocol_id', 'run_id', 'plate_id'],
  },
  inventory_locations: {
    code: 15,
    nameOf: (record) => toText(record.value ?? record.name),
    columns: [column('parent_id', link('parent_id', 'parent'))],
    filterable: ['parent_id'],
    searchOf: (record) => ({ name: toText(record.value ?? record.name) }),
  },
  inventory_samples: {
    code: 16,
    columns: [
      column('batch_id', link('batch_id', 'batch')),
      column('location_id', link('location', 'location_id')),
      column('owner', person('owner')),
      column('units', text('units')),
      column('current_amount', number('current_amount')),
    ],
    sortable: ['owner', 'units', 'current_amount'],
    filterable: ['batch_id', 'location_id', 'owner', 'units'],
    searchOf: (record) => ({ name: toText(record.name), content: fieldTexts(record.fields) }),
  },
  eln_entries: {
    code: 17,
    nameOf: (record) => toText(record.name ?? record.title),
    columns: [
      column('status', text('status')),
      column('author_id', link('author', 'author_id')),
      column('author', person('author')),
      column('project_id', link('project', 'project_id')),
    ],
    sortable: ['status', 'author'],
    filterable: ['status', 'author_id', 'author', 'project_id'],
    searchOf: (record) => ({
      name: toText(record.name ?? record.title),
      content: fieldTexts(record.eln_fields),
    }),
  },
  files: {
    code: 18,
    columns: [
      column('resource_class', text('resource_class')),
      column('resource_id', link('resource_id', 'resource')),
      column('mime_type', (record) =>
        isObject(record.mime_type) ? toText(record.mime_type.string) : toText(record.mime_type),
      ),
    ],
    sortable: ['mime_type'],
    filterable: ['resource_class', 'resource_id', 'mime_type'],
    searchOf: nameOnly,
  },
  saved_searches: {
    code: 19,
    columns: [
      column(
        'project_id',
        (record) => link('project', 'project_id')(record) ?? toLinkIds(record.projects)[0] ?? null,
      ),
      column('search_id', link('search_id')),
    ],
    idOf: (record) => record.id ?? record.saved_search_session_id,
    filterable: ['project_id', 'search_id'],
    searchOf: nameOnly,
  },
  mapping_templates: {
    code: 20,
    columns: [column('owner', person('owner'))],
    sortable: ['owner'],
    filterable: ['owner'],
    searchOf: nameOnly,
  },
  import_parsers: { code: 21, searchOf: nameOnly },
  registration_forms: { code: 22, searchOf: nameOnly },
  registration_systems: { code: 23, searchOf: nameOnly },
  dose_response_calculations: {
    code: 24,
    nameOf: (record) => toText(record.name) ?? toText(record.equation_type),
    columns: [
      column('protocol_id', link('protocol', 'protocol_id')),
      column('readout_definition_id', link('readout_definition', 'readout_definition_id')),
      column('equation_type', text('equation_type')),
    ],
    parentColumn: 'protocol_id',
    filterable: ['protocol_id', 'readout_definition_id', 'equation_type'],
  },
  dose_response_series: {
    code: 25,
    columns: [
      column('calculation_id', link('dose_response_calculation', 'calculation_id')),
      column('batch_id', link('batch', 'batch_id')),
      column('run_id', link('run', 'run_id')),
    ],
    parentColumn: 'calculation_id',
    filterable: ['calculation_id', 'batch_id', 'run_id'],
  },
  vault_status: { code: 26, idOf: (_record, vaultId) => vaultId },
  slurps: {
    code: 27,
    columns: [
      column('status', (record) => toText(record.state ?? record.status)),
      column('owner', person('owner')),
      column('project_id', link('project', 'project_id')),
    ],
    sortable: ['status', 'owner'],
    filterable: ['status', 'owner', 'project_id'],
  },
  batch_move_jobs: {
    code: 28,
    columns: [
      column('batch_id', link('batch')),
      column('molecule_id', link('molecule')),
      column('status', text('status')),
    ],
    sortable: ['status'],
    filterable: ['batch_id', 'molecule_id', 'status'],
  },
}

export const recordKinds: ReadonlyMap<RecordKindName, RecordKind> = new Map(
  recordKindNames.map((name) => {
    const spec = specs[name]
    const kind: RecordKind = {
      name,
      code: spec.code,
      table: name,
      idOf: spec.idOf ?? ownId,
      nameOf: spec.nameOf ?? nameMember,
      columns: spec.columns ?? [],
      ...(spec.parentColumn ? { parentColumn: spec.parentColumn } : {}),
      ...(spec.projectsOf ? { projectsOf: spec.projectsOf } : {}),
      ...(spec.searchOf ? { searchOf: spec.searchOf } : {}),
      sortable: ['name', 'created_at', 'modified_at', 'id', ...(spec.sortable ?? [])],
      filterable: ['id', ...(spec.filterable ?? [])],
    }
    return [name, kind]
  }),
)

export const recordKindsByCode: ReadonlyMap<number, RecordKind> = new Map(
  [...recordKinds.values()].map((kind) => [kind.code, kind]),
)

export function recordKind(name: string): RecordKind {
  const kind = recordKinds.get(name as RecordKindName)
  if (!kind) {
    throw new AppError(
      'invalid_argument',
      `Unknown record kind "${name}". Known kinds: ${recordKindNames.join(', ')}.`,
    )
  }
  return kind
}

/** The vault id argument of a store call, strictly: an integer or a string of digits. */
export function vaultIdOf(value: unknown): number {
  const id = toId(value)
  if (id === null)
    throw new AppError('invalid_argument', `Not a vault id: ${JSON.stringify(value)}.`)
  return id
}

export const createdAtOf = time('created_at')
export const modifiedAtOf = time('modified_at')
