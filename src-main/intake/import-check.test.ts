import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ImportCheckReport } from '../../src-common/intake/import-check.ts'
import { moleculeRecords } from '../../test/store/fixtures/molecule-records.ts'
import { requirement } from '../../test/support/environment.ts'
import { checkStructuresInWorkers } from '../chem/structure-check.ts'
import { ChemWorkerPool } from '../chem/worker-pool.ts'
import { VaultChemistry } from '../services/vault-chemistry.ts'
import { silentLogger } from '../shared/logger.ts'
import { VaultCache } from '../store/vault-cache.ts'
import { LocalImportChecker, type StructureProblems } from './import-check.ts'
import type { ImportCheckInput } from './import-checker.ts'
import { scanImportFile } from './import-file-source.ts'
import { readSdf } from './import-sdf-reader.ts'
import { readXlsx } from './import-xlsx-reader.ts'

const vaultId = 1
const python = '/usr/bin/python3'
const molecules = moleculeRecords(30)
const nameOf = (index: number) => String(molecules[index]!.name)
const accented = 'Müllerazol'
const twins: Record<string, unknown>[] = moleculeRecords(2, 500).map((record) => ({
  ...record,
  name: 'Twinomab',
}))
/** A cached molecule whose structure the structure index finds RDKit cannot read. */
const unreadableName = 'Valencium'
const unreadableSmiles = 'C(C)(C)(C)(C)C'

let dir: string
let cacheFile: string
let pool: ChemWorkerPool
let checker: LocalImportChecker
/** Every structure text the checker sent to RDKit, in order. */
const parsedTexts: string[] = []

const mapping = (header: string, type: string, id: number | null = null) => ({
  header: { name: header, position: 0 },
  definition: { id, type, name: header },
})

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-import-check-'))
  cacheFile = path.join(dir, 'cache.db')
  const { cache } = VaultCache.open(cacheFile)
  cache.applyPage('molecules', vaultId, [
    ...molecules,
    ...twins,
    { ...moleculeRecords(1, 900)[0], name: accented },
    { ...moleculeRecords(1, 960)[0], name: unreadableName, smiles: unreadableSmiles },
    ...moleculeRecords(9, 700).map((record) => ({ ...record, name: 'Commonol', smiles: 'CCCl' })),
  ])
  // Another vault's molecule of the same name must not make a reference ambiguous.
  cache.applyPage('molecules', 2, [{ ...moleculeRecords(1, 950)[0], name: nameOf(0) }])
  cache.applyPage('protocols', vaultId, [
    {
      id: 5,
      name: 'Kinase IC50',
      readout_definitions: [
        {
          id: 51,
          name: 'IC50',
          data_type: 'Number',
          unit_label: 'uM',
          range: { min: 0, max: 100 },
        },
        { id: 52, name: '% Inhibition', data_type: 'Number', unit_label: '%' },
        { id: 53, name: 'Comment', data_type: 'Text' },
      ],
    },
  ])
  cache.applyPage('mapping_templates', vaultId, [
    {
      id: 7,
      name: 'Kinase CSV',
      header_mappings: [
        mapping('SMILES', 'InternalFieldDefinition::Structure'),
        mapping('Compound', 'InternalFieldDefinition::MoleculeName'),
        mapping('IC50 (uM)', 'ReadoutDefinition', 51),
        mapping('Comment', 'ReadoutDefinition', 53),
      ],
    },
    {
      id: 8,
      name: 'Batch results',
      header_mappings: [
        mapping('Batch', 'InternalFieldDefinition::BatchName'),
        mapping('Inhibition', 'ReadoutDefinition', 52),
      ],
    },
    {
      id: 9,
      name: 'Kinase SDF',
      header_mappings: [
        mapping('NAME', 'InternalFieldDefinition::MoleculeName'),
        mapping('INHIBITION', 'ReadoutDefinition', 52),
      ],
    },
    { id: 10, name: 'Summary only' },
    {
      id: 12,
      name: 'Batch structures',
      header_mappings: [
        mapping('SMILES', 'InternalFieldDefinition::Structure'),
        mapping('Batch', 'InternalFieldDefinition::BatchName'),
        mapping('Inhibition', 'ReadoutDefinition', 52),
      ],
    },
    {
      id: 11,
      name: 'Synonyms',
      header_mappings: [
        mapping('Code', 'InternalFieldDefinition::MoleculeSynonyms'),
        mapping('Inhibition', 'ReadoutDefinition', 52),
      ],
    },
  ])
  pool = new ChemWorkerPool({ size: 1 })
  // The structure index, as the app builds it after a sync: it finds Valencium's unreadable.
  const chemistry = new VaultChemistry({
    connectionId: 'lab',
    vaultId,
    cache,
    pool,
    log: silentLogger,
    onProgress: () => {},
  })
  await chemistry.ingest({ details: false })
  chemistry.close()
  await cache.close()
  checker = new LocalImportChecker({ cacheFileOf: () => cacheFile, structureProblems: parse })
})

