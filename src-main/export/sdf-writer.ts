/**
 * SD files: per record, its molfile with the record's name as the title line, then its values as
 * data items (`>  <MW>` and the value on the lines after, a blank line closing it), then `$$$$`.
 * A record without a structure (or one RDKit could not read) keeps its data with an empty
 * molfile, so that no record of the list goes missing. Empty values are left out, as SD writers
 * do. A value cannot hold a blank line (it would end the item early), so blank lines inside a
 * value are dropped; a data line that would read as a record's end gets a leading space.
 */
import type { ExportRecord, ExportValue } from './columns.ts'
import type { ExportOutput } from './output.ts'
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
  return /^M {2}END\s*$/m.test(text)
}

function titleOf(record: ExportRecord): string {
  const name = record.row.columns.name
  const title = typeof name === 'string' && name.trim() !== '' ? name : String(record.row.id ?? '')
  // The title is one line of at most 80 characters.
  return title.replace(/[\r\n]+/g, ' ').slice(0, 80)
}

/** The molfile with `title` as its first line, LF line ends, ending at `M  END`. */
function titled(molblock: string, title: string): string {
  const lines = molblock.replace(/\r\n?/g, '\n').split('\n')
  const end = lines.findIndex((line) => /^M {2}END\s*$/.test(line))
  const kept = end >= 0 ? lines.slice(0, end + 1) : lines
  kept[0] = title
  return `${kept.join('\n')}\n`
}

function propertyName(name: string): string {
  return name.replace(/[<>\r\n]+/g, ' ').trim() || '?'
}

function propertyText(value: Exclude<ExportValue, null>): string {
  const text = typeof value === 'string' ? value : String(value)
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (line.startsWith('$$$$') ? ` ${line}` : line))
    .join('\n')
}
