import path from 'node:path'
import { CsvError, parseCsvTable } from '../../pure/csv.ts'
import { readSdfEntries } from '../../pure/sdf.ts'
import { readXlsxFirstSheet, XlsxError } from '../../pure/xlsx-reader.ts'
import { readZip, ZipError } from '../../pure/zip-reader.ts'

/**
 * Turns an uploaded import file into records: one per CSV or spreadsheet row or SD record, with
 * the values by column header (SD data items for SD files) and, for SD files, the molblock.
 * A ZIP holds one or more such files, read in order.
 */

export type ImportFormat = 'csv' | 'sdf' | 'xlsx' | 'zip'

export interface ImportRecord {
  /** 1-based across the whole upload; what events and errors refer to. */
  number: number
  values: Record<string, string>
  molblock?: string
}

export interface ImportFile {
  records: ImportRecord[]
  /** Headers in file order (for SD files: data item names in order of first appearance). */
  headers: string[]
  /** Records that could not be read at all, with why. */
  errors: { record: number; message: string }[]
}

export function importFormatOf(fileName: string): ImportFormat | undefined {
  const extension = path.extname(fileName).slice(1).toLowerCase()
  if (extension === 'sd') return 'sdf'
  return (['csv', 'sdf', 'xlsx', 'zip'] as const).find((format) => format === extension)
}

/** Reads the file; a file that cannot be read at all throws an Error saying why. */
export function readImportFile(format: ImportFormat, contents: Buffer): ImportFile {
  const file: ImportFile = { records: [], headers: [], errors: [] }
  appendFile(file, format, contents, '')
  return file
}

function appendFile(
  file: ImportFile,
  format: ImportFormat,
  contents: Buffer,
  origin: string,
): void {
  switch (format) {
    case 'csv':
      return appendTable(file, tableFromCsv(contents.toString('utf8'), origin))
    case 'xlsx':
      return appendTable(file, tableFromXlsx(contents, origin))
    case 'sdf':
      return appendSdf(file, contents.toString('utf8'))
    case 'zip':
      return appendZip(file, contents)
  }
}

interface Table {
  headers: string[]
  rows: string[][]
}

function tableFromCsv(text: string, origin: string): Table {
  try {
    return parseCsvTable(text)
  } catch (error) {
    if (error instanceof CsvError) throw new Error(`${origin}${error.message}`, { cause: error })
    throw error
  }
}

function tableFromXlsx(contents: Buffer, origin: string): Table {
  let rows: string[][]
  try {
    rows = readXlsxFirstSheet(contents)
  } catch (error) {
    if (error instanceof XlsxError || error instanceof ZipError)
      throw new Error(`${origin}${error.message}`, { cause: error })
    throw error
  }
  const [header, ...body] = rows
  if (!header || header.every((cell) => cell.trim() === '')) {
    throw new Error(`${origin}XLSX: the first sheet is empty; a header row is required`)
  }
  const headers = header.map((cell) => cell.trim())
  return {
    headers,
    rows: body
      .filter((row) => row.some((cell) => cell.trim() !== ''))
      .map((row) => headers.map((_, index) => row[index] ?? '')),
  }
}

function appendTable(file: ImportFile, table: Table): void {
  for (const header of table.headers) if (!file.headers.includes(header)) file.headers.push(header)
  for (const row of table.rows) {
    file.records.push({
      number: file.records.length + file.errors.length + 1,
      values: Object.fromEntries(table.headers.map((header, index) => [header, row[index] ?? ''])),
    })
  }
}

function appendSdf(file: ImportFile, text: string): void {
  for (const entry of readSdfEntries(text)) {
    const number = file.records.length + file.errors.length + 1
    if ('error' in entry) {
      file.errors.push({ record: number, message: entry.error.message })
      continue
    }
    for (const name of Object.keys(entry.record.properties)) {
      if (!file.headers.includes(name)) file.headers.push(name)
    }
    file.records.push({
      number,
      values: { ...entry.record.properties },
      molblock: entry.record.molblock,
    })
  }
}

function appendZip(file: ImportFile, contents: Buffer): void {
  let entries
  try {
    entries = readZip(contents)
  } catch (error) {
    if (error instanceof ZipError) throw new Error(`ZIP: ${error.message}`, { cause: error })
    throw error
  }
  const readable = entries.filter((entry) => {
    const format = importFormatOf(entry.name)
    return format !== undefined && format !== 'zip' && !entry.name.startsWith('__MACOSX/')
  })
  if (readable.length === 0) throw new Error('ZIP: the archive holds no .csv, .sdf or .xlsx file')
  for (const entry of readable) {
    appendFile(file, importFormatOf(entry.name)!, entry.data, `${entry.name}: `)
  }
}
