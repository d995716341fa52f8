/** The registry: molecules and their batches. */
import { countCell, day, decimalsCell, linkNames, measure } from '../../format/cells.ts'
import { formatCount } from '../../format/numbers.ts'
import { formatFieldEntries } from '../../format/values.ts'
import {
  distinct,
  fieldTexts,
  isObject,
  toLinkIds,
  toObjects,
  toPersonName,
  toText,
  toTexts,
} from '../../values.ts'
import { column, link, number, person, text } from '../columns.ts'
import { declareKind, type ListColumn } from '../kind-declaration.ts'
import { createdColumn, ownerColumn, projectsColumn } from './list-columns.ts'

const projectList = (record: Record<string, unknown>): number[] => toLinkIds(record.projects)

export const molecules = declareKind({
  name: 'molecules',
  code: 7,
  pull: { order: 50, mode: 'incremental', carries: 'batches' },
  singular: 'Molecule',
  plural: 'Molecules',
  columns: [
    text('registration_type', 'registration_type', { sortable: true, filterable: true }),
    person('owner', 'owner', { sortable: true, filterable: true }),
    text('inchi_key', 'inchi_key', { filterable: true }),
    text('formula', 'formula', { sortable: true, filterable: true }),
    number('molecular_weight', 'molecular_weight', { sortable: true }),
    number('log_p', 'log_p', { sortable: true }),
  ],
  indexes: ['modified_at'],
  projectsOf: projectList,
  fieldMaps: ['molecule_fields', 'udfs'],
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
    const synonyms: (string | null)[] = toTexts(record.synonyms)
    synonyms.push(toText(record.iupac_name))
    return { name: toText(record.name), identifiers, synonyms, content: distinct(content) }
  },
  links: [
    { kind: 'batches', column: 'molecule_id', from: { own: 'id' } },
    {
      kind: 'readout_rows',
      column: 'batch_id',
      from: { linked: 'batches', column: 'id' },
      many: true,
    },
    { kind: 'runs', column: 'id', from: { linked: 'readout_rows', column: 'run_id' } },
    {
      kind: 'protocols',
      column: 'id',
      from: [
        { linked: 'readout_rows', column: 'protocol_id' },
        { linked: 'runs', column: 'protocol_id' },
      ],
    },
    { kind: 'inventory_samples', column: 'batch_id', from: { linked: 'batches', column: 'id' } },
    {
      kind: 'files',
      column: 'resource_id',
      from: { own: 'id' },
      where: { resource_class: 'molecule' },
    },
  ],
  browse: {
    slug: 'molecules',
    section: 'molecules',
    icon: 'molecule',
    list: {
      columns: [
        // The name's cell also shows the structure's thumbnail.
        { id: 'name', label: 'Name', value: (row) => row.columns.name, width: 210, grow: 1.4 },
        { id: 'formula', label: 'Formula', value: (row) => row.columns.formula, width: 124 },
        {
          id: 'molecular_weight',
          label: 'MW',
          value: (row) => row.columns.molecular_weight,
          format: decimalsCell(2),
          width: 80,
          align: 'end',
        },
        {
          id: 'log_p',
          label: 'cLogP',
          value: (row) => row.columns.log_p,
          format: decimalsCell(2),
          width: 72,
          align: 'end',
        },
        {
          id: 'batch_count',
          label: 'Batches',
          value: (row) => (Array.isArray(row.json.batches) ? row.json.batches.length : null),
          format: countCell,
          width: 76,
          align: 'end',
        },
        { ...projectsColumn, width: 118 },
        { ...createdColumn, label: 'Registered', width: 126 },
      ],
      projectFilter: 'projects',
      filters: [
        {
          id: 'registration_type',
          label: 'Type',
          anyLabel: 'All types',
          choices: [
            { label: 'Chemical structures', set: { registration_type: 'CHEMICAL_STRUCTURE' } },
            { label: 'Nucleotides', set: { registration_type: 'NUCLEOTIDE' } },
            { label: 'Amino acids', set: { registration_type: 'AMINO_ACID' } },
          ],
        },
      ],
      searchPlaceholder: 'Name, synonym, InChIKey, batch or field value',
    },
    preview: ({ json }) => [
      { label: 'Formula', value: toText(json.formula), mono: true },
      { label: 'Molecular weight', value: measure(json.molecular_weight, 2, ' g/mol') },
      { label: 'cLogP', value: measure(json.log_p, 2) },
      { label: 'TPSA', value: measure(json.topological_polar_surface_area, 1, ' Å²') },
      { label: 'Batches', value: formatCount(toObjects(json.batches).length) },
      { label: 'Synonyms', value: toTexts(json.synonyms).join(', ') || null },
      { label: 'Projects', value: linkNames(json.projects) },
      { label: 'Owner', value: toPersonName(json.owner) },
      { label: 'Registered', value: day(json.created_at) },
    ],
  },
})

