/** Assays: protocols, their runs and readout rows, control layouts and dose-response curves. */
import { countCell, day, dayCell, linkNames } from '../../format/cells.ts'
import { formatDay } from '../../format/dates.ts'
import { formatCount } from '../../format/numbers.ts'
import {
  fieldTexts,
  isObject,
  isSet,
  toId,
  toLinkIds,
  toLinkName,
  toObjects,
  toPersonName,
  toText,
} from '../../values.ts'
import { anyCell, column, flag, link, person, text } from '../columns.ts'
import { declareKind } from '../kind-declaration.ts'
import { createdColumn, ownerColumn, projectsColumn } from './list-columns.ts'

const protocolFilter = {
  id: 'protocol',
  label: 'Protocol',
  anyLabel: 'All protocols',
  choices: { distinct: 'protocol_id' },
} as const

export const protocols = declareKind({
  name: 'protocols',
  code: 10,
  pull: { order: 90, mode: 'paged', followsReadouts: true },
  singular: 'Protocol',
  plural: 'Protocols',
  columns: [
    text('category', 'category', { sortable: true, filterable: true }),
    link('data_set_id', ['data_set', 'data_set_id'], { filterable: true, linksTo: 'data_sets' }),
    person('owner', 'owner', { sortable: true, filterable: true }),
  ],
  projectsOf: (record) => toLinkIds(record.projects),
  fieldMaps: ['protocol_fields'],
  searchOf: (record) => ({
    name: toText(record.name),
    content: [
      toText(record.description),
      toText(record.category),
      ...fieldTexts(record.protocol_fields),
    ],
  }),
  links: [
    { kind: 'runs', column: 'protocol_id', from: { own: 'id' } },
    { kind: 'dose_response_calculations', column: 'protocol_id', from: { own: 'id' } },
    { kind: 'control_layouts', column: 'protocol_id', from: { own: 'id' } },
    {
      kind: 'files',
      column: 'resource_id',
      from: { own: 'id' },
      where: { resource_class: 'protocol' },
    },
  ],
  browse: {
    slug: 'protocols',
    section: 'assays',
    icon: 'flask',
    list: {
      columns: [
        { id: 'name', label: 'Protocol', value: (row) => row.columns.name, width: 200, grow: 2 },
        { id: 'category', label: 'Category', value: (row) => row.columns.category, width: 120 },
        {
          id: 'readout_count',
          label: 'Readouts',
          value: (row) => toObjects(row.json.readout_definitions).length,
          format: countCell,
          width: 90,
          align: 'end',
        },
        {
          id: 'run_count',
          label: 'Runs',
          value: (row) => (Array.isArray(row.json.runs) ? row.json.runs.length : null),
          format: countCell,
          width: 70,
          align: 'end',
        },
        projectsColumn,
        ownerColumn,
        createdColumn,
      ],
      projectFilter: 'projects',
      filters: [
        {
          id: 'category',
          label: 'Category',
          anyLabel: 'All categories',
          choices: { distinct: 'category' },
        },
      ],
      searchPlaceholder: 'Protocol name, description or field value',
    },
    preview: ({ json }) => [
      { label: 'Category', value: toText(json.category) },
      { label: 'Description', value: toText(json.description) },
      {
        label: 'Readouts',
        value:
          toObjects(json.readout_definitions)
            .map((definition) => toText(definition.name))
            .filter(Boolean)
            .join(', ') || null,
      },
      { label: 'Runs', value: formatCount(toObjects(json.runs).length) },
      { label: 'Projects', value: linkNames(json.projects) },
      { label: 'Owner', value: toPersonName(json.owner) },
    ],
  },
})

