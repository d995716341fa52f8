/** Inventory: the location tree and the samples kept in it. */
import { dayCell } from '../../format/cells.ts'
import { formatTimestamp } from '../../format/dates.ts'
import { formatAmount } from '../../format/numbers.ts'
import { formatFieldEntries } from '../../format/values.ts'
import { fieldTexts, toLinkName, toNumber, toPersonName, toText } from '../../values.ts'
import { link, number, person, text } from '../columns.ts'
import { declareKind } from '../kind-declaration.ts'
import { ownerColumn } from './list-columns.ts'

const sampleUnits = ['g', 'mg', 'µg', 'mL', 'µL', 'mM', 'µM', 'count'] as const

export const inventoryLocations = declareKind({
  name: 'inventory_locations',
  code: 15,
  pull: { order: 140, mode: 'listed' },
  singular: 'Location',
  plural: 'Locations',
  nameOf: (record) => toText(record.value ?? record.name),
  columns: [link('parent_id', ['parent_id', 'parent'], { filterable: true })],
  indexes: ['parent_id'],
  searchOf: (record) => ({ name: toText(record.value ?? record.name) }),
  titleOf: (record) => toText(record.value) ?? toText(record.name),
  links: [
    {
      kind: 'inventory_locations',
      column: 'id',
      from: { own: 'parent_id' },
      ancestors: 'parent_id',
    },
    { kind: 'inventory_samples', column: 'location_id', from: { own: 'id' } },
  ],
  // Locations are browsed as the inventory's tree, not as a list.
  browse: { slug: 'locations', section: 'inventory', icon: 'box' },
})

export const inventorySamples = declareKind({
  name: 'inventory_samples',
  code: 16,
  // The server keeps no id listing of samples, so deletions are only seen in a whole listing.
  pull: { order: 150, mode: 'incremental' },
  singular: 'Sample',
  plural: 'Samples',
  columns: [
    link('batch_id', ['batch_id', 'batch'], { filterable: true, linksTo: 'batches' }),
    link('location_id', ['location', 'location_id'], {
      filterable: true,
      linksTo: 'inventory_locations',
    }),
    person('owner', 'owner', { sortable: true, filterable: true }),
    text('units', 'units', { sortable: true, filterable: true }),
    number('current_amount', 'current_amount', { sortable: true }),
  ],
  indexes: ['batch_id', 'location_id', 'modified_at'],
  fieldMaps: ['fields'],
  searchOf: (record) => ({ name: toText(record.name), content: fieldTexts(record.fields) }),
  links: [
    { kind: 'batches', column: 'id', from: { own: 'batch_id' } },
    {
      kind: 'inventory_locations',
      column: 'id',
      from: { own: 'location_id' },
      ancestors: 'parent_id',
    },
  ],
  browse: {
    slug: 'samples',
    section: 'inventory',
    icon: 'box',
    list: {
      columns: [
        {
          id: 'id',
          label: 'Sample',
          value: (row) => row.columns.name ?? `Sample ${row.id ?? ''}`.trim(),
          width: 110,
        },
        {
          id: 'current_amount',
          label: 'Amount',
          value: (row) => row.columns.current_amount,
          format: (value, row) =>
            formatAmount(typeof value === 'number' ? value : null, toText(row.columns.units)),
          width: 100,
          align: 'end',
        },
        {
          id: 'location',
          label: 'Location',
          value: (row) => toLinkName(row.json.location),
          width: 140,
          grow: 1.2,
        },
        {
          id: 'fields',
          label: 'Fields',
          value: (row) =>
            formatFieldEntries(row.json.fields)
              .map((entry) => entry.value)
              .join(' · ') || null,
          width: 140,
          grow: 1.2,
        },
        ownerColumn,
        {
          id: 'modified_at',
          label: 'Last change',
          value: (row) => row.columns.modified_at,
          format: dayCell,
          width: 116,
        },
      ],
      projectFilter: null,
      filters: [
        {
          id: 'units',
          label: 'Units',
          anyLabel: 'All units',
          choices: sampleUnits.map((unit) => ({ label: unit, set: { units: unit } })),
        },
      ],
      searchPlaceholder: 'Sample name or field value',
    },
    preview: ({ json }) => [
      {
        label: 'Amount',
        value: formatAmount(toNumber(json.current_amount), toText(json.units)) || null,
      },
      { label: 'Location', value: toLinkName(json.location) },
      ...formatFieldEntries(json.fields),
      { label: 'Owner', value: toPersonName(json.owner) },
      { label: 'Last change', value: formatTimestamp(toText(json.modified_at)) || null },
    ],
  },
})

export const inventoryKinds = [inventoryLocations, inventorySamples] as const
