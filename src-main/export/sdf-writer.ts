/**
 * SD files: per record, its molfile with the record's name as the title line, then its values as
 * data items (`>  <MW>` and the value on the lines after, a blank line closing it), then `$$$$`.
 * A record without a structure (or one RDKit could not read) keeps its data with an empty
 * molfile, so that no record of the list goes missing. Empty values are left out, as SD writers
 * do. A value cannot hold a blank line (it would end the item early), so blank lines inside a
 * value are dropped; a data line that would read as a record's end gets a leading space.
 */
import type { ExportRecord, ExportValue } from './columns.ts'
import { outputChunkChars, type ExportOutput } from './output.ts'
import type { RecordWriter } from './record-writer.ts'

/** The data items of a record, by name. */
export type SdProperties = (record: ExportRecord) => Iterable<readonly [string, ExportValue]>

export function sdfWriter(output: ExportOutput, properties: SdProperties): RecordWriter {
  return {
    async write(records: readonly ExportRecord[]) {
      let text = ''
      for (const record of records) {
        text += titled(record.molblock ?? emptyMolblock, titleOf(record))
        for (const [name, value] of properties(record)) {
          const lines = value === null ? '' : propertyText(value)
          if (lines !== '') text += `>  <${propertyName(name)}>\n${lines}\n\n`
        }
        text += '$$$$\n'
        if (text.length >= outputChunkChars) {
          await output.write(text)
          text = ''
        }
      }
      await output.write(text)
    },
    async finish() {},
  }
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
  const title = typeof name === 'string' && name.trim() !== '' ? name : String(record.row.id ?? '')
  // The title is one line of at most 80 characters.
  return title.replace(/[\r\n]+/g, ' ').slice(0, 80)
}

/**
 * The molfile with `title` as its first line, LF line ends, ending at `M  END`. Sliced rather than
 * split into lines: an SD file of 250k molecules would make ten million strings of them.
 */
function titled(molblock: string, title: string): string {
  const text = molblock.includes('\r') ? molblock.replace(/\r\n?/g, '\n') : molblock
  const end = endLineAt(text)
  const firstBreak = text.indexOf('\n')
  if (firstBreak < 0) return `${title}\n`
  return `${title}${text.slice(firstBreak, end >= 0 ? end : text.length)}\n`
}

function propertyName(name: string): string {
  return name.replace(/[<>\r\n]+/g, ' ').trim() || '?'
}

function propertyText(value: Exclude<ExportValue, null>): string {
  const text = typeof value === 'string' ? value : String(value)
  if (!/[\r\n]|^\$\$\$\$|^\s*$/.test(text)) return text
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (line.startsWith('$$$$') ? ` ${line}` : line))
    .join('\n')
}