export const runs = declareKind({
  name: 'runs',
  code: 11,
  pull: { order: 110, mode: 'paged', followsReadouts: true, keep: ['plate_statistics'] },
  singular: 'Run',
  plural: 'Runs',
  nameOf: (record) => toText(record.name) ?? toText(record.run_date),
  columns: [
    link('protocol_id', ['protocol', 'protocol_id'], { filterable: true, linksTo: 'protocols' }),
    link('project_id', ['project', 'project_id'], { filterable: true, linksTo: 'projects' }),
    text('run_date', 'run_date', { sortable: true, filterable: true }),
    person('person', 'person', { sortable: true, filterable: true }),
    text('place', 'place', { sortable: true, filterable: true }),
    link('slurp_id', ['slurp', 'slurp_id'], { filterable: true, linksTo: 'slurps' }),
  ],
  indexes: ['protocol_id', 'run_date'],
  titleOf: (record) => {
    const date = toText(record.run_date)
    return date ? `Run of ${formatDay(date)}` : null
  },
  links: [
    { kind: 'protocols', column: 'id', from: { own: 'protocol_id' } },
    { kind: 'readout_rows', column: 'run_id', from: { own: 'id' }, many: true },
    { kind: 'batches', column: 'id', from: { linked: 'readout_rows', column: 'batch_id' } },
    { kind: 'control_layouts', column: 'run_id', from: { own: 'id' } },
    { kind: 'files', column: 'resource_id', from: { own: 'id' }, where: { resource_class: 'run' } },
  ],
  browse: {
    slug: 'runs',
    section: 'assays',
    icon: 'flask',
    list: {
      columns: [
        {
          id: 'run_date',
          label: 'Run date',
          value: (row) => row.columns.run_date,
          format: dayCell,
          width: 116,
        },
        {
          id: 'protocol',
          label: 'Protocol',
          value: (row) => toLinkName(row.json.protocol),
          width: 200,
          grow: 2,
        },
        { id: 'person', label: 'Person', value: (row) => row.columns.person, width: 120 },
        { id: 'place', label: 'Place', value: (row) => row.columns.place, width: 110 },
        {
          id: 'conditions',
          label: 'Conditions',
          value: (row) => toText(row.json.conditions),
          width: 160,
          grow: 1.5,
        },
        {
          id: 'project',
          label: 'Project',
          value: (row) => toLinkName(row.json.project),
          width: 140,
        },
      ],
      sort: { columnId: 'run_date', direction: 'descending' },
      projectFilter: 'project_id',
      filters: [protocolFilter],
      searchPlaceholder: '',
    },
    preview: ({ json }) => [
      { label: 'Protocol', value: toLinkName(json.protocol) },
      { label: 'Run date', value: day(json.run_date) },
      { label: 'Person', value: toPersonName(json.person) },
      { label: 'Place', value: toText(json.place) },
      { label: 'Conditions', value: toText(json.conditions) },
      { label: 'Project', value: toLinkName(json.project) },
    ],
  },
})

/** A readout row's well, given as a position or as `{pos}`. */
const wellOf = (record: Record<string, unknown>) =>
  isObject(record.well) ? toText(record.well.pos) : toText(record.well)

