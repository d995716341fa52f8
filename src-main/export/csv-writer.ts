/**
 * CSV as RFC 4180 says: a header line, fields separated by commas, lines ended by CRLF, and a
 * field quoted (its quotes doubled) when it holds a quote, a comma or a line break. UTF-8, without
 * a byte order mark unless asked: most tools (Python, R, pandas, databases) read plain UTF-8, and
 * some take a mark for part of the first header; Excel needs the mark to read UTF-8 as such, so
 * the Excel-friendly choice adds it. Numbers are written as JavaScript's shortest exact text
 * (`0.1`, `1e-7`), booleans as `true`/`false`, nothing for an empty value.
 */
import { ByteChunks } from './byte-chunks.ts'
import type { ExportColumns, ExportRecord, ExportValue } from './columns.ts'
import type { ExportOutput } from './output.ts'
import type { RecordWriter } from './record-writer.ts'

export interface CsvOptions {
  /** Starts the file with a UTF-8 byte order mark, for Excel. */
  bom: boolean
}

const comma = 0x2c
const carriageReturn = 0x0d
const lineFeed = 0x0a

/** Each field is encoded straight into reused byte chunks (byte-chunks.ts): no line strings. */
export function csvWriter(
  output: ExportOutput,
  columns: ExportColumns,
  options: CsvOptions,
): RecordWriter {
  const chunks = new ByteChunks(output)
  const count = columns.headers.length
  let started = false
  const header = (): void => {
    if (started) return
    started = true
    if (options.bom) chunks.text('\uFEFF')
    for (let index = 0; index < count; index++) {
      if (index > 0) chunks.byte(comma)
      chunks.text(csvField(columns.headers[index]!))
    }
    lineEnd(chunks)
  }
  return {
    async write(records: readonly ExportRecord[]) {
      header()
      for (const record of records) {
        for (let index = 0; index < count; index++) {
          if (index > 0) chunks.byte(comma)
          writeField(chunks, columns.value(record, index))
        }
        lineEnd(chunks)
        if (chunks.pending) await chunks.flush()
      }
      await chunks.flushAll()
    },
    async finish() {
      header()
      await chunks.flushAll()
    },
  }
}

function lineEnd(chunks: ByteChunks): void {
  chunks.byte(carriageReturn)
  chunks.byte(lineFeed)
}

function writeField(chunks: ByteChunks, value: ExportValue): void {
  if (value === null) return
  // A number's text is ASCII: digits, sign, point, exponent, Infinity.
  if (typeof value === 'number') chunks.ascii(String(value))
  else chunks.text(csvField(value))
}

export function csvField(value: ExportValue): string {
  if (value === null) return ''
  if (typeof value === 'number') return String(value)
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}
