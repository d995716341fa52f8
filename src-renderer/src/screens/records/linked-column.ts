import type { RecordJson } from '../../lib/records/record-values.ts'

/** A column of a record page's small table of linked records (batches, runs, samples). */
export interface LinkedColumn {
  label: string
  value: (record: RecordJson) => string | null
  align?: 'end'
  mono?: boolean
}