const parse: StructureProblems = (structures, signal) => {
  parsedTexts.push(...structures)
  return checkStructuresInWorkers(pool, structures, signal)
}

afterAll(async () => {
  await pool.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

function write(name: string, content: string | Uint8Array): string {
  const file = path.join(dir, name)
  fs.writeFileSync(file, content)
  return file
}

function check(
  filePath: string,
  mappingTemplate: number | string = 'Kinase CSV',
  signal?: AbortSignal,
): Promise<ImportCheckReport> {
  const input: ImportCheckInput = {
    connectionId: 'c1',
    vaultId,
    filePath,
    protocolId: 5,
    mappingTemplate,
  }
  return checker.check(input, signal)
}

const kinds = (report: ImportCheckReport) =>
  report.problems.map((problem) => `${problem.kind}@${problem.row ?? '-'}:${problem.column ?? '-'}`)

const goodCsv = (delimiter: string) =>
  [
    ['SMILES', 'Compound', 'IC50 (uM)', 'Comment'],
    ['CCO', nameOf(0), '<0.5', 'potent'],
    ['c1ccccc1', nameOf(1), '12.5', `"quoted${delimiter} with the delimiter"`],
    ['CC(=O)O', nameOf(2), '>100', '"two\nlines"'],
  ]
    .map((cells) => cells.join(delimiter))
    .join('\r\n') + '\r\n'

describe('checking a CSV import', () => {
  it.each([
    ['comma', ','],
    ['semicolon', ';'],
    ['tab', '\t'],
  ])('finds the %s delimiter and reads quoted fields', async (_, delimiter) => {
    const report = await check(write(`good-${delimiter.charCodeAt(0)}.csv`, goodCsv(delimiter)))
    expect(report.problems).toEqual([])
    expect(report).toMatchObject({
      format: 'csv',
      delimiter,
      encoding: 'utf-8',
      rows: 3,
      columns: ['SMILES', 'Compound', 'IC50 (uM)', 'Comment'],
      errors: 0,
      warnings: 0,
    })
    expect(report.sha256).toMatch(/^[0-9a-f]{64}$/)
  })

  const accentedCsv = `SMILES,Compound,IC50 (uM),Comment\nCCO,${accented},1.5,réactif ok\n`
  it.each([
    [
      'utf-8',
      'UTF-8 with a byte order mark',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(accentedCsv, 'utf8')]),
    ],
    [
      'utf-16le',
      'UTF-16 LE',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(accentedCsv, 'utf16le')]),
    ],
    [
      'utf-16be',
      'UTF-16 BE',
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(accentedCsv, 'utf16le').swap16()]),
    ],
    ['windows-1252', 'Latin-1', Buffer.from(accentedCsv, 'latin1')],
  ])('decodes %s (%s) and finds the accented name', async (encoding, _, bytes) => {
    const report = await check(write(`encoded-${encoding}.csv`, bytes))
    expect(report.encoding).toBe(encoding)
    // The first header has no BOM left in it, and the accented name matched the cache.
    expect(report.columns[0]).toBe('SMILES')
    expect(report.problems).toEqual([])
  })

  it('reports every fault of a row with its row and column', async () => {
    const file = write(
      'faults.csv',
      [
        'SMILES,Compound,IC50 (uM),Extra',
        `C(C)(C)(C)(C)C,${nameOf(0)},5,x`,
        `CCO,Twinomab,12,5,x`,
        `CCO,${nameOf(3)},500,x`,
        `not a smiles,Nobody,abc,x`,
        `CCO,${nameOf(4)},7`,
      ].join('\n'),
    )
    const report = await check(file)
    expect(kinds(report)).toEqual([
      'missing-column@-:Comment',
      'structure@1:SMILES',
      'file@2:-',
      'ambiguous-reference@2:Compound',
      'out-of-range@3:IC50 (uM)',
      'structure@4:SMILES',
      'not-a-number@4:IC50 (uM)',
      'file@5:-',
      'unmapped-column@-:Extra',
      'unknown-reference@4:Compound',
    ])
    const byKind = (kind: string) => report.problems.find((problem) => problem.kind === kind)!
    expect(byKind('structure').message).toMatch(/valence/i)
    expect(byKind('unknown-reference').severity).toBe('warning')
    expect(byKind('ambiguous-reference').message).toMatch(/2 cached records/)
    expect(report.problems.at(7)!.message).toMatch(/cut short/)
    expect(report).toMatchObject({ rows: 5, errors: 8, warnings: 2 })
    expect(report.counts).toMatchObject({ structure: 2, file: 2, 'not-a-number': 1 })
  })

  it('parses only new structures: not a repeat, nor the readable structure of a cached molecule', async () => {
    const smilesOf = (index: number) => String(molecules[index]!.smiles)
    const file = write(
      'cached-structures.csv',
      [
        'SMILES,Compound,IC50 (uM),Comment',
        `${smilesOf(0)},${nameOf(0)},1,x`,
        `${unreadableSmiles},${unreadableName},1,x`,
        `CCN,${nameOf(0)},1,x`,
        `CCN,${nameOf(2)},1,x`,
        // A cached structure under a name the cache does not know: the reference check's business.
        `${smilesOf(1)},Newcomer,1,x`,
        `${String(twins[0]!.smiles)},Twinomab,1,x`,
        `CCCl,Commonol,1,x`,
      ].join('\n'),
    )
    parsedTexts.length = 0
    const report = await check(file)
    expect(parsedTexts).toEqual([unreadableSmiles, 'CCN'])
    expect(kinds(report)).toEqual([
      'structure@2:SMILES',
      'ambiguous-reference@6:Compound',
      'ambiguous-reference@7:Compound',
      'unknown-reference@5:Compound',
    ])
    expect(report.problems[0]!.message).toMatch(/valence/i)

    const byBatch = write(
      'cached-by-batch.csv',
      `SMILES,Batch,Inhibition\n${smilesOf(3)},${String((molecules[3]!.batches as { molecule_batch_identifier: string }[])[0]!.molecule_batch_identifier)},5\n`,
    )
    parsedTexts.length = 0
    expect((await check(byBatch, 'Batch structures')).problems).toEqual([])
    expect(parsedTexts).toEqual([])
  })

  it('names a decimal comma and a header that differs only in case', async () => {
    const file = write('comma.csv', `smiles;Compound;IC50 (uM);Comment\nCCO;${nameOf(0)};12,5;x\n`)
    const report = await check(file)
    expect(report.problems.find((p) => p.kind === 'not-a-number')?.message).toMatch(/decimal comma/)
    expect(report.problems.find((p) => p.kind === 'missing-column')?.message).toMatch(/"smiles"/)
  })

  it('names a quote that is never closed', async () => {
    const file = write(
      'unclosed.csv',
      `SMILES,Compound,IC50 (uM),Comment\nCCO,${nameOf(0)},1,"oops\nCCO,${nameOf(1)},2,x\n`,
    )
    const report = await check(file)
    expect(report.rows).toBe(1)
    expect(report.problems).toMatchObject([
      { kind: 'file', row: 1, message: expect.stringMatching(/never closed/) },
    ])
  })

  it('reads rows across chunk boundaries, quoted line breaks included', async () => {
    // Quoted line breaks fall across the 64 KiB chunks the file is read in.
    const row = `CCO,${nameOf(0)},1.5,"a, quoted\ncomment"\n`
    const file = write('large.csv', `SMILES,Compound,IC50 (uM),Comment\n${row.repeat(200_000)}`)
    const report = await check(file)
    expect(report).toMatchObject({ rows: 200_000, errors: 0, warnings: 0 })
  })

  it('looks up batches and synonyms, and without a structure an unknown name is an error', async () => {
    const batch = (molecules[5]!.batches as { molecule_batch_identifier: string }[])[0]!
    const batches = await check(
      write(
        'batches.csv',
        `Batch,Inhibition\n${batch.molecule_batch_identifier.toLowerCase()},50\nVD-9999999-001,40\n`,
      ),
      8,
    )
    expect(kinds(batches)).toEqual(['unknown-reference@2:Batch'])
    expect(batches.problems[0]!.severity).toBe('error')
    const synonyms = await check(
      write('synonyms.csv', `Code,Inhibition\nCHEMBL100007;VD-0000007,1\nCHEMBL0,2\n`),
      'synonyms',
    )
    expect(kinds(synonyms)).toEqual(['unknown-reference@2:Code'])
  })

  it('says so when the template is not cached, or only as a summary', async () => {
    const file = write('plain.csv', goodCsv(','))
    for (const template of ['No such template', 10]) {
      const report = await check(file, template)
      expect(report.problems).toHaveLength(1)
      expect(report.problems[0]).toMatchObject({ kind: 'file', severity: 'warning' })
      expect(report.problems[0]!.message).toMatch(/not checked/)
    }
  })
})

