/**
 * SD file imports, streamed: the file is split into its records at `$$$$` lines, each record's
 * molblock (up to `M  END`) is its structure, which the checker has RDKit parse in the chemistry
 * workers, and its data items (`> <NAME>` and the value lines up to a blank line) are its cells.
 * The columns are every data item name in the order first met, found by a first pass over the
 * lines, so that records can then be given one at a time.
 */
import readline from 'node:readline'
import { Readable } from 'node:stream'
import {
  decodedText,
  fileErrorOf,
  ImportFileError,
  type ScannedFile,
} from './import-file-source.ts'
import type { ImportRecord, ImportTable } from './import-table.ts'

const recordEnd = '$$$$'
const dataHeader = /^>.*?<([^>]*)>/

export async function readSdf(
  filePath: string,
  scanned: ScannedFile,
  signal?: AbortSignal,
): Promise<ImportTable> {
  const columns: string[] = []
  const known = new Set<string>()
  let records = 0
  for await (const record of sdRecords(filePath, scanned, signal)) {
    records += 1
    for (const name of record.items.keys()) {
      if (!known.has(name)) {
        known.add(name)
        columns.push(name)
      }
    }
  }
  if (records === 0) throw new ImportFileError('The SD file holds no records.')
  return {
    columns,
    encoding: scanned.encoding,
    delimiter: null,
    records: tableRecords(filePath, scanned, columns, signal),
  }
}

async function* tableRecords(
  filePath: string,
  scanned: ScannedFile,
  columns: readonly string[],
  signal?: AbortSignal,
): AsyncGenerator<ImportRecord> {
  let row = 0
  for await (const record of sdRecords(filePath, scanned, signal)) {
    row += 1
    yield {
      row,
      cells: columns.map((column) => record.items.get(column) ?? ''),
      structure: record.molblock,
      fault: record.fault,
    }
  }
}

interface SdRecord {
  molblock: string
  items: Map<string, string>
  fault: string | null
}

async function* sdRecords(
  filePath: string,
  scanned: ScannedFile,
  signal?: AbortSignal,
): AsyncGenerator<SdRecord> {
  const lines = readline.createInterface({
    input: Readable.from(decodedText(filePath, scanned, signal)),
    crlfDelay: Infinity,
  })
  let current: string[] = []
  try {
    for await (const line of lines) {
      if (line.startsWith(recordEnd)) {
        if (!isBlank(current)) yield sdRecord(current, null)
        current = []
      } else current.push(line)
    }
  } catch (error) {
    throw fileErrorOf(error)
  } finally {
    lines.close()
  }
  if (!isBlank(current)) {
    // A last record without its `$$$$` is whole when the file ends with a line break, as RDKit
    // reads it; without one, the writer may not have finished it.
    yield sdRecord(
      current,
      scanned.endsWithNewline
        ? null
        : 'The last record ends without `$$$$` or a line break: the file looks cut short (still being written?).',
    )
  }
}

function sdRecord(lines: readonly string[], fault: string | null): SdRecord {
  const end = lines.findIndex((line) => line.startsWith('M  END'))
  const firstItem = lines.findIndex((line) => dataHeader.test(line))
  const molblockEnd = end >= 0 ? end + 1 : firstItem >= 0 ? firstItem : lines.length
  const items = new Map<string, string>()
  let index = molblockEnd
  while (index < lines.length) {
    const header = dataHeader.exec(lines[index]!)
    index += 1
    if (!header) continue
    const values: string[] = []
    while (index < lines.length && lines[index]!.trim() !== '') values.push(lines[index++]!)
    const name = header[1]!.trim()
    if (!items.has(name)) items.set(name, values.join('\n'))
  }
  return { molblock: `${lines.slice(0, molblockEnd).join('\n')}\n`, items, fault }
}

function isBlank(lines: readonly string[]): boolean {
  return lines.every((line) => line.trim() === '')
}
