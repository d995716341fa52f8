/**
 * What every reader of import files gives the checker: the header, then one record at a time,
 * so that a file is never held in memory whole.
 */

export interface ImportRecord {
  /** 1-based data row: the line after the header, the SD record, the sheet row after the header. */
  row: number
  /** The cells, in the order of `columns` (missing cells are ''). */
  cells: readonly string[]
  /** The record's own structure (an SD record's molblock), null for tables. */
  structure: string | null
  /** Why the record cannot be read as it should (a line cut short), null when it can. */
  fault: string | null
}

export interface ImportTable {
  columns: readonly string[]
  /** How the text was read; null for a spreadsheet. */
  encoding: string | null
  /** The CSV delimiter found; null for other formats. */
  delimiter: string | null
  records: AsyncIterable<ImportRecord>
}
