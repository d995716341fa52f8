/**
 * CSV as RFC 4180 says: a header line, fields separated by commas, lines ended by CRLF, and a
 * field quoted (its quotes doubled) when it holds a quote, a comma or a line break. UTF-8, without
 * a byte order mark unless asked: most tools (Python, R, pandas, databases) read plain UTF-8, and
 * some take a mark for part of the first header; Excel needs the mark to read UTF-8 as such, so
 * the Excel-friendly choice adds it. Numbers are written as JavaScript's shortest exact text
 * (`0.1`, `1e-7`), booleans as `true`/`false`, nothing for an empty value.
 */
import type { ExportColumns, ExportRecord, ExportValue } from './columns.ts'
import { outputChunkChars, type ExportOutput } from './output.ts'
import type { RecordWriter } from './record-writer.ts'

export interface CsvOptions {
  /** Starts the file with a UTF-8 byte order mark, for Excel. */
  bom: boolean
}

export function csvWriter(
  output: ExportOutput,
  columns: ExportColumns,
  options: CsvOptions,
): RecordWriter {
  let started = false
  const header = (): string => {
    if (started) return ''
    started = true
    return `${options.bom ? '\uFEFF' : ''}${csvLine(columns.headers)}`
  }
  return {
    async write(records: readonly ExportRecord[]) {
      let text = header()
      for (const record of records) {
        text += csvLine(columns.values(record))
        if (text.length >= outputChunkChars) {
          await output.write(text)
          text = ''
        }
      }
      await output.write(text)
    },
    async finish() {
      await output.write(header())
    },
  }
}

function csvLine(values: readonly ExportValue[]): string {
  let line = ''
  for (let index = 0; index < values.length; index++) {
    if (index > 0) line += ','
    line += csvField(values[index] ?? null)
  }
  return `${line}\r\n`
}

export function csvField(value: ExportValue): string {
  if (value === null) return ''
  if (typeof value === 'number') return String(value)
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}
