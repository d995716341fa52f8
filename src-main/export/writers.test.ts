/**
 * The format writers, each read back by an independent reader in the same run: Python's csv
 * module, RDKit's SD reader (Debian's RDKit 2022.09) with molfiles written by the project's RDKit
 * (the chemistry workers), openpyxl and ExcelJS's own reader for workbooks, JSON.parse per line.
 * Also the file's life: a folder that is missing or read-only, a full disk, a cancelled export.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RecordRow } from '../../src-common/records/record-row.ts'
import {
  canonicalSmiles,
  exportReadersHere,
  readCsv,
  readSdf,
  readXlsx,
} from '../../test/support/export-readers.ts'
import { AppError } from '../shared/app-error.ts'
import { ChemWorkerPool } from '../chem/worker-pool.ts'
import {
  FieldNames,
  fieldColumns,
  flattenRecord,
  viewColumns,
  type ExportColumns,
  type ExportRecord,
} from './columns.ts'
import { csvWriter } from './csv-writer.ts'
import { checkFormatForKind } from './formats.ts'
import { jsonLinesWriter } from './jsonl-writer.ts'
import { ExportOutput } from './output.ts'
import type { RecordWriter } from './record-writer.ts'
import { sdfWriter } from './sdf-writer.ts'
import { TargetFile } from './target-file.ts'
import { excelDate, xlsxWriter } from './xlsx-writer.ts'

const readersHere = exportReadersHere()
let dir: string

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-export-writers-'))
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** Names a person may well give, each a trap for a careless writer. */
const awkwardNames = [
  'Aspirin',
  'Salt, "sodium"',
  'Line one\nline two',
  'Windows\r\nline end',
  'Ünïcödé 化合物 🧪',
  '  padded  ',
  '"quoted"',
  '=1+1',
]

function row(id: number | null, json: Record<string, unknown>): RecordRow {
  return {
    kind: 'molecules',
    id,
    columns: {
      name: (json.name as string | undefined) ?? null,
      created_at: (json.created_at as string | undefined) ?? null,
      modified_at: null,
      formula: (json.formula as string | undefined) ?? null,
      molecular_weight: (json.molecular_weight as number | undefined) ?? null,
      log_p: (json.log_p as number | undefined) ?? null,
    },
    json,
  }
}

/** Writes records through a writer into a file, as an export does, page by page. */
async function writeFile(
  file: string,
  make: (output: ExportOutput) => RecordWriter,
  pages: ExportRecord[][],
): Promise<void> {
  const output = new ExportOutput(fs.createWriteStream(file))
  const writer = make(output)
  for (const page of pages) await writer.write(page)
  await writer.finish()
  await output.end()
}

const molecules: ExportRecord[] = awkwardNames.map((name, index) => ({
  row: row(index + 1, {
    id: index + 1,
    name,
    formula: 'C9H8O4',
    molecular_weight: index === 0 ? 180.159 : 1e-7 * (index + 1),
    log_p: index % 2 === 0 ? null : -1.25,
    batches: Array.from({ length: index }, (_, batch) => ({ id: batch })),
    projects: [{ id: 1, name: 'Kinase, "hinge" binders' }],
    created_at: '2026-07-24T10:15:00Z',
    owner: { id: 3, name: 'Ada' },
    molecule_fields: { Solubility: 'high', pKa: 4.5 },
  }),
}))

describe('view columns', () => {
  it('are the list columns after the ID, numbers raw, dates as the vault gave them', () => {
    const columns = viewColumns('molecules', { similarity: true })
    expect(columns.headers).toEqual([
      'ID',
      'Similarity',
      'Name',
      'Formula',
      'MW',
      'cLogP',
      'Batches',
      'Projects',
      'Registered',
    ])
    expect(columns.dates).toEqual([false, false, false, false, false, false, false, false, true])
    expect(columns.values({ ...molecules[3]!, similarity: 0.5 })).toEqual([
      4,
      0.5,
      'Windows\r\nline end',
      'C9H8O4',
      4e-7,
      -1.25,
      3,
      'Kinase, "hinge" binders',
      '2026-07-24T10:15:00Z',
    ])
  })

  it('flattens every field to dotted names, arrays as JSON text', () => {
    const fields = flattenRecord(molecules[2]!.row.json)
    expect(fields.get('owner.name')).toBe('Ada')
    expect(fields.get('molecule_fields.pKa')).toBe(4.5)
    expect(fields.get('batches')).toBe('[{"id":0},{"id":1}]')
    const names = new FieldNames()
    names.add({ id: 1, a: { b: 1 } })
    names.add({ id: 2, c: null, a: { d: 'x' } })
    expect(names.names).toEqual(['id', 'a.b', 'c', 'a.d'])
    expect(fieldColumns(names.names).values({ row: row(2, { id: 2, a: { d: 'x' } }) })).toEqual([
      2,
      null,
      null,
      'x',
    ])
  })

  it('refuses an SD file of a kind without structures, saying what would do', () => {
    expect(() => checkFormatForKind('sdf', 'plates', 'Plates')).toThrow(
      /plates have none: only molecules can be exported as an SD file/,
    )
    expect(() => checkFormatForKind('csv', 'plates', 'Plates')).not.toThrow()
  })
})