export const readoutRows = declareKind({
  name: 'readout_rows',
  code: 12,
  pull: { order: 80, mode: 'incremental' },
  singular: 'Readout row',
  plural: 'Readout rows',
  columns: [
    link('protocol_id', ['protocol', 'protocol_id'], { filterable: true, linksTo: 'protocols' }),
    link('run_id', ['run', 'run_id'], { filterable: true, linksTo: 'runs' }),
    column(
      'run_date',
      'TEXT',
      (record) => (isObject(record.run) ? toText(record.run.run_date) : toText(record.run_date)),
      { sortable: true },
    ),
    link('molecule_id', ['molecule', 'molecule_id'], { filterable: true, linksTo: 'molecules' }),
    link('batch_id', ['batch', 'batch_id'], { filterable: true, linksTo: 'batches' }),
    link('plate_id', ['plate', 'plate_id'], { filterable: true, linksTo: 'plates' }),
    text('row_type', 'type', { sortable: true, filterable: true }),
    text('control_state', 'control_state', { sortable: true, filterable: true }),
    column('well', 'TEXT', wellOf, { sortable: true, filterable: true }),
    flag(
      'has_modifier',
      (record) => anyCell(record.readouts, (cell) => toText(cell.modifier) !== null),
      {
        filterable: true,
      },
    ),
    flag('has_outlier', (record) => anyCell(record.readouts, (cell) => isSet(cell.outlier)), {
      filterable: true,
    }),
    flag(
      'has_note',
      (record) =>
        anyCell(record.readouts, (cell) => typeof cell.note === 'string' && cell.note !== ''),
      { filterable: true },
    ),
  ],
  indexes: [
    'protocol_id',
    'run_id',
    'molecule_id',
    'batch_id',
    // A plate page reads every row of its plate from the index alone (cache step 14).
    {
      column: 'plate_id',
      covering: ['id', 'well', 'control_state', 'batch_id'],
      withValueOnly: true,
    },
  ],
  unnamed: true,
  titleOf: (record) => {
    const well = wellOf(record)
    const title = `Readout row ${toId(record.id) ?? ''}`.trim()
    return well ? `${title} · well ${well}` : null
  },
  links: [
    { kind: 'molecules', column: 'id', from: { own: 'molecule_id' } },
    { kind: 'batches', column: 'id', from: { own: 'batch_id' } },
    { kind: 'runs', column: 'id', from: { own: 'run_id' } },
    {
      kind: 'protocols',
      column: 'id',
      from: [{ own: 'protocol_id' }, { linked: 'runs', column: 'protocol_id' }],
    },
    { kind: 'plates', column: 'id', from: { own: 'plate_id' } },
  ],
  browse: {
    slug: 'readout-rows',
    section: 'assays',
    icon: 'flask',
    list: {
      columns: [
        { id: 'id', label: 'Row', value: (row) => row.id, width: 72, align: 'end' },
        {
          id: 'run_date',
          label: 'Run',
          value: (row) => row.columns.run_date,
          format: dayCell,
          width: 116,
        },
        { id: 'well', label: 'Well', value: (row) => row.columns.well, width: 70 },
        {
          id: 'control_state',
          label: 'Control',
          value: (row) => row.columns.control_state,
          width: 96,
        },
        {
          id: 'row_type',
          label: 'Type',
          value: (row) => row.columns.row_type,
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
      projectFilter: null,
      filters: [
        protocolFilter,
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
    },
    preview: ({ json, columns }) => [
      { label: 'Type', value: toText(json.type) },
      { label: 'Run', value: day(columns.run_date) },
      { label: 'Well', value: toText(columns.well) },
      { label: 'Control', value: toText(json.control_state) },
    ],
  },
})

export const controlLayouts = declareKind({
  name: 'control_layouts',
  code: 14,
  pull: { order: 130, mode: 'incremental', onRefresh: true },
  singular: 'Control layout',
  plural: 'Control layouts',
  columns: [
    link('protocol_id', ['protocol', 'protocol_id'], { filterable: true, linksTo: 'protocols' }),
    link('run_id', ['run', 'run_id'], { filterable: true, linksTo: 'runs' }),
    link('plate_id', ['plate_id', 'plate'], { filterable: true, linksTo: 'plates' }),
  ],
  indexes: ['protocol_id', 'run_id', 'plate_id'],
})

export const doseResponseCalculations = declareKind({
  name: 'dose_response_calculations',
  code: 24,
  pull: { order: 100, mode: 'dose_response' },
  singular: 'Dose-response calculation',
  plural: 'Dose-response calculations',
  nameOf: (record) => toText(record.name) ?? toText(record.equation_type),
  columns: [
    link('protocol_id', ['protocol', 'protocol_id'], { filterable: true, linksTo: 'protocols' }),
    link('readout_definition_id', ['readout_definition', 'readout_definition_id'], {
      filterable: true,
    }),
    text('equation_type', 'equation_type', { filterable: true }),
  ],
  indexes: ['protocol_id'],
  parentColumn: 'protocol_id',
  links: [
    { kind: 'protocols', column: 'id', from: { own: 'protocol_id' } },
    { kind: 'dose_response_series', column: 'calculation_id', from: { own: 'id' } },
  ],
})

export const doseResponseSeries = declareKind({
  name: 'dose_response_series',
  code: 25,
  singular: 'Dose-response curve',
  plural: 'Dose-response curves',
  columns: [
    link('calculation_id', ['dose_response_calculation', 'calculation_id'], {
      filterable: true,
      linksTo: 'dose_response_calculations',
    }),
    link('batch_id', ['batch', 'batch_id'], { filterable: true, linksTo: 'batches' }),
    link('run_id', ['run', 'run_id'], { filterable: true, linksTo: 'runs' }),
  ],
  indexes: ['calculation_id', 'batch_id'],
  parentColumn: 'calculation_id',
  links: [
    { kind: 'batches', column: 'id', from: { own: 'batch_id' } },
    { kind: 'runs', column: 'id', from: { own: 'run_id' } },
  ],
})

export const assayKinds = [
  protocols,
  runs,
  readoutRows,
  controlLayouts,
  doseResponseCalculations,
  doseResponseSeries,
] as const
