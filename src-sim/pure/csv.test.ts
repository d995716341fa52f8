import { describe, expect, it } from 'vitest'
import { CsvError, parseCsv, parseCsvTable } from './csv.ts'

describe('parseCsv', () => {
  it('splits plain fields and records', () => {
    expect(parseCsv('a,b,c\n1,2,3\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', '2', '3'],
    ])
  })

  it('accepts CRLF, a lone CR and a missing final line break', () => {
    expect(parseCsv('a,b\r\n1,2\r3,4')).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
    ])
  })

  it('drops a UTF-8 byte order mark', () => {
    expect(parseCsv('\uFEFFsmiles,name\nCCO,ethanol')[0]).toEqual(['smiles', 'name'])
  })

  it('keeps delimiters, doubled quotes and line breaks inside quoted fields', () => {
    expect(parseCsv('"a,b","say ""hi""","two\r\nlines"\nx,,""')).toEqual([
      ['a,b', 'say "hi"', 'two\r\nlines'],
      ['x', '', ''],
    ])
  })

  it('keeps empty trailing fields', () => {
    expect(parseCsv('a,b,\n,,')).toEqual([
      ['a', 'b', ''],
      ['', '', ''],
    ])
  })

  it('supports another delimiter', () => {
    expect(parseCsv('a;b\t\n"1;2";3', ';')).toEqual([
      ['a', 'b\t'],
      ['1;2', '3'],
    ])
  })

  it('names the line of a quoted field that is never closed', () => {
    expect(() => parseCsv('a,b\n1,"open\nstill open')).toThrow(
      new CsvError(2, 'a quoted field is never closed'),
    )
  })

  it('rejects text after a closing quote, naming the line', () => {
    expect(() => parseCsv('a\n"x"y')).toThrow(/CSV line 2: unexpected character "y"/)
  })

  it('rejects a quote in the middle of an unquoted field', () => {
    expect(() => parseCsv('ab"c"')).toThrow(/CSV line 1: a quote inside an unquoted field/)
  })

  it('counts lines inside quoted fields when reporting later errors', () => {
    expect(() => parseCsv('"multi\nline",1\nok,"x"z')).toThrow(/CSV line 3/)
  })
})

describe('parseCsvTable', () => {
  it('returns trimmed headers, rows and the line each row starts on', () => {
    const table = parseCsvTable(' smiles , name\n\nCCO,ethanol\n"C\nC",weird\n')
    expect(table.headers).toEqual(['smiles', 'name'])
    expect(table.rows).toEqual([
      ['CCO', 'ethanol'],
      ['C\nC', 'weird'],
    ])
    expect(table.rowLines).toEqual([3, 4])
  })

  it('rejects an empty file', () => {
    expect(() => parseCsvTable('\n\n')).toThrow(/header line is required/)
  })

  it('rejects a ragged row, naming its line and both widths', () => {
    expect(() => parseCsvTable('a,b\n1,2\n3\n')).toThrow(
      'CSV line 3: has 1 fields but the header has 2',
    )
  })

  it('rejects empty and duplicate headers', () => {
    expect(() => parseCsvTable('a,,c\n')).toThrow('column 2 has an empty header')
    expect(() => parseCsvTable('a,b,a\n')).toThrow('header "a" appears more than once')
  })
})
