/**
 * What each record list shows: its columns (whose ids are the cache's sort columns where the cache
 * can sort by them), the filters offered above it, its first order, and how the project switcher
 * narrows it.
 */
import type { Column, SortState } from '../../components/table/table-model.ts'
import type { CachedRecord } from '../../lib/bridge.ts'
import { formatDay } from '../../lib/format/dates.ts'
import { formatAmount, formatCount, formatMeasure } from '../../lib/format/numbers.ts'
import type { ListKind } from '../../lib/records/browse-kinds.ts'
import { recordTitle } from '../../lib/records/record-titles.ts'
import {
  isRecord,
  linkNameOf,
  namedLinksOf,
  numberOf,
  personOf,
  recordsOf,
  textOf,
} from '../../lib/records/record-values.ts'
import type { FilterValue, ProjectFilter } from '../../lib/state/record-list.svelte.ts'

type RecordColumn = Column<CachedRecord>

export interface FilterChoice {
  label: string
  /** The column filters this choice sets; choosing "all" clears every column of the filter. */
  set: Readonly<Record<string, FilterValue>>
}

export interface ListFilter {
  id: string
  label: string
  /** The first choice: no filtering. */
  anyLabel: string
  /** Fixed choices, or the distinct values of a member of the first 1000 records of a kind. */
  choices:
    | readonly FilterChoice[]
    | { kind: 'protocols' | 'runs' | 'plates'; column: string; member: 'id' | string }
}

export interface ListDefinition {
  kind: ListKind
  columns: readonly RecordColumn[]
  sort: SortState | null
  projectFilter: ProjectFilter
  filters: readonly ListFilter[]
  searchPlaceholder: string
}

const day = (value: unknown) => formatDay(typeof value === 'string' ? value : null)
const decimals = (places: number) => (value: unknown) =>
  typeof value === 'number' ? formatMeasure(value, places) : ''
const count = (value: unknown) => (typeof value === 'number' ? formatCount(value) : '')
const projectNames = (record: CachedRecord) =>
  namedLinksOf(record.projects)
    .map((project) => project.name)
    .join(', ')

const created: RecordColumn = {
  id: 'created_at',
  label: 'Created',
  value: (record) => textOf(record.created_at),
  format: day,
  width: 116,
}
const owner: RecordColumn = {
  id: 'owner',
  label: 'Owner',
  value: (record) => personOf(record.owner),
  width: 130,
}
const projects: RecordColumn = {
  id: 'projects',
  label: 'Projects',
  value: projectNames,
  width: 150,
}

const molecules: ListDefinition = {
  kind: 'molecules',
  columns: [
    // The name's cell also shows the structure's thumbnail.
    { id: 'name', label: 'Name', value: (record) => textOf(record.name), width: 210, grow: 1.4 },
    { id: 'formula', label: 'Formula', value: (record) => textOf(record.formula), width: 124 },
    {
      id: 'molecular_weight',
      label: 'MW',
      value: (record) => numberOf(record.molecular_weight),
      format: decimals(2),
      width: 80,
      align: 'end',
    },
    {
      id: 'log_p',
      label: 'cLogP',
      value: (record) => numberOf(record.log_p),
      format: decimals(2),
      width: 72,
      align: 'end',
    },
    {
      id: 'batch_count',
      label: 'Batches',
      value: (record) => (Array.isArray(record.batches) ? record.batches.length : null),
      format: count,
      width: 76,
      align: 'end',
    },
    { ...projects, width: 118 },
    { ...created, label: 'Registered', width: 126 },
  ],
  sort: null,
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
}

