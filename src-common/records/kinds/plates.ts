/** Plates and their wells. */
import { countCell, linkNames, measure } from '../../format/cells.ts'
import { formatCount } from '../../format/numbers.ts'
import { toLinkId, toLinkIds, toNumber, toObjects, toText } from '../../values.ts'
import { text } from '../columns.ts'
import { declareKind } from '../kind-declaration.ts'
import { createdColumn, projectsColumn } from './list-columns.ts'

const wellLinks = (member: string) => (record: Record<string, unknown>) =>
  toObjects(record.wells).map((well) => toLinkId(well[member]))

export const plates = declareKind({
  name: 'plates',
  code: 13,
  pull: { order: 120, mode: 'paged' },
  singular: 'Plate',
  plural: 'Plates',
  columns: [text('location', 'location', { sortable: true, filterable: true })],
  projectsOf: (record) => toLinkIds(record.projects),
  searchOf: (record) => ({ name: toText(record.name) }),
  links: [
    { kind: 'inventory_samples', column: 'id', from: { json: wellLinks('sample') } },
    { kind: 'control_layouts', column: 'plate_id', from: { own: 'id' } },
    // Not its readout rows: a 1536-well plate's are a megabyte of records, where its page wants
    // each row's well and control state, which `plates.quality` sends as columns. Nor its
    // batches: the page wants their names only, which `plates.quality` sends too (a batch's
    // record is read out of its molecule's: 400 of them took 25 ms and 330 KB).
  ],
  browse: {
    slug: 'plates',
    section: 'plates',
    icon: 'plate',
    list: {
      columns: [
        { id: 'name', label: 'Plate', value: (row) => row.columns.name, width: 150, grow: 1.5 },
        {
          id: 'size',
          label: 'Wells',
          value: (row) => toNumber(row.json.size),
          format: countCell,
          width: 80,
          align: 'end',
        },
        {
          id: 'filled',
          label: 'Filled',
          value: (row) => toObjects(row.json.wells).length,
          format: countCell,
          width: 80,
          align: 'end',
        },
        { id: 'location', label: 'Location', value: (row) => row.columns.location, width: 160 },
        projectsColumn,
        createdColumn,
      ],
      projectFilter: 'projects',
      filters: [
        {
          id: 'location',
          label: 'Location',
          anyLabel: 'All locations',
          choices: { distinct: 'location' },
        },
      ],
      searchPlaceholder: 'Plate name',
    },
    preview: ({ json }) => [
      { label: 'Wells', value: measure(json.size, 0) },
      { label: 'Filled', value: formatCount(toObjects(json.wells).length) },
      { label: 'Location', value: toText(json.location) },
      { label: 'Concentration', value: measure(json.concentration, 3) },
      { label: 'Volume', value: measure(json.volume, 3) },
      { label: 'Projects', value: linkNames(json.projects) },
    ],
  },
})

export const plateKinds = [plates] as const
