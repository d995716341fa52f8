/**
 * The SD writer that encodes records straight into reused byte chunks writes, byte for byte, the
 * file that the writer before it (which built each page's text as strings: kept here, frozen, as
 * the reference) wrote for the same records, awkward ones included: names over lines, in any
 * script, too long for a title; molfiles with CRLF, text after `M  END`, no `M  END`, no line
 * break; values with blank lines, `$$$$` lines, only blanks, numbers, booleans, and one larger
 * than a chunk; enough records to fill several chunks, written in pages of any size.
 *
 * Two differences, on purpose, both in titles: one cut at 80 characters where that would split a
 * character's surrogate pair (an emoji at the 80th place) is cut at 79, so that the file holds no
 * broken character (the reference wrote U+FFFD there); one that reads `$$$$` gets a leading space
 * (the reference wrote it bare, and an SD reader took that line for the end of a record).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RecordRow } from '../../src-common/records/record-row.ts'
import { byteChunkSize } from './byte-chunks.ts'
import { viewColumns, type ExportRecord, type ExportValue } from './columns.ts'
import { ExportOutput } from './output.ts'
import { emptyMolblock, sdfWriter, type SdProperties } from './sdf-writer.ts'

let dir: string
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-sdf-writer-'))
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const molfile = [
  '',
  '     RDKit          2D',
  '',
  '  2  1  0  0  0  0  0  0  0  0999 V2000',
  '    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0',
  '    1.2990    0.7500    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0',
  '  1  2  1  0',
  'M  END',
  '',
].join('\n')

const molblocks: (string | undefined)[] = [
  molfile,
  molfile.replaceAll('\n', '\r\n'),
  `${molfile}junk after the end\n$$$$\n`,
  molfile.replace('M  END', 'M  END   '),
  molfile.replace('M  END\n', ''),
  'no line break at all',
  `title line\r${molfile.slice(1)}`,
  undefined,
  `${molfile.replace('RDKit', 'Ünïcödé 化合物')}`,
]

const names: (string | null)[] = [
  'Aspirin',
  'Line one\nline two',
  'Windows\r\n\r\nline end',
  'Ünïcödé 化合物 🧪',
  '   ',
  null,
  'x'.repeat(79) + '🧪 an emoji across the 80th place',
  'y'.repeat(200),
  '$$$$',
  '> <not an item>',
]

const values: ExportValue[] = [
  'plain',
  'first paragraph\n\n\nsecond paragraph',
  '$$$$ not the end',
  'ends\n$$$$',
  '   ',
  '',
  '\r\n\r\n',
  'Windows\r\nlines\rold Mac',
  '  leading and trailing  ',
  'Ünïcödé 化合物 🧪 \u2028 separator',
  null,
  0,
  -0,
  1e-7,
  180.159,
  -1.25e21,
  Number.MAX_SAFE_INTEGER,
  true,
  false,
]

function record(index: number): ExportRecord {
  const name = names[index % names.length]!
  const row: RecordRow = {
    kind: 'molecules',
    id: index % 13 === 5 ? null : index + 1,
    columns: {
      name,
      formula: index % 3 === 0 ? null : 'C9H8O4',
      molecular_weight: values[index % values.length] as number | null,
      log_p: index % 2 === 0 ? null : -1.25,
      batch_count: index % 4,
      projects_json: JSON.stringify([{ id: 1, name: `Kinase, "hinge" <${index}>` }]),
      created_at: '2026-07-24T10:15:00Z',
    },
    json: {},
  }
  const molblock = molblocks[index % molblocks.length]
  return molblock === undefined ? { row } : { row, molblock }
}

/** Data items named by each record, as an export of every field writes them. */
const itemsOf: SdProperties = (entry) => {
  const index = Number(entry.row.id ?? 6) - 1
  return [
    ['Notes', values[index % values.length]!],
    ['Other', values[(index * 7 + 3) % values.length]!],
    ['Name with spaces', values[(index * 5 + 1) % values.length]!],
    ['Ünïcödé <angle> name', values[(index * 3 + 2) % values.length]!],
    ['Line\nbreak in name', 'x'],
    ['  ', 'a value under a blank name'],
  ]
}

/** Writes the records through a writer into a file, a page of `pageSize` at a time. */
async function written(
  file: string,
  records: readonly ExportRecord[],
  pageSize: number,
  make: (output: ExportOutput) => {
    write(records: readonly ExportRecord[]): Promise<void>
    finish(): Promise<void>
  },
): Promise<Buffer> {
  const output = new ExportOutput(fs.createWriteStream(file))
  const writer = make(output)
  for (let start = 0; start < records.length; start += pageSize) {
    await writer.write(records.slice(start, start + pageSize))
  }
  await writer.finish()
  await output.end()
  return fs.readFileSync(file)
}