describe.runIf(readersHere)('written, then read back by other readers', () => {
  const columns = viewColumns('molecules', { similarity: false })

  it('CSV: Python reads every awkward value back as it was', async () => {
    const file = path.join(dir, 'molecules.csv')
    await writeFile(file, (output) => csvWriter(output, columns, { bom: false }), [
      molecules.slice(0, 3),
      molecules.slice(3),
    ])
    const bytes = fs.readFileSync(file)
    expect(bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false)
    const rows = readCsv(file)
    expect(rows[0]).toEqual([...columns.headers])
    expect(rows).toHaveLength(molecules.length + 1)
    rows.slice(1).forEach((cells, index) => {
      const expected = columns.values(molecules[index]!).map((value) => String(value ?? ''))
      expect(cells).toEqual(expected)
    })
    expect(rows[2]![1]).toBe('Salt, "sodium"')
    expect(rows[4]![1]).toBe('Windows\r\nline end')
    expect(rows[5]![1]).toBe('Ünïcödé 化合物 🧪')
    expect(Number(rows[2]![3])).toBe(2e-7)
  })

  it('CSV for Excel starts with a byte order mark; an empty list is its header alone', async () => {
    const file = path.join(dir, 'empty.csv')
    await writeFile(file, (output) => csvWriter(output, columns, { bom: true }), [])
    const bytes = fs.readFileSync(file)
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    expect(bytes.subarray(3).toString('utf8')).toBe(`${columns.headers.join(',')}\r\n`)
  })

  it('JSON Lines: one object per line, by the view columns or the record itself', async () => {
    const file = path.join(dir, 'molecules.jsonl')
    await writeFile(file, (output) => jsonLinesWriter(output, (record) => record.row.json), [
      molecules,
    ])
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    expect(lines.at(-1)).toBe('')
    expect(lines.slice(0, -1).map((line) => JSON.parse(line))).toEqual(
      molecules.map((record) => record.row.json),
    )
  })

  it('SD file: RDKit reads the same structures, titles and properties', async () => {
    const smiles = [
      'CC(=O)Oc1ccccc1C(=O)O',
      'C[C@H](N)C(=O)O',
      'C/C=C/C(=O)[O-].[Na+]',
      'O=C1N[C@@H](Cc2ccccc2)C(=O)N[C@H]1C',
      'c1ccc2ccccc2c1',
      'C1CC1',
      'not a smiles',
      '',
    ]
    const pool = new ChemWorkerPool({ size: 2 })
    let converted
    try {
      converted = await pool.run({ kind: 'writeMolblocks', structures: smiles.slice(0, 7) })
    } finally {
      await pool.close()
    }
    expect(converted[6]).toEqual({ problem: expect.stringMatching(/SMILES/) })
    const records: ExportRecord[] = molecules.map((record, index) => {
      const answer = converted[index]
      const molblock = answer && 'molblock' in answer ? answer.molblock : undefined
      // A molfile as a vault may keep it: CRLF line ends, and text after its end.
      const kept =
        index === 1 && molblock ? `${molblock.replaceAll('\n', '\r\n')}junk\r\n` : molblock
      return kept === undefined ? record : { ...record, molblock: kept }
    })
    const file = path.join(dir, 'molecules.sdf')
    const extra: [string, string][] = [
      ['Notes', 'first paragraph\n\n\nsecond paragraph'],
      ['Trap', '$$$$ not the end'],
      ['<Odd> name', 'value'],
    ]
    await writeFile(
      file,
      (output) =>
        sdfWriter(output, (record) => [
          ...columns.headers.map(
            (header, index) => [header, columns.values(record)[index]!] as const,
          ),
          ...extra,
        ]),
      [records.slice(0, 4), records.slice(4)],
    )
    const read = readSdf(file)
    expect(read).toHaveLength(records.length)
    const expectedSmiles = canonicalSmiles(smiles.slice(0, 6))
    read.forEach((record, index) => {
      expect(record, `record ${index}`).not.toBeNull()
      expect(record!.smiles).toBe(index < 6 ? expectedSmiles[index] : null)
      expect(record!.title).toBe(awkwardNames[index]!.replace(/[\r\n]+/g, ' '))
      expect(record!.properties.ID).toBe(index + 1)
      expect(String(record!.properties.Name)).toBe(
        awkwardNames[index]!.replace(/\r\n?/g, '\n')
          .split('\n')
          .filter((line) => line.trim() !== '')
          .join('\n'),
      )
      expect(record!.properties.MW).toBe(index === 0 ? 180.159 : 1e-7 * (index + 1))
      expect(record!.properties.Projects).toBe('Kinase, "hinge" binders')
      expect(record!.properties.Notes).toBe('first paragraph\nsecond paragraph')
      expect(record!.properties.Trap).toBe(' $$$$ not the end')
      expect(record!.properties['Odd  name']).toBe('value')
      // Empty values are left out.
      expect('cLogP' in record!.properties).toBe(index % 2 === 1)
    })
  }, 60_000)

  it('Excel: openpyxl and ExcelJS read numbers, dates and text; long lists go on in sheets', async () => {
    const file = path.join(dir, 'molecules.xlsx')
    const long = 'x'.repeat(40_000)
    const records = [
      ...molecules,
      { row: row(99, { id: 99, name: long, created_at: '2026-01-02' }) },
    ]
    let writer: ReturnType<typeof xlsxWriter> | null = null
    await writeFile(
      file,
      (output) =>
        (writer = xlsxWriter(output, columns, { sheetName: 'Molecules', rowsPerSheet: 5 })),
      [records.slice(0, 2), records.slice(2)],
    )
    expect(writer!.truncatedCells).toBe(1)
    const sheets = readXlsx(file)
    expect(sheets.map((sheet) => sheet.title)).toEqual([
      'Molecules',
      'Molecules (2)',
      'Molecules (3)',
    ])
    for (const sheet of sheets) {
      expect(sheet.frozen).toBe('A2')
      expect(sheet.rows[0]).toEqual([...columns.headers])
      expect(sheet.bold.every(Boolean)).toBe(true)
    }
    const dataRows = sheets.flatMap((sheet) => sheet.rows.slice(1))
    expect(dataRows).toHaveLength(records.length)
    const wallClock = excelDate('2026-07-24T10:15:00Z')!.value.toISOString().slice(0, 19)
    dataRows.slice(0, molecules.length).forEach((cells, index) => {
      const values = columns.values(molecules[index]!)
      expect(cells[0]).toBe(index + 1)
      // A cell's line break is LF, as Excel writes it (XML would turn a bare CR into LF anyway).
      expect(cells[1]).toBe(String(values[1]).replaceAll('\r\n', '\n'))
      expect(cells[3]).toBe(values[3])
      expect(cells[4]).toBe(values[4])
      expect(cells[6]).toBe('Kinase, "hinge" binders')
      expect(cells[7]).toEqual({ date: wallClock })
    })
    expect(dataRows.at(-1)![1]).toBe('x'.repeat(32_767))
    expect(dataRows.at(-1)![7]).toEqual({ date: '2026-01-02T00:00:00' })

    const workbook = new ExcelJS.Workbook()
    await workbook.xlsx.readFile(file)
    const first = workbook.worksheets[0]!
    expect(first.getRow(1).values).toEqual([undefined, ...columns.headers])
    expect(first.getRow(2).getCell(4).value).toBe(180.159)
    expect(first.getRow(2).getCell(8).numFmt).toBe('yyyy-mm-dd hh:mm:ss')
    expect(first.getRow(3).getCell(2).value).toBe('Salt, "sodium"')
    expect(workbook.worksheets.reduce((sum, sheet) => sum + sheet.rowCount - 1, 0)).toBe(
      records.length,
    )
  })
})

