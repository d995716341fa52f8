import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseSdf, readSdfEntries, SdfError } from './sdf.ts'

const ethanol = [
  'ethanol',
  '  hand-written',
  '',
  '  3  2  0  0  0  0  0  0  0  0999 V2000',
  '    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0',
  '    1.2990    0.7500    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0',
  '    2.5981   -0.0000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0',
  '  1  2  1  0',
  '  2  3  1  0',
  'M  END',
].join('\n')

const record = (molblock: string, properties: string): string => `${molblock}\n${properties}$$$$\n`

describe('parseSdf', () => {
  it('reads the molblock, title, atom count and multi-line properties', () => {
    const text = record(ethanol, '> <IC50>  (1)\n12.5\n\n> <NOTE>\nline one\nline two\n\n')
    const [only] = parseSdf(text)
    expect(only).toEqual({
      recordNumber: 1,
      title: 'ethanol',
      molblock: ethanol + '\n',
      atomCount: 3,
      properties: { IC50: '12.5', NOTE: 'line one\nline two' },
    })
  })

  it('accepts CRLF, a missing final $$$$ and an empty property value', () => {
    const text = (record(ethanol, '> <A>\n1\n\n') + ethanol + '\n> <EMPTY>\n\n').replaceAll(
      '\n',
      '\r\n',
    )
    const records = parseSdf(text)
    expect(records.map((r) => r.recordNumber)).toEqual([1, 2])
    expect(records[1]!.properties).toEqual({ EMPTY: '' })
  })

  it('passes a V3000 molblock through with its atom count', () => {
    const v3000 = [
      'methane',
      '',
      '',
      '  0  0  0     0  0            999 V3000',
      'M  V30 BEGIN CTAB',
      'M  V30 COUNTS 1 0 0 0 0',
      'M  V30 BEGIN ATOM',
      'M  V30 1 C 0 0 0 0',
      'M  V30 END ATOM',
      'M  V30 END CTAB',
      'M  END',
    ].join('\n')
    expect(parseSdf(record(v3000, ''))[0]!.atomCount).toBe(1)
  })

  const nciFile = '/work/shared/data/nci_first_200.props.sdf'
  it.skipIf(!fs.existsSync(nciFile))('reads the 200 records of a real NCI SD file', () => {
    const records = parseSdf(fs.readFileSync(nciFile, 'utf8'))
    expect(records).toHaveLength(200)
    expect(records[0]!.properties['ISM']).toBe('CC1=CC(=O)C=CC1=O')
    expect(records[0]!.atomCount).toBe(9)
    expect(records.every((r) => r.molblock.endsWith('M  END\n'))).toBe(true)
  })
})

describe('SDF errors name the record', () => {
  const broken = (molblock: string): string => record(ethanol, '') + record(molblock, '')

  it('a molblock without M  END', () => {
    expect(() => parseSdf(broken(ethanol.replace('M  END', '')))).toThrow(
      new SdfError(2, 'the molblock has no "M  END" line'),
    )
  })

  it('a counts line announcing more atoms than present', () => {
    expect(() => parseSdf(broken(ethanol.replace('  3  2', '  5  2')))).toThrow(
      'SDF record 2: the counts line announces 5 atoms and 2 bonds but the molblock has only 5 lines',
    )
  })

  it('a missing counts line', () => {
    expect(() => parseSdf(broken(ethanol.replace(' V2000', '')))).toThrow(
      /SDF record 2: line 4 is not a V2000 or V3000 counts line/,
    )
  })

  it('a bond to an atom that does not exist', () => {
    expect(() => parseSdf(broken(ethanol.replace('  2  3  1  0', '  2  7  1  0')))).toThrow(
      /SDF record 2: bond 2 refers to an atom that does not exist/,
    )
  })

  it('an atom line without coordinates', () => {
    expect(() => parseSdf(broken(ethanol.replace('    1.2990', '    x.xxxx')))).toThrow(
      /SDF record 2: atom 2 line is not a V2000 atom line/,
    )
  })

  it('text after the molblock that is not a data item', () => {
    expect(() => parseSdf(record(ethanol, 'stray text\n'))).toThrow(
      /SDF record 1: expected a data item header/,
    )
  })

  it('readSdfEntries keeps the good records around a broken one', () => {
    const text = record(ethanol, '') + record('garbage', '') + record(ethanol, '')
    const entries = readSdfEntries(text)
    expect(entries.map((entry) => ('error' in entry ? entry.error.message : 'ok'))).toEqual([
      'ok',
      'SDF record 2: the molblock has no "M  END" line',
      'ok',
    ])
  })
})