describe('what the check knows of the template and the protocol', () => {
  it('takes the protocol from the template when none is named', async () => {
    const file = write('inferred.csv', `Batch,Inhibition\nVD-0000001-001,lots\n`)
    const report = await checker.check({
      connectionId: 'c1',
      vaultId,
      filePath: file,
      protocolId: 0,
      mappingTemplate: 'Batch results',
    })
    expect(kinds(report)).toEqual(['not-a-number@1:Inhibition'])
  })

  it('reads structures from a SMILES column the template does not map, as the vault does', async () => {
    const file = write('implicit.csv', `Batch,smiles,Inhibition\nVD-0000001-001,C1CC,5\n`)
    const report = await check(file, 'Batch results')
    expect(kinds(report)).toEqual(['structure@1:smiles'])
  })

  it('asks the vault for the column mappings of a template cached as a summary', async () => {
    const asked: number[] = []
    const online = new LocalImportChecker({
      cacheFileOf: () => cacheFile,
      structureProblems: async (structures) => structures.map(() => null),
      fetchMappingTemplate: async (_, __, templateId) => {
        asked.push(templateId)
        return {
          id: templateId,
          name: 'Summary only',
          header_mappings: [mapping('Batch', 'InternalFieldDefinition::BatchName')],
        }
      },
    })
    const input = {
      connectionId: 'c1',
      vaultId,
      filePath: write('fetched.csv', 'Lot\nL1\n'),
      protocolId: 5,
      mappingTemplate: 10,
    }
    for (let round = 0; round < 2; round++) {
      expect(kinds(await online.check(input))).toEqual([
        'missing-column@-:Batch',
        'unmapped-column@-:Lot',
      ])
    }
    // Once per template version: a second check asks nothing.
    expect(asked).toEqual([10])
  })

  it('warns of a data item no SD record has, which fills nothing', async () => {
    const file = write(
      'no-items.sdf',
      `plain\n  test\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\nM  END\n> <NAME>\n${nameOf(0)}\n\n$$$$\n`,
    )
    const report = await check(file, 'Kinase SDF')
    expect(report.problems).toMatchObject([
      { kind: 'missing-column', severity: 'warning', column: 'INHIBITION' },
    ])
  })
})

