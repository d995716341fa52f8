/**
 * Excel workbooks (.xlsx) through ExcelJS's streaming writer: a bold header row, frozen, then one
 * row per record, numbers as numbers, the vault's dates and timestamps as Excel dates (timestamps
 * in this computer's time zone, as the window shows them), other values as text (never formulas,
line breaks as Excel's LF).
 * A sheet holds at most 1,048,576 rows: a longer list goes on in further sheets, each with the
 * header. Excel refuses cells longer than 32,767 characters: longer text is cut there, and counted.
 */
import { once } from 'node:events'
import { Writable } from 'node:stream'
import type ExcelJS from 'exceljs'
import { excelLibrary } from '../shared/excel-library.ts'
import type { ExportColumns, ExportRecord, ExportValue } from './columns.ts'
import type { ExportOutput } from './output.ts'
import type { RecordWriter } from './record-writer.ts'

/** Excel's limits: rows per sheet (the header included) and characters per cell. */
export const excelLimits = { rows: 1_048_576, cellText: 32_767 } as const

export interface XlsxWriter extends RecordWriter {
  /** Cells whose text was cut at Excel's limit. */
  readonly truncatedCells: number
}

/**
 * Bytes of sheet XML ExcelJS may hold before the zip takes them. Its writer does not wait for its
 * zip stream, which then keeps every row in memory until the end (exceljs/exceljs#2916): after
 * each page, the writer waits until the zip has caught up.
 */
const zipBacklogLimit = 1 << 20

type Worksheet = ReturnType<ExcelJS.stream.xlsx.WorkbookWriter['addWorksheet']>

export function xlsxWriter(
  output: ExportOutput,
  columns: ExportColumns,
  options: { sheetName: string; rowsPerSheet?: number },
): XlsxWriter {
  const workbook = new (excelLibrary().stream.xlsx.WorkbookWriter)({
    stream: through(output),
    useStyles: true,
    useSharedStrings: false,
  })
  workbook.creator = 'Vault Desk'
  const rowsPerSheet = Math.min(options.rowsPerSheet ?? excelLimits.rows, excelLimits.rows)
  let sheet: Worksheet | null = null
  let sheets = 0
  let rowsInSheet = 0
  let truncatedCells = 0

  const newSheet = (): Worksheet => {
    sheet?.commit()
    sheets++
    const added = workbook.addWorksheet(sheetName(options.sheetName, sheets), {
      views: [{ state: 'frozen', ySplit: 1 }],
    })
    added.columns = columns.headers.map((header, index) => ({
      key: String(index),
      width: Math.min(Math.max(header.length + 4, columns.dates[index] ? 20 : 12), 60),
    }))
    const header = added.addRow([...columns.headers])
    header.font = { bold: true }
    header.commit()
    rowsInSheet = 1
    return added
  }

  /** A cell's value, and the number format of a date. */
  const cellOf = (value: ExportValue, date: boolean): [ExcelJS.CellValue, string | null] => {
    if (typeof value !== 'string') return [value, null]
    const when = date ? excelDate(value) : null
    if (when) return [when.value, when.format]
    // Excel breaks lines in a cell with LF; a CR would not survive the XML anyway.
    const text = value.replace(/\r\n?/g, '\n')
    if (text.length <= excelLimits.cellText) return [text, null]
    truncatedCells++
    return [text.slice(0, excelLimits.cellText), null]
  }

  return {
    get truncatedCells() {
      return truncatedCells
    },
    async write(records: readonly ExportRecord[]) {
      output.throwIfFailed()
      sheet ??= newSheet()
      for (const record of records) {
        if (rowsInSheet >= rowsPerSheet) sheet = newSheet()
        const cells = columns
          .values(record)
          .map((value, index) => cellOf(value, columns.dates[index] === true))
        const row = sheet.addRow(cells.map(([value]) => value))
        cells.forEach(([, format], index) => {
          if (format !== null) row.getCell(index + 1).numFmt = format
        })
        row.commit()
        rowsInSheet++
      }
      await zipCaughtUp(sheet, output)
    },
    async finish() {
      output.throwIfFailed()
      sheet ??= newSheet()
      sheet.commit()
      await workbook.commit()
      output.throwIfFailed()
    },
  }
}

/**
 * A date (`2026-07-24`, the day itself) or a timestamp (this computer's wall-clock time, since
 * Excel's dates have no time zone), with its number format; null when the text is neither.
 */
export function excelDate(text: string): { value: Date; format: string } | null {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim())
  if (day) {
    return {
      value: new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]))),
      format: 'yyyy-mm-dd',
    }
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text.trim())) return null
  const instant = Date.parse(text)
  if (Number.isNaN(instant)) return null
  // ExcelJS writes a Date's UTC fields: shifted, they are the local wall-clock time.
  const local = instant - new Date(instant).getTimezoneOffset() * 60_000
  return { value: new Date(local), format: 'yyyy-mm-dd hh:mm:ss' }
}

/** Excel's sheet names: at most 31 characters, none of []:*?/\ . */
function sheetName(base: string, number: number): string {
  const clean = base.replace(/[[\]:*?/\\]/g, ' ').trim() || 'Records'
  const suffix = number === 1 ? '' : ` (${number})`
  return `${clean.slice(0, 31 - suffix.length)}${suffix}`
}

/**
 * What ExcelJS's zip is piped into: each chunk goes on through `output` (counted, with its
 * backpressure), and the zip's end leaves the output open (standard output is never ended).
 */
function through(output: ExportOutput): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      output.write(chunk).then(() => done(), done)
    },
  })
}

/** Waits until ExcelJS's zip has taken the sheet's XML written so far (see zipBacklogLimit). */
async function zipCaughtUp(sheet: Worksheet, output: ExportOutput): Promise<void> {
  const entry = (sheet as unknown as { stream?: { pipes?: unknown[] } }).stream?.pipes?.[0] as
    (NodeJS.EventEmitter & { _writableState?: { length?: number } }) | undefined
  const backlog = (): number => entry?._writableState?.length ?? 0
  while (entry && backlog() > zipBacklogLimit) {
    output.throwIfFailed()
    // The zip may stall for good when the output failed: look again now and then.
    const stop = new AbortController()
    const drained = once(entry, 'drain', { signal: stop.signal }).catch(() => {})
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 50))])
    stop.abort()
  }
  output.throwIfFailed()
}
