/** What every format's writer does: records in order, page by page, then the file's end. */
import type { ExportRecord } from './columns.ts'

export interface RecordWriter {
  /** Writes a page of records in order; resolves once the output has taken them. */
  write(records: readonly ExportRecord[]): Promise<void>
  /** Completes the file (a header without records, a workbook's closing parts). */
  finish(): Promise<void>
}
