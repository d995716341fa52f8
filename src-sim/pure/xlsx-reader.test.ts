import { describe, expect, it } from 'vitest'
import { readXlsxFirstSheet, XlsxError } from './xlsx-reader.ts'
import { createZip } from './zip-writer.ts'

const workbookXml = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"
  xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
  <sheets><sheet name="Results" sheetId="1" r:id="rId7"/><sheet name="Other" sheetId="2" r:id="rId8"/></sheets>
</workbook>`

const relationsXml = `<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
  <Relationship Id="rId8" Type="worksheet" Target="worksheets/sheet2.xml"/>
  <Relationship Id="rId7" Type="worksheet" Target="worksheets/results.xml"/>
</Relationships>`

const sharedStringsXml = `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="4" uniqueCount="4">
  <si><t>SMILES</t></si><si><t>IC50 (µM)</t></si><si><t>CCO</t></si>
  <si><r><t>rich </t></r><r><rPr><b/></rPr><t>text</t></r><rPh><t>ignored</t></rPh></si>
</sst>`

const stylesXml = `<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
  <numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd"/></numFmts>
  <cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="2"/></cellXfs>
</styleSheet>`

const sheetXml = `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
  <sheetData>
    <row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="D1" t="inlineStr"><is><t>Run date</t></is></c></row>
    <row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2" s="2"><v>12.5</v></c><c r="C2" t="b"><v>1</v></c><c r="D2" s="1"><v>45356</v></c></row>
    <row r="4"><c r="A4" t="s"><v>3</v></c><c r="B4" t="str"><f>1/0</f><v>#DIV/0!</v></c></row>
    <row r="5"><c r="A5"/></row>
  </sheetData>
</worksheet>`

function workbook(files: Record<string, string>): Buffer {
  return createZip(Object.entries(files).map(([name, data]) => ({ name, data })))
}

const complete = {
  '[Content_Types].xml': '<Types/>',
  'xl/workbook.xml': workbookXml,
  'xl/_rels/workbook.xml.rels': relationsXml,
  'xl/sharedStrings.xml': sharedStringsXml,
  'xl/styles.xml': stylesXml,
  'xl/worksheets/results.xml': sheetXml,
  'xl/worksheets/sheet2.xml': '<worksheet><sheetData/></worksheet>',
}

describe('readXlsxFirstSheet', () => {
  it('reads the first sheet named by the workbook, with every cell type', () => {
    expect(readXlsxFirstSheet(workbook(complete))).toEqual([
      ['SMILES', 'IC50 (µM)', '', 'Run date'],
      ['CCO', '12.5', 'TRUE', '2024-03-05'],
      [],
      ['rich text', '#DIV/0!'],
    ])
  })

  it('works without shared strings or styles', () => {
    const minimal = workbook({
      'xl/workbook.xml': workbookXml,
      'xl/worksheets/sheet1.xml':
        '<worksheet><sheetData><row><c t="inlineStr"><is><t>a</t></is></c><c><v>2</v></c></row></sheetData></worksheet>',
    })
    expect(readXlsxFirstSheet(minimal)).toEqual([['a', '2']])
  })

  it('explains a file that is not a workbook', () => {
    expect(() => readXlsxFirstSheet(Buffer.from('smiles,name\n'))).toThrow(
      /XLSX: the file is not a readable workbook \(not a ZIP archive/,
    )
    expect(() => readXlsxFirstSheet(workbook({ 'word/document.xml': '<w/>' }))).toThrow(
      new XlsxError('xl/workbook.xml is missing; this is not an XLSX workbook'),
    )
  })

  it('names a missing sheet and a dangling shared string', () => {
    const { 'xl/worksheets/results.xml': _sheet, ...withoutSheet } = complete
    expect(() => readXlsxFirstSheet(workbook(withoutSheet))).toThrow(
      'XLSX: the workbook names xl/worksheets/results.xml but it is missing',
    )
    const dangling = { ...complete, 'xl/sharedStrings.xml': '<sst><si><t>only</t></si></sst>' }
    expect(() => readXlsxFirstSheet(workbook(dangling))).toThrow(
      'XLSX: cell B1 refers to a missing shared string',
    )
  })
})