const batches: ListDefinition = {
  kind: 'batches',
  columns: [
    {
      id: 'identifier',
      label: 'Batch',
      value: (record) => recordTitle('batches', record),
      width: 150,
      grow: 1.4,
    },
    {
      id: 'formula_weight',
      label: 'FW (g/mol)',
      value: (record) => numberOf(record.formula_weight),
      format: decimals(2),
      width: 104,
      align: 'end',
    },
    { id: 'salt_name', label: 'Salt', value: (record) => textOf(record.salt_name), width: 90 },
    {
      id: 'batch_fields',
      label: 'Fields',
      value: (record) =>
        isRecord(record.batch_fields)
          ? Object.values(record.batch_fields).map(textOf).filter(Boolean).join(' · ')
          : null,
      width: 200,
      grow: 2,
    },
    projects,
    owner,
    created,
  ],
  sort: null,
  projectFilter: 'projects',
  filters: [],
  searchPlaceholder: 'Batch identifier, molecule name or field value',
}

const protocols: ListDefinition = {
  kind: 'protocols',
  columns: [
    { id: 'name', label: 'Protocol', value: (record) => textOf(record.name), width: 200, grow: 2 },
    { id: 'category', label: 'Category', value: (record) => textOf(record.category), width: 120 },
    {
      id: 'readout_count',
      label: 'Readouts',
      value: (record) => recordsOf(record.readout_definitions).length,
      format: count,
      width: 90,
      align: 'end',
    },
    {
      id: 'run_count',
      label: 'Runs',
      value: (record) => (Array.isArray(record.runs) ? record.runs.length : null),
      format: count,
      width: 70,
      align: 'end',
    },
    projects,
    owner,
    created,
  ],
  sort: null,
  projectFilter: 'projects',
  filters: [
    {
      id: 'category',
      label: 'Category',
      anyLabel: 'All categories',
      choices: { kind: 'protocols', column: 'category', member: 'category' },
    },
  ],
  searchPlaceholder: 'Protocol name, description or field value',
}

const runs: ListDefinition = {
  kind: 'runs',
  columns: [
    {
      id: 'run_date',
      label: 'Run date',
      value: (record) => textOf(record.run_date),
      format: day,
      width: 116,
    },
    {
      id: 'protocol',
      label: 'Protocol',
      value: (record) => linkNameOf(record.protocol),
      width: 200,
      grow: 2,
    },
    { id: 'person', label: 'Person', value: (record) => personOf(record.person), width: 120 },
    { id: 'place', label: 'Place', value: (record) => textOf(record.place), width: 110 },
    {
      id: 'conditions',
      label: 'Conditions',
      value: (record) => textOf(record.conditions),
      width: 160,
      grow: 1.5,
    },
    {
      id: 'project',
      label: 'Project',
      value: (record) => linkNameOf(record.project),
      width: 140,
    },
  ],
  sort: { columnId: 'run_date', direction: 'descending' },
  projectFilter: 'project_id',
  filters: [
    {
      id: 'protocol',
      label: 'Protocol',
      anyLabel: 'All protocols',
      choices: { kind: 'protocols', column: 'protocol_id', member: 'id' },
    },
  ],
  searchPlaceholder: '',
}

const readoutRows: ListDefinition = {
  kind: 'readout_rows',
  columns: [
    {
      id: 'id',
      label: 'Row',
      value: (record) => numberOf(record.id),
      width: 72,
      align: 'end',
    },
    {
      id: 'run',
      label: 'Run',
      value: (record) => (isRecord(record.run) ? textOf(record.run.run_date) : null),
      format: day,
      width: 116,
    },
    { id: 'well', label: 'Well', value: (record) => textOf(record.well), width: 70 },
    {
      id: 'control_state',
      label: 'Control',
      value: (record) => textOf(record.control_state),
      width: 96,
    },
    {
      id: 'row_type',
      label: 'Type',
      value: (record) => textOf(record.type),
      format: (value) =>
        typeof value === 'string'
          ? value.replace(/ row$/, '').replace(/^./, (c) => c.toUpperCase())
          : '',
      width: 96,
    },
    {
      id: 'readouts',
      label: 'Readouts',
      value: () => null,
      width: 260,
      grow: 3,
      sortable: false,
    },
  ],
  sort: null,
  projectFilter: null,
  filters: [
    {
      id: 'protocol',
      label: 'Protocol',
      anyLabel: 'All protocols',
      choices: { kind: 'protocols', column: 'protocol_id', member: 'id' },
    },
    {
      id: 'marks',
      label: 'Marks',
      anyLabel: 'All rows',
      choices: [
        { label: 'Outliers', set: { has_outlier: 1 } },
        { label: 'With a note', set: { has_note: 1 } },
        { label: 'Qualified (< or >)', set: { has_modifier: 1 } },
        { label: 'Positive controls', set: { control_state: '+' } },
        { label: 'Negative controls', set: { control_state: '-' } },
      ],
    },
  ],
  searchPlaceholder: '',
}

