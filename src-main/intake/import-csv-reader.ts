/**
 * CSV (and tab- or semicolon-separated) import files, read with papaparse a decoded chunk at a
 * time: the delimiter and line break are found from the first lines (comma, semicolon or tab),
 * quoted fields may hold delimiters and line breaks, blank lines are skipped. Each chunk is parsed
 * up to its last whole row by papaparse's own parser (the row left open waits for the next chunk),
 * which costs one pass over the text; papaparse's stream modes pause per row and copy the rest of
 * their input each time, quadratic in a large file.
 *
 * A line with fewer fields than the header is a fault; as the file's last line without a line
 * break after it, it is a line cut short (the file is still being written).
 */
import Papa from 'papaparse'
import {
  decodedText,
  fileErrorOf,
  ImportFileError,
  type ScannedFile,
} from './import-file-source.ts'
import type { ImportRecord, ImportTable } from './import-table.ts'

const delimitersToGuess = [',', ';', '\t']
/** Enough text for papaparse to guess the delimiter from its first lines. */
const sampleCharacters = 64 * 1024
const sampleLines = 20
/** The longest row: past it the file is not a table (an unclosed quote swallowing the rest). */
const maximumRowCharacters = 16 * 1024 * 1024

type Linebreak = '\n' | '\r\n' | '\r'

export async function readCsv(
  filePath: string,
  scanned: ScannedFile,
  signal?: AbortSignal,
): Promise<ImportTable> {
  const { delimiter, linebreak } = guessDialect(await sampleText(filePath, scanned, signal))
  const rows = parsedRows(filePath, scanned, delimiter, linebreak, signal)
  const header = await rows.next()
  if (header.done) throw new ImportFileError('The file has no header line: nothing to import.')
  const columns = header.value.cells.map((name) => name.trim())
  return {
    columns,
    encoding: scanned.encoding,
    delimiter,
    records: records(rows, columns.length, scanned.endsWithNewline),
  }
}

interface ParsedRow {
  cells: string[]
  /** What papaparse found wrong with the row, in words. */
  fault: string | null
}

const unclosedQuote =
  'A quote opened in this row is never closed: the rest of the file was read as one value.'

/** The file's rows, blank ones left out. */
async function* parsedRows(
  filePath: string,
  scanned: ScannedFile,
  delimiter: string,
  linebreak: Linebreak,
  signal?: AbortSignal,
): AsyncGenerator<ParsedRow> {
  const parser = new Papa.Parser({ delimiter, newline: linebreak })
  const parse = (text: string, final: boolean) =>
    parser.parse(text, 0, !final) as {
      data: string[][]
      errors: { code: string; row?: number }[]
      meta: { cursor: number }
    }
  const filled = (parsed: ReturnType<typeof parse>): ParsedRow[] => {
    const unclosed = new Set(
      parsed.errors.flatMap((error) => (error.code === 'MissingQuotes' ? [error.row ?? -1] : [])),
    )
    return parsed.data.flatMap((cells, index) =>
      isFilled(cells) ? [{ cells, fault: unclosed.has(index) ? unclosedQuote : null }] : [],
    )
  }
  let pending = ''
  try {
    for await (const text of decodedText(filePath, scanned, signal)) {
      pending += text
      const parsed = parse(pending, false)
      pending = pending.slice(parsed.meta.cursor)
      if (pending.length > maximumRowCharacters) {
        throw new ImportFileError(
          'A row runs past 16 MiB: a quote that is never closed (or a file that is not a table)?',
        )
      }
      yield* filled(parsed)
    }
  } catch (error) {
    throw fileErrorOf(error)
  }
  if (pending !== '') yield* filled(parse(pending, true))
}

function isFilled(row: readonly string[]): boolean {
  return row.some((cell) => cell.trim() !== '')
}

async function* records(
  rows: AsyncGenerator<ParsedRow>,
  width: number,
  endsWithNewline: boolean,
): AsyncGenerator<ImportRecord> {
  let row = 0
  // One row of look-ahead: only the last line can be one cut short.
  let pending = await rows.next()
  while (!pending.done) {
    const { cells, fault } = pending.value
    const next = await rows.next()
    row += 1
    const cutShort = next.done === true && !endsWithNewline
    yield { row, cells, structure: null, fault: fault ?? faultOf(cells, width, cutShort) }
    pending = next
  }
}

function faultOf(cells: readonly string[], width: number, cutShort: boolean): string | null {
  if (cells.length === width) return null
  if (cells.length < width && cutShort) {
    return (
      `The last line stops after ${cells.length} of ${width} fields, without a line break: ` +
      'the file looks cut short (still being written?).'
    )
  }
  return cells.length < width
    ? `This line has ${cells.length} fields where the header has ${width}.`
    : `This line has ${cells.length} fields where the header has ${width}: a delimiter inside an unquoted value (a decimal comma?) shifts the columns.`
}

async function sampleText(
  filePath: string,
  scanned: ScannedFile,
  signal?: AbortSignal,
): Promise<string> {
  let text = ''
  try {
    for await (const chunk of decodedText(filePath, scanned, signal)) {
      text += chunk
      if (text.length >= sampleCharacters) break
    }
  } catch (error) {
    throw fileErrorOf(error)
  }
  return text
}

function guessDialect(sample: string): { delimiter: string; linebreak: Linebreak } {
  const { meta } = Papa.parse<string[]>(sample, {
    preview: sampleLines,
    delimitersToGuess,
    skipEmptyLines: 'greedy',
  })
  const linebreak = (['\r\n', '\n', '\r'] as const).find((each) => each === meta.linebreak) ?? '\n'
  return { delimiter: delimitersToGuess.includes(meta.delimiter) ? meta.delimiter : ',', linebreak }
}