describe('the SD writer', () => {
  const columns = viewColumns('molecules', { similarity: false })
  const many = Array.from({ length: 3000 }, (_, index) => record(index))
  // A value larger than a chunk goes in a piece of its own, between records of ordinary size.
  const huge = `${'long line of a note '.repeat(8000)}\n\n${'é'.repeat(byteChunkSize)}`
  const withHuge: ExportRecord[] = many
    .slice(0, 40)
    .map((entry, index) =>
      index === 20
        ? { ...entry, row: { ...entry.row, columns: { ...entry.row.columns, name: huge } } }
        : entry,
    )

  it('writes the view columns byte for byte as the string writer did', async () => {
    const reference = await written(path.join(dir, 'reference.sdf'), many, 1000, (output) =>
      referenceWriter(output, (entry) =>
        columns.headers.map((header, index) => [header, columns.values(entry)[index]!] as const),
      ),
    )
    for (const pageSize of [1000, 7]) {
      const fast = await written(path.join(dir, `fast-${pageSize}.sdf`), many, pageSize, (output) =>
        sdfWriter(output, columns),
      )
      expect(fast.length).toBeGreaterThan(3 * byteChunkSize)
      expectSameButTitles(fast, reference)
    }
  })

  it('writes data items named by each record byte for byte as the string writer did', async () => {
    const reference = await written(path.join(dir, 'reference-all.sdf'), many, 100, (output) =>
      referenceWriter(output, itemsOf),
    )
    const fast = await written(path.join(dir, 'fast-all.sdf'), many, 100, (output) =>
      sdfWriter(output, itemsOf),
    )
    expectSameButTitles(fast, reference)
  })

  it('writes a value larger than a chunk in its place', async () => {
    const items: SdProperties = (entry) => [['Name', entry.row.columns.name ?? null]]
    const reference = await written(path.join(dir, 'reference-huge.sdf'), withHuge, 15, (output) =>
      referenceWriter(output, items),
    )
    const fast = await written(path.join(dir, 'fast-huge.sdf'), withHuge, 15, (output) =>
      sdfWriter(output, items),
    )
    expect(fast.length).toBeGreaterThan(2 * byteChunkSize)
    expectSameButTitles(fast, reference)
  })

  it('keeps the SD rules: items, blank lines, separators, M  END, no broken character', async () => {
    const text = (
      await written(path.join(dir, 'rules.sdf'), many.slice(0, names.length * 2), 5, (output) =>
        sdfWriter(output, itemsOf),
      )
    ).toString('utf8')
    const records = text.split(/^\$\$\$\$\n/m)
    expect(records.at(-1)).toBe('')
    expect(records).toHaveLength(names.length * 2 + 1)
    expect(text).not.toContain('\r')
    expect(text).not.toContain('\uFFFD')
    for (const entry of records.slice(0, -1)) {
      const [molecule, items] = splitAtEnd(entry)
      expect(molecule.split('\n')[0]!.length).toBeLessThanOrEqual(80)
      // Each item: its header line, one or more lines of value (none blank), a blank line.
      expect(items).toMatch(/^(> {2}<[^<>\n]+>\n([^\n]+\n)+\n)*$/)
      expect(items).not.toMatch(/^\$\$\$\$/m)
    }
    // The emoji across the 80th place is left out whole.
    expect(text).toContain(`${'x'.repeat(79)}\n`)
  })
})

/** The molfile part of a record (up to its `M  END` line) and its data items. */
function splitAtEnd(entry: string): [string, string] {
  const end = entry.search(/^M {2}END[^\n]*\n/m)
  if (end >= 0) {
    const after = entry.indexOf('\n', end) + 1
    return [entry.slice(0, after), entry.slice(after)]
  }
  // A molfile without `M  END` (as the vault gave it) ends where the first item begins.
  const firstItem = entry.search(/^> {2}</m)
  return firstItem < 0 ? [entry, ''] : [entry.slice(0, firstItem), entry.slice(firstItem)]
}

/**
 * The files equal, but for the two titles the reference wrote wrong: one cut inside a surrogate
 * pair (U+FFFD in the file, the character left out now), and `$$$$` (given a leading space now).
 */
function expectSameButTitles(fast: Buffer, reference: Buffer): void {
  const brokenTitle = `${'x'.repeat(79)}\uFFFD\n`
  const endAsTitle = '$$$$\n$$$$\n'
  const text = reference.toString('utf8')
  expect(text).toContain(brokenTitle)
  expect(text).toContain(endAsTitle)
  const expected = text
    .replaceAll(brokenTitle, `${'x'.repeat(79)}\n`)
    // A function, since `$$` in a replacement text means `$`.
    .replaceAll(endAsTitle, () => '$$$$\n $$$$\n')
  expect(fast.toString('utf8')).toBe(expected)
  expect(fast.equals(Buffer.from(expected, 'utf8'))).toBe(true)
}

/** The writer before the byte chunks (commit 09ba3dd's sdf-writer.ts), frozen as the reference. */
function referenceWriter(output: ExportOutput, properties: SdProperties) {
  return {
    async write(records: readonly ExportRecord[]) {
      let text = ''
      for (const entry of records) {
        text += titled(entry.molblock ?? emptyMolblock, titleOf(entry))
        for (const [name, value] of properties(entry)) {
          const lines = value === null ? '' : propertyText(value)
          if (lines !== '') text += `>  <${propertyName(name)}>\n${lines}\n\n`
        }
        text += '$$$$\n'
        if (text.length >= 64 * 1024) {
          await output.write(text)
          text = ''
        }
      }
      await output.write(text)
    },
    async finish() {},
  }
}

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

function titleOf(entry: ExportRecord): string {
  const name = entry.row.columns.name
  const title = typeof name === 'string' && name.trim() !== '' ? name : String(entry.row.id ?? '')
  return title.replace(/[\r\n]+/g, ' ').slice(0, 80)
}

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