const plates: ListDefinition = {
  kind: 'plates',
  columns: [
    { id: 'name', label: 'Plate', value: (record) => textOf(record.name), width: 150, grow: 1.5 },
    {
      id: 'size',
      label: 'Wells',
      value: (record) => numberOf(record.size),
      format: count,
      width: 80,
      align: 'end',
    },
    {
      id: 'filled',
      label: 'Filled',
      value: (record) => recordsOf(record.wells).length,
      format: count,
      width: 80,
      align: 'end',
    },
    { id: 'location', label: 'Location', value: (record) => textOf(record.location), width: 160 },
    projects,
    created,
  ],
  sort: null,
  projectFilter: 'projects',
  filters: [
    {
      id: 'location',
      label: 'Location',
      anyLabel: 'All locations',
      choices: { kind: 'plates', column: 'location', member: 'location' },
    },
  ],
  searchPlaceholder: 'Plate name',
}

const samples: ListDefinition = {
  kind: 'inventory_samples',
  columns: [
    {
      id: 'id',
      label: 'Sample',
      value: (record) => recordTitle('inventory_samples', record),
      width: 110,
    },
    {
      id: 'current_amount',
      label: 'Amount',
      value: (record) => numberOf(record.current_amount),
      format: (value, record) =>
        formatAmount(typeof value === 'number' ? value : null, textOf(record.units)),
      width: 100,
      align: 'end',
    },
    {
      id: 'location',
      label: 'Location',
      value: (record) => linkNameOf(record.location),
      width: 140,
      grow: 1.2,
    },
    {
      id: 'fields',
      label: 'Fields',
      value: (record) =>
        isRecord(record.fields)
          ? Object.values(record.fields).map(textOf).filter(Boolean).join(' · ')
          : null,
      width: 140,
      grow: 1.2,
    },
    owner,
    {
      ...created,
      id: 'modified_at',
      label: 'Last change',
      value: (record) => textOf(record.modified_at),
    },
  ],
  sort: null,
  projectFilter: null,
  filters: [
    {
      id: 'units',
      label: 'Units',
      anyLabel: 'All units',
      choices: ['g', 'mg', 'µg', 'mL', 'µL', 'mM', 'µM', 'count'].map((unit) => ({
        label: unit,
        set: { units: unit },
      })),
    },
  ],
  searchPlaceholder: 'Sample name or field value',
}

const entryStatuses = ['open', 'submitted', 'finalized', 'discarded'] as const

const entries: ListDefinition = {
  kind: 'eln_entries',
  columns: [
    {
      id: 'name',
      label: 'Entry',
      value: (record) => recordTitle('eln_entries', record),
      width: 220,
      grow: 2.5,
    },
    { id: 'status', label: 'Status', value: (record) => textOf(record.status), width: 110 },
    { id: 'author', label: 'Author', value: (record) => personOf(record.author), width: 150 },
    created,
  ],
  sort: null,
  projectFilter: 'project_id',
  filters: [
    {
      id: 'status',
      label: 'Status',
      anyLabel: 'All statuses',
      choices: entryStatuses.map((status) => ({
        label: status.charAt(0).toUpperCase() + status.slice(1),
        set: { status },
      })),
    },
  ],
  searchPlaceholder: 'Entry title or field value',
}

export const listDefinitions: Record<ListKind, ListDefinition> = {
  molecules,
  batches,
  protocols,
  runs,
  readout_rows: readoutRows,
  plates,
  inventory_samples: samples,
  eln_entries: entries,
}