const batchTitle: ListColumn = {
  id: 'identifier',
  label: 'Batch',
  value: (row) => row.columns.identifier ?? row.columns.name ?? `Batch ${row.id ?? ''}`.trim(),
  width: 150,
  grow: 1.4,
}

export const batches = declareKind({
  name: 'batches',
  code: 8,
  // Batches arrive inside their molecules; this pass catches batches changed on their own.
  pull: { order: 60, mode: 'incremental' },
  singular: 'Batch',
  plural: 'Batches',
  columns: [
    link('molecule_id', ['molecule', 'molecule_id'], { filterable: true, linksTo: 'molecules' }),
    // Set by the writer for a batch nested in its molecule (its JSON is read from there).
    column('position', 'INTEGER', () => null),
    text('identifier', 'molecule_batch_identifier', {
      collate: 'NOCASE',
      sortable: true,
      filterable: true,
    }),
    person('owner', 'owner', { sortable: true, filterable: true }),
    text('salt_name', 'salt_name', { sortable: true, filterable: true }),
    number('formula_weight', 'formula_weight', { sortable: true }),
  ],
  indexes: ['molecule_id', 'identifier'],
  nestedJson: true,
  unnamed: true,
  projectsOf: projectList,
  searchedThrough: { kind: 'molecules', column: 'molecule_id' },
  fieldMaps: ['batch_fields'],
  titleOf: (record) => toText(record.molecule_batch_identifier) ?? toText(record.name),
  links: [
    { kind: 'molecules', column: 'id', from: { own: 'molecule_id' } },
    { kind: 'readout_rows', column: 'batch_id', from: { own: 'id' }, many: true },
    { kind: 'runs', column: 'id', from: { linked: 'readout_rows', column: 'run_id' } },
    {
      kind: 'protocols',
      column: 'id',
      from: [
        { linked: 'readout_rows', column: 'protocol_id' },
        { linked: 'runs', column: 'protocol_id' },
      ],
    },
    { kind: 'inventory_samples', column: 'batch_id', from: { own: 'id' } },
  ],
  browse: {
    slug: 'batches',
    section: 'batches',
    icon: 'vial',
    list: {
      columns: [
        batchTitle,
        {
          id: 'formula_weight',
          label: 'FW (g/mol)',
          value: (row) => row.columns.formula_weight,
          format: decimalsCell(2),
          width: 104,
          align: 'end',
        },
        { id: 'salt_name', label: 'Salt', value: (row) => row.columns.salt_name, width: 90 },
        {
          id: 'batch_fields',
          label: 'Fields',
          value: (row) =>
            formatFieldEntries(row.json.batch_fields)
              .map((entry) => entry.value)
              .join(' · ') || null,
          width: 200,
          grow: 2,
          sortable: false,
        },
        projectsColumn,
        ownerColumn,
        createdColumn,
      ],
      projectFilter: 'projects',
      filters: [],
      searchPlaceholder: 'Batch identifier, molecule name or field value',
    },
    preview: ({ json }) => [
      { label: 'Formula weight', value: measure(json.formula_weight, 2, ' g/mol') },
      { label: 'Salt', value: toText(json.salt_name) },
      ...formatFieldEntries(json.batch_fields),
      { label: 'Projects', value: linkNames(json.projects) },
      { label: 'Owner', value: toPersonName(json.owner) },
      { label: 'Created', value: day(json.created_at) },
    ],
  },
})

export const registryKinds = [molecules, batches] as const
