/**
 * SD files: per record, its molfile with the record's name as the title line, then its values as
 * data items (`>  <MW>` and the value on the lines after, a blank line closing it), then `$$$$`.
 * A record without a structure (or one RDKit could not read) keeps its data with an empty
 * molfile, so that no record of the list goes missing. Empty values are left out, as SD writers
 * do. A value cannot hold a blank line (it would end the item early), so blank lines inside a
 * value are dropped; a data line that would read as a record's end gets a leading space.
 *
 * Written as bytes into reused chunks (byte-chunks.ts): each header line is made once, and the
 * molfile, title and values are encoded straight into the chunk, so that a record costs no
 * string, array or Buffer of its own (export.bench.ts).
 */
import { ByteChunks } from './byte-chunks.ts'
import type { ExportColumns, ExportRecord, ExportValue } from './columns.ts'
import type { ExportOutput } from './output.ts'
import type { RecordWriter } from './record-writer.ts'

/** The data items of a record, by name. */
export type SdProperties = (record: ExportRecord) => Iterable<readonly [string, ExportValue]>

const lineFeed = 0x0a
const itemEnd = Buffer.from('\n\n')
const recordEnd = Buffer.from('$$$$\n')

/**
 * An SD file's writer. Its data items are fixed columns (each header line made once), or named by
 * each record (every field of the record).
 */
export function sdfWriter(output: ExportOutput, items: ExportColumns | SdProperties): RecordWriter {
  const chunks = new ByteChunks(output)
  const columns = typeof items === 'function' ? null : items
  const named = typeof items === 'function' ? items : null
  const headerLines = columns?.headers.map(headerLine) ?? []
  // Each name's header line, made once (the names of every field grow with the names only).
  const linesByName = new Map<string, Buffer>()
  const lineOf = (name: string): Buffer => {
    let line = linesByName.get(name)
    if (line === undefined) linesByName.set(name, (line = headerLine(name)))
    return line
  }
  return {
    async write(records: readonly ExportRecord[]) {
      for (const record of records) {
        writeMolfile(chunks, record.molblock ?? emptyMolblock, titleOf(record))
        if (columns !== null) {
          for (let index = 0; index < headerLines.length; index++) {
            writeItem(chunks, headerLines[index]!, columns.value(record, index))
          }
        }
        if (named !== null) {
          for (const [name, value] of named(record)) writeItem(chunks, lineOf(name), value)
        }
        chunks.bytes(recordEnd)
        if (chunks.pending) await chunks.flush()
      }
      await chunks.flushAll()
    },
    async finish() {
      await chunks.flushAll()
    },
  }
}

/** A data item's header line, `>  <name>`, as bytes. */
function headerLine(name: string): Buffer {
  return Buffer.from(`>  <${propertyName(name)}>\n`, 'utf8')
}

/** A data item: its header line, its value's lines and the blank line; nothing when empty. */
function writeItem(chunks: ByteChunks, header: Uint8Array, value: ExportValue): void {
  if (value === null) return
  if (typeof value === 'number') {
    chunks.bytes(header)
    // A number's text is ASCII: digits, sign, point, exponent, Infinity.
    chunks.ascii(String(value))
  } else if (typeof value === 'boolean') {
    chunks.bytes(header)
    chunks.ascii(value ? 'true' : 'false')
  } else {
    const lines = propertyText(value)
    if (lines === '') return
    chunks.bytes(header)
    chunks.text(lines)
  }
  chunks.bytes(itemEnd)
}

/** A molfile without atoms: how an SD file keeps a record that has no structure. */
export const emptyMolblock =
  '\n     Vault Desk\n\n  0  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n'

/** Whether a structure text is a molfile (V2000 or V3000) rather than SMILES. */
export function isMolblock(text: string): boolean {
  return endLineAt(text) >= 0
}

/**
 * Where the first `M  END` line of a molfile ends (before its line break), or -1: a line that
 * holds `M  END` and blanks after it. Found by searching the text for `M  END` rather than by a
 * multiline expression, which tried every line of every molfile (a tenth of writing an SD file).
 */
function endLineAt(text: string): number {
  for (let at = text.indexOf('M  END'); at >= 0; at = text.indexOf('M  END', at + 1)) {
    const before = at === 0 ? 0x0a : text.charCodeAt(at - 1)
    if (!isLineBreak(before)) continue
    let end = at + 6
    while (end < text.length && isBlank(text.charCodeAt(end))) end++
    if (end === text.length || isLineBreak(text.charCodeAt(end))) return end
  }
  return -1
}

function isLineBreak(code: number): boolean {
  return code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029
}

/** White space that is not a line break, as `\s` reads it. */
function isBlank(code: number): boolean {
  return (
    code === 0x20 ||
    code === 0x09 ||
    code === 0x0b ||
    code === 0x0c ||
    code === 0xa0 ||
    code === 0xfeff ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  )
}

function titleOf(record: ExportRecord): string {
  const name = record.row.columns.name
  const title = typeof name === 'string' && /\S/.test(name) ? name : String(record.row.id ?? '')
  // The title is one line of at most 80 characters, a character's surrogate pair kept whole; a
  // title that would read as a record's end (`$$$$`) gets a leading space, as a value's line does.
  const oneLine =
    title.includes('\n') || title.includes('\r') ? title.replace(/[\r\n]+/g, ' ') : title
  const line = oneLine.startsWith('$$$$') ? ` ${oneLine}` : oneLine
  if (line.length <= 80) return line
  return line.slice(0, isHighSurrogate(line.charCodeAt(79)) ? 79 : 80)
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

/**
 * The molfile with `title` as its first line, LF line ends, ending at `M  END`. Written in slices
 * rather than split into lines: an SD file of 250k molecules would make ten million strings of
 * them.
 */
function writeMolfile(chunks: ByteChunks, molblock: string, title: string): void {
  const text = molblock.includes('\r') ? molblock.replace(/\r\n?/g, '\n') : molblock
  chunks.text(title)
  const firstBreak = text.indexOf('\n')
  if (firstBreak >= 0) {
    const end = endLineAt(text)
    chunks.text(text.slice(firstBreak, end >= 0 ? end : text.length))
  }
  chunks.byte(lineFeed)
}

function propertyName(name: string): string {
  return name.replace(/[<>\r\n]+/g, ' ').trim() || '?'
}

/**
 * A value's lines as an SD file can hold them: line ends made LF, blank lines dropped (a blank
 * line ends the item), a line that would read as the record's end (`$$$$`) given a leading space.
 */
function propertyText(text: string): string {
  if (!/[\r\n]|^\$\$\$\$|^\s*$/.test(text)) return text
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (line.startsWith('$$$$') ? ` ${line}` : line))
    .join('\n')
}
