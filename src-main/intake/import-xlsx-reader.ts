/**
 * Spreadsheet imports (xlsx), read with exceljs's streaming reader: the first worksheet, its
 * first non-empty row as the header, every later non-empty row as a record. Cells become text as
 * a person sees them: numbers as JavaScript writes them, dates as ISO dates, formulas by their
 * cached result, rich text and hyperlinks by their text.
 */
import { excelLibrary } from '../shared/excel-library.ts'
import { fileErrorOf, ImportFileError } from './import-file-source.ts'
import type { ImportRecord, ImportTable } from './import-table.ts'

type SheetRow = { number: number; values: unknown }

export async function readXlsx(filePath: string): Promise<ImportTable> {
  const rows = sheetRows(filePath)
  let header: IteratorResult<string[]>
  try {
    header = await rows.next()
  } catch (error) {
    throw spreadsheetError(error)
  }
  if (header.done) throw new ImportFileError('The spreadsheet has no rows: nothing to import.')
  const columns = header.value.map((name) => name.trim())
  return { columns, encoding: null, delimiter: null, records: records(rows, columns.length) }
}

async function* records(
  rows: AsyncGenerator<string[]>,
  width: number,
): AsyncGenerator<ImportRecord> {
  let row = 0
  while (true) {
    let next: IteratorResult<string[]>
    try {
      next = await rows.next()
    } catch (error) {
      throw spreadsheetError(error)
    }
    if (next.done) return
    row += 1
    const cells = next.value
    while (cells.length < width) cells.push('')
    yield { row, cells: cells.slice(0, width), structure: null, fault: null }
  }
}

/** The first worksheet's non-empty rows as text cells. */
async function* sheetRows(filePath: string): AsyncGenerator<string[]> {
  const workbook = new (excelLibrary().stream.xlsx.WorkbookReader)(filePath, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'cache',
  })
  for await (const worksheet of workbook) {
    for await (const row of worksheet as AsyncIterable<SheetRow>) {
      const values = Array.isArray(row.values) ? (row.values as unknown[]).slice(1) : []
      const cells = Array.from({ length: values.length }, (_, index) => cellText(values[index]))
      if (cells.some((cell) => cell.trim() !== '')) yield cells
    }
    return
  }
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (value instanceof Date) {
    const iso = value.toISOString()
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso
  }
  if (typeof value === 'object') {
    const cell = value as Record<string, unknown>
    if (Array.isArray(cell.richText)) {
      return cell.richText.map((part) => String((part as { text?: unknown }).text ?? '')).join('')
    }
    if ('result' in cell) return cellText(cell.result)
    if ('text' in cell) return cellText(cell.text)
    if ('error' in cell) return String(cell.error)
  }
  return String(value)
}

function spreadsheetError(error: unknown): Error {
  const failure = fileErrorOf(error)
  if (
    failure instanceof ImportFileError &&
    !/no longer there|permission|locked/.test(failure.message)
  ) {
    return new ImportFileError(
      `The spreadsheet cannot be read as an xlsx workbook (${error instanceof Error ? error.message : String(error)}).`,
    )
  }
  return failure
}
