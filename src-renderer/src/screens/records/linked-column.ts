import type { CachedRecord } from '../../lib/bridge.ts'
import { formatAmount } from '../../../../src-common/format/numbers.ts'
import { toLinkName, toNumber, toText } from '../../../../src-common/values.ts'

/** A column of a record page's small table of linked records (batches, runs, samples). */
export interface LinkedColumn {
  label: string
  value: (row: CachedRecord) => string | null
  align?: 'end'
  mono?: boolean
}

/** The samples of a molecule's or a batch's page: how much is left, where, and whose. */
export const sampleColumns: readonly LinkedColumn[] = [
  {
    label: 'Amount',
    value: ({ columns }) => formatAmount(toNumber(columns.current_amount), toText(columns.units)),
    align: 'end',
  },
  { label: 'Location', value: ({ json }) => toLinkName(json.location) },
  { label: 'Owner', value: ({ columns }) => toText(columns.owner) },
]
