/**
 * The few facts a list's preview panel shows about the selected record, so that a person can
 * scan a list without opening every record.
 */
import type { Property } from '../../components/properties.ts'
import type { CachedRecord } from '../../lib/bridge.ts'
import { formatDay, formatTimestamp } from '../../lib/format/dates.ts'
import { formatAmount, formatCount, formatMeasure } from '../../lib/format/numbers.ts'
import type { ListKind } from '../../lib/records/browse-kinds.ts'
import {
  fieldEntriesOf,
  isRecord,
  linkNameOf,
  namedLinksOf,
  numberOf,
  personOf,
  recordsOf,
  textOf,
  textsOf,
} from '../../lib/records/record-values.ts'

const measure = (value: unknown, decimals: number, unit = '') => {
  const number = numberOf(value)
  return number === null ? null : `${formatMeasure(number, decimals)}${unit}`
}
const names = (value: unknown) =>
  namedLinksOf(value)
    .map((link) => link.name)
    .join(', ') || null
const day = (value: unknown) => formatDay(textOf(value)) || null

export function previewOf(kind: ListKind, record: CachedRecord): Property[] {
  switch (kind) {
    case 'molecules':
      return [
        { label: 'Formula', value: textOf(record.formula), mono: true },
        { label: 'Molecular weight', value: measure(record.molecular_weight, 2, ' g/mol') },
        { label: 'cLogP', value: measure(record.log_p, 2) },
        { label: 'TPSA', value: measure(record.topological_polar_surface_area, 1, ' Å²') },
        { label: 'Batches', value: formatCount(recordsOf(record.batches).length) },
        { label: 'Synonyms', value: textsOf(record.synonyms).join(', ') || null },
        { label: 'Projects', value: names(record.projects) },
        { label: 'Owner', value: personOf(record.owner) },
        { label: 'Registered', value: day(record.created_at) },
      ]
    case 'batches':
      return [
        { label: 'Formula weight', value: measure(record.formula_weight, 2, ' g/mol') },
        { label: 'Salt', value: textOf(record.salt_name) },
        ...fieldEntriesOf(record.batch_fields),
        { label: 'Projects', value: names(record.projects) },
        { label: 'Owner', value: personOf(record.owner) },
        { label: 'Created', value: day(record.created_at) },
      ]
    case 'protocols':
      return [
        { label: 'Category', value: textOf(record.category) },
        { label: 'Description', value: textOf(record.description) },
        {
          label: 'Readouts',
          value:
            recordsOf(record.readout_definitions)
              .map((definition) => textOf(definition.name))
              .filter(Boolean)
              .join(', ') || null,
        },
        { label: 'Runs', value: formatCount(recordsOf(record.runs).length) },
        { label: 'Projects', value: names(record.projects) },
        { label: 'Owner', value: personOf(record.owner) },
      ]
    case 'runs':
      return [
        { label: 'Protocol', value: linkNameOf(record.protocol) },
        { label: 'Run date', value: day(record.run_date) },
        { label: 'Person', value: personOf(record.person) },
        { label: 'Place', value: textOf(record.place) },
        { label: 'Conditions', value: textOf(record.conditions) },
        { label: 'Project', value: linkNameOf(record.project) },
      ]
    case 'readout_rows':
      return [
        { label: 'Type', value: textOf(record.type) },
        { label: 'Run', value: isRecord(record.run) ? day(record.run.run_date) : null },
        { label: 'Well', value: textOf(record.well) },
        { label: 'Control', value: textOf(record.control_state) },
      ]
    case 'plates':
      return [
        { label: 'Wells', value: measure(record.size, 0) },
        { label: 'Filled', value: formatCount(recordsOf(record.wells).length) },
        { label: 'Location', value: textOf(record.location) },
        { label: 'Concentration', value: measure(record.concentration, 3) },
        { label: 'Volume', value: measure(record.volume, 3) },
        { label: 'Projects', value: names(record.projects) },
      ]
    case 'inventory_samples':
      return [
        {
          label: 'Amount',
          value: formatAmount(numberOf(record.current_amount), textOf(record.units)) || null,
        },
        { label: 'Location', value: linkNameOf(record.location) },
        ...fieldEntriesOf(record.fields),
        { label: 'Owner', value: personOf(record.owner) },
        { label: 'Last change', value: formatTimestamp(textOf(record.modified_at)) || null },
      ]
    case 'eln_entries':
      return [
        { label: 'Status', value: textOf(record.status) },
        { label: 'Author', value: personOf(record.author) },
        ...fieldEntriesOf(record.eln_fields),
        { label: 'Created', value: day(record.created_at) },
      ]
  }
}