describe('files that cannot be checked', () => {
  const fileProblem = async (file: string, pattern: RegExp) => {
    const report = await check(file)
    expect(report.problems).toHaveLength(1)
    expect(report.problems[0]).toMatchObject({ kind: 'file', severity: 'error', row: null })
    expect(report.problems[0]!.message).toMatch(pattern)
    expect(report.errors).toBe(1)
    return report
  }

  it('an empty file', () => fileProblem(write('empty.csv', ''), /empty/))
  it('a header without rows', () =>
    fileProblem(write('header.csv', 'SMILES,Compound,IC50 (uM),Comment\n'), /no data rows/))
  it('a file that is not there', () => fileProblem(path.join(dir, 'gone.csv'), /no longer there/))
  it('a folder', () => {
    fs.mkdirSync(path.join(dir, 'folder.csv'))
    return fileProblem(path.join(dir, 'folder.csv'), /not a file/)
  })
  it('a spreadsheet named .csv', () =>
    fileProblem(write('zip.csv', Buffer.from('PK\x03\x04rest', 'latin1')), /zip archive/))
  it('a CSV named .xlsx', () =>
    fileProblem(write('text.xlsx', goodCsv(',')), /not an xlsx workbook/))
  it('binary data named .csv', () =>
    fileProblem(write('raw.csv', Buffer.from([0x41, 0x00, 0x42, 0x0a, 0x01, 0x00])), /binary data/))
  it('an unknown extension', () => fileProblem(write('notes.docx', 'x'), /checks CSV/))

  it('a 2 GB file, refused before it is read', async () => {
    const file = path.join(dir, 'huge.csv')
    fs.writeFileSync(file, '')
    fs.truncateSync(file, 2 * 1024 ** 3)
    const report = await fileProblem(file, /2\.0 GiB, above the 256\.0 MiB/)
    expect(report.sha256).toBeNull()
    fs.rmSync(file)
  })

  it('a file that vanishes while it is read', async () => {
    const file = write(
      'vanishing.csv',
      goodCsv(',')
        .repeat(1)
        .concat(`CCO,${nameOf(0)},1,x\n`.repeat(50_000)),
    )
    const checking = check(file)
    fs.rmSync(file)
    const report = await checking
    expect(report.problems[0]).toMatchObject({ kind: 'file', severity: 'error' })
    expect(report.problems[0]!.message).toMatch(/no longer there|changed while it was read/)
  })

  it('stops when aborted', async () => {
    const controller = new AbortController()
    controller.abort()
    await expect(
      check(write('aborted.csv', goodCsv(',')), 'Kinase CSV', controller.signal),
    ).rejects.toThrow()
  })
})

