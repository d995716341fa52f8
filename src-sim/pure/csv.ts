/**
 * RFC 4180 CSV, as spreadsheet programs write it: quoted fields may hold delimiters, doubled
 * quotes and line breaks; lines end in LF or CRLF; a UTF-8 byte order mark is dropped.
 */

export class CsvError extends Error {
  readonly line: number

  constructor(line: number, message: string) {
    super(`CSV line ${line}: ${message}`)
    this.name = 'CsvError'
    this.line = line
  }
}

export interface CsvTable {
  headers: string[]
  /** Each row has exactly one value per header. */
  rows: string[][]
  /** The 1-based line on which each row starts, for error messages about a row. */
  rowLines: number[]
}

interface ParsedRecord {
  fields: string[]
  line: number
}

/** Splits CSV text into records; a final line break does not start an empty record. */
export function parseCsv(text: string, delimiter = ','): string[][] {
  return parseRecords(text, delimiter).map((record) => record.fields)
}

/**
 * Reads a CSV whose first record is the header. Blank lines are skipped; a row with a different
 * number of fields than the header is an error naming its line.
 */
export function parseCsvTable(text: string, delimiter = ','): CsvTable {
  const records = parseRecords(text, delimiter).filter(
    (record) => !(record.fields.length === 1 && record.fields[0] === ''),
  )
  const [header, ...body] = records
  if (!header) throw new CsvError(1, 'the file is empty; a header line is required')
  const headers = header.fields.map((name) => name.trim())
  headers.forEach((name, index) => {
    if (name === '') throw new CsvError(header.line, `column ${index + 1} has an empty header`)
    if (headers.indexOf(name) !== index) {
      throw new CsvError(header.line, `header "${name}" appears more than once`)
    }
  })
  for (const record of body) {
    if (record.fields.length !== headers.length) {
      throw new CsvError(
        record.line,
        `has ${record.fields.length} fields but the header has ${headers.length}`,
      )
    }
  }
  return {
    headers,
    rows: body.map((record) => record.fields),
    rowLines: body.map((record) => record.line),
  }
}

function parseRecords(text: string, delimiter: string): ParsedRecord[] {
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
    throw new Error(`CSV delimiter must be one character other than a quote or line break`)
  }
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text
  const records: ParsedRecord[] = []
  let fields: string[] = []
  let field = ''
  let line = 1
  let recordLine = 1
  let index = 0
  // A field that was quoted may only be followed by a delimiter or a line end.
  let afterClosingQuote = false

  const endField = (): void => {
    fields.push(field)
    field = ''
    afterClosingQuote = false
  }
  const endRecord = (): void => {
    endField()
    records.push({ fields, line: recordLine })
    fields = []
  }

  while (index < source.length) {
    const char = source[index]!
    if (char === delimiter) {
      endField()
      index += 1
    } else if (char === '\n' || char === '\r') {
      endRecord()
      index += char === '\r' && source[index + 1] === '\n' ? 2 : 1
      line += 1
      recordLine = line
    } else if (afterClosingQuote) {
      throw new CsvError(line, `unexpected character ${JSON.stringify(char)} after a closing quote`)
    } else if (char === '"') {
      if (field !== '') {
        throw new CsvError(line, 'a quote inside an unquoted field must be inside a quoted field')
      }
      const openedOn = line
      index += 1
      for (;;) {
        if (index >= source.length) {
          throw new CsvError(openedOn, 'a quoted field is never closed')
        }
        const inner = source[index]!
        if (inner === '"') {
          if (source[index + 1] === '"') {
            field += '"'
            index += 2
            continue
          }
          index += 1
          break
        }
        if (inner === '\n' || (inner === '\r' && source[index + 1] !== '\n')) line += 1
        field += inner
        index += 1
      }
      afterClosingQuote = true
    } else {
      field += char
      index += 1
    }
  }
  if (field !== '' || fields.length > 0 || afterClosingQuote) endRecord()
  return records
}