describe('the file of an export', () => {
  const columns: ExportColumns = viewColumns('molecules', { similarity: false })

  it('is refused before anything is written when its folder does not exist', async () => {
    const error = await TargetFile.create(path.join(dir, 'missing', 'x.csv')).catch((e) => e)
    expect(error).toBeInstanceOf(AppError)
    expect(error).toMatchObject({ code: 'invalid_argument' })
    expect((error as Error).message).toMatch(/missing does not exist/)
    expect(fs.existsSync(path.join(dir, 'missing'))).toBe(false)
  })

  const readOnly = readOnlyFolder()
  it.runIf(readOnly !== null)('is refused in a read-only folder, leaving it empty', async () => {
    const folder = readOnly!.folder
    try {
      const error = await TargetFile.create(path.join(folder, 'x.csv')).catch((e) => e)
      expect(error).toMatchObject({ code: 'invalid_argument' })
      expect((error as Error).message).toMatch(/cannot be written to .*read-only/)
      expect(fs.readdirSync(folder)).toEqual([])
    } finally {
      readOnly!.release()
    }
  })

  it('says the disk is full when it is (/dev/full)', async () => {
    if (!fs.existsSync('/dev/full')) return
    const output = new ExportOutput(fs.createWriteStream('/dev/full'))
    const writer = csvWriter(output, columns, { bom: false })
    const error = await (async () => {
      for (let page = 0; page < 100; page++) await writer.write(molecules)
      await output.end()
    })().catch((e) => e)
    expect(error).toMatchObject({ code: 'storage' })
    expect((error as Error).message).toMatch(/disk is full/)
  })

  it('is renamed into place only when complete; a failure or a cancel leaves nothing', async () => {
    const folder = fs.mkdtempSync(path.join(dir, 'target-'))
    const target = path.join(folder, 'molecules.csv')
    fs.writeFileSync(target, 'the earlier export\n')

    const failing = await TargetFile.create(target, async (temporary) => {
      fs.writeFileSync(temporary, '')
      return diskFullAfter(temporary, 100)
    })
    const output = new ExportOutput(failing.stream)
    const writer = csvWriter(output, columns, { bom: false })
    const error = await (async () => {
      for (let page = 0; page < 10; page++) await writer.write(molecules)
    })().catch((e) => e)
    expect((error as Error).message).toMatch(/disk is full/)
    expect(fs.existsSync(failing.temporaryPath)).toBe(true)
    await failing.discard()
    expect(fs.readdirSync(folder)).toEqual(['molecules.csv'])
    expect(fs.readFileSync(target, 'utf8')).toBe('the earlier export\n')

    const cancelled = await TargetFile.create(target)
    await new ExportOutput(cancelled.stream).write('half of it')
    await cancelled.discard()
    expect(fs.readdirSync(folder)).toEqual(['molecules.csv'])

    const done = await TargetFile.create(target)
    const doneOutput = new ExportOutput(done.stream)
    await doneOutput.write('the new export\n')
    await doneOutput.end()
    await new Promise((resolve) =>
      done.stream.closed ? resolve(null) : done.stream.once('close', resolve),
    )
    await done.complete()
    expect(fs.readdirSync(folder)).toEqual(['molecules.csv'])
    expect(fs.readFileSync(target, 'utf8')).toBe('the new export\n')
  })
})

/** A stream that writes `bytes` to the file, then fails as a full disk does. */
function diskFullAfter(file: string, bytes: number): Writable {
  let written = 0
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (written + chunk.length > bytes) {
        done(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))
        return
      }
      written += chunk.length
      fs.appendFileSync(file, chunk)
      done()
    },
  })
}

/**
 * A folder this process cannot write in: by its mode, or (for root, whom modes do not stop) by
 * the immutable attribute; null where neither is possible.
 */
function readOnlyFolder(): { folder: string; release: () => void } | null {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-export-readonly-'))
  const release = (): void => {
    spawnSync('chattr', ['-i', folder])
    fs.chmodSync(folder, 0o755)
    fs.rmSync(folder, { recursive: true, force: true })
  }
  if (process.getuid?.() !== 0) {
    fs.chmodSync(folder, 0o555)
    return { folder, release }
  }
  if (spawnSync('chattr', ['+i', folder]).status === 0) return { folder, release }
  release()
  return null
}