const pythonWith = (module: string): boolean => {
  try {
    execFileSync(python, ['-c', `import ${module}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

describe('SD files, against RDKit in Python', () => {
  const run = requirement(
    fs.existsSync(python) && pythonWith('rdkit'),
    'Debian python3 with RDKit (python3-rdkit)',
  )

  /** Molblocks written by RDKit, unsanitized, so that an impossible valence can be written. */
  const molblock = (smiles: string) =>
    execFileSync(python, [
      '-c',
      [
        'import sys',
        'from rdkit import Chem',
        'mol = Chem.MolFromSmiles(sys.argv[1], sanitize=False)',
        'mol.UpdatePropertyCache(strict=False)',
        'print(Chem.MolToMolBlock(mol, kekulize=False), end="")',
      ].join('\n'),
      smiles,
    ]).toString()

  it.runIf(run)('splits records, reads their data items and finds the bad record', async () => {
    const good = molblock('CC(O)=O')
    const bad = molblock('CC(C)(C)(C)(C)C')
    const records = [
      `${good}> <NAME>\n${nameOf(0)}\n\n> <INHIBITION>\n45.5\n\n$$$$`,
      `${bad}> <NAME>\nBadvalence\n\n> <INHIBITION>\n12\n\n$$$$`,
      `${good}> <NAME>\n${nameOf(1)}\n\n> <INHIBITION>\nnot measured\n\n> <NOTE>\nline one\nline two\n\n$$$$`,
    ]
    const file = write('mixed.sdf', `${records.join('\n')}\n`)
    const reference = JSON.parse(
      execFileSync(python, [
        '-c',
        [
          'import json, sys',
          'from rdkit import Chem, RDLogger',
          'RDLogger.DisableLog("rdApp.*")',
          'out = []',
          'for mol in Chem.SDMolSupplier(sys.argv[1], sanitize=True):',
          '    out.append(None if mol is None else mol.GetPropsAsDict())',
          'print(json.dumps(out))',
        ].join('\n'),
        file,
      ]).toString(),
    ) as (Record<string, unknown> | null)[]

    const table = await readSdf(file, await scanImportFile(file))
    const read: string[][] = []
    for await (const record of table.records) read.push([...record.cells])
    expect(read).toHaveLength(reference.length)
    reference.forEach((props, index) => {
      if (props === null) return
      for (const [name, value] of Object.entries(props)) {
        expect(read[index]![table.columns.indexOf(name)]).toBe(String(value))
      }
    })

    const report = await check(file, 'Kinase SDF')
    const unparsed = reference.flatMap((props, index) => (props === null ? [index + 1] : []))
    expect(unparsed.length).toBeGreaterThan(0)
    expect(report.problems.filter((p) => p.kind === 'structure').map((p) => p.row)).toEqual(
      unparsed,
    )
    expect(kinds(report)).toEqual([
      'structure@2:-',
      'not-a-number@3:INHIBITION',
      'unmapped-column@-:NOTE',
      'unknown-reference@2:NAME',
    ])
    expect(report).toMatchObject({ format: 'sdf', rows: 3 })
  })

  it.runIf(run)('reports a last record cut short', async () => {
    const good = molblock('CCO')
    const file = write('cut.sdf', `${good}> <NAME>\n${nameOf(0)}\n\n$$$$\n${good.slice(0, 40)}`)
    const report = await check(file, 'Kinase SDF')
    expect(kinds(report)).toContain('file@2:-')
    expect(kinds(report)).toContain('structure@2:-')
  })
})

describe('xlsx written by openpyxl', () => {
  const run = requirement(
    fs.existsSync(python) && pythonWith('openpyxl'),
    'Debian python3 with openpyxl (python3-openpyxl)',
  )

  it.runIf(run)('reads the first sheet as openpyxl wrote it and checks it', async () => {
    const file = path.join(dir, 'plate.xlsx')
    const rows = [
      ['SMILES', 'Compound', 'IC50 (uM)', 'Comment'],
      ['CCO', nameOf(0), 0.25, 'ok'],
      ['C(C)(C)(C)(C)C', nameOf(1), '>100', null],
      ['c1ccccc1', 'Nobody', 'n/a', 'été'],
    ]
    execFileSync(python, [
      '-c',
      [
        'import json, sys, openpyxl',
        'wb = openpyxl.Workbook()',
        'ws = wb.active',
        'for row in json.loads(sys.argv[2]): ws.append(row)',
        'other = wb.create_sheet("Other")',
        'other.append(["not", "read"])',
        'wb.save(sys.argv[1])',
      ].join('\n'),
      file,
      JSON.stringify(rows),
    ])
    const table = await readXlsx(file)
    expect(table.columns).toEqual(rows[0])
    const read: string[][] = []
    for await (const record of table.records) read.push([...record.cells])
    expect(read).toEqual(
      rows.slice(1).map((row) => row.map((cell) => (cell === null ? '' : String(cell)))),
    )

    const report = await check(file)
    expect(report).toMatchObject({ format: 'xlsx', rows: 3, encoding: null })
    expect(kinds(report)).toEqual([
      'structure@2:SMILES',
      'not-a-number@3:IC50 (uM)',
      'unknown-reference@3:Compound',
    ])
  })
})
