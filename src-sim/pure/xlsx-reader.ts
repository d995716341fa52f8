import { readZip, type ZipEntry } from './zip-reader.ts'
import { childElements, firstChild, parseXml, textContent, type XmlElement } from './xml.ts'

/**
 * Reads the cells of the first worksheet of an XLSX workbook (Office Open XML): shared strings,
 * inline strings, numbers, booleans and formula results. Numbers formatted as dates come back as
 * ISO dates (`2024-03-05`, or with a time when the serial has a fraction). Styles other than
 * date formats, merged cells and further sheets are ignored.
 */

export class XlsxError extends Error {
  constructor(message: string) {
    super(`XLSX: ${message}`)
    this.name = 'XlsxError'
  }
}

/** Rows of cell texts; missing cells inside a row are '', rows beyond the last filled are cut. */
export function readXlsxFirstSheet(workbook: Uint8Array): string[][] {
  let files: Map<string, Buffer>
  try {
    files = new Map(readZip(workbook).map((entry: ZipEntry) => [entry.name, entry.data]))
  } catch (error) {
    throw new XlsxError(`the file is not a readable workbook (${(error as Error).message})`)
  }
  const xml = (path: string): XmlElement | undefined => {
    const data = files.get(path)
    return data ? parseXml(data.toString('utf8')) : undefined
  }
  const sheetPath = firstSheetPath(xml)
  const sheet = xml(sheetPath)
  if (!sheet) throw new XlsxError(`the workbook names ${sheetPath} but it is missing`)
  const sharedStrings = readSharedStrings(xml('xl/sharedStrings.xml'))
  const dateStyles = readDateStyles(xml('xl/styles.xml'))

  const sheetData = firstChild(sheet, 'sheetData')
  if (!sheetData) throw new XlsxError(`${sheetPath} has no sheetData`)
  const rows: string[][] = []
  let nextRow = 0
  for (const row of childElements(sheetData, 'row')) {
    const rowIndex = row.attributes['r'] ? Number(row.attributes['r']) - 1 : nextRow
    nextRow = rowIndex + 1
    const cells: string[] = []
    let nextColumn = 0
    for (const cell of childElements(row, 'c')) {
      const reference = cell.attributes['r']
      const column = reference ? columnIndex(reference) : nextColumn
      nextColumn = column + 1
      while (cells.length < column) cells.push('')
      cells[column] = cellText(cell, sharedStrings, dateStyles)
    }
    while (rows.length < rowIndex) rows.push([])
    rows[rowIndex] = cells
  }
  while (rows.length > 0 && rows[rows.length - 1]!.every((text) => text === '')) rows.pop()
  return rows
}

function firstSheetPath(xml: (path: string) => XmlElement | undefined): string {
  const workbook = xml('xl/workbook.xml')
  if (!workbook) throw new XlsxError('xl/workbook.xml is missing; this is not an XLSX workbook')
  const sheets = firstChild(workbook, 'sheets')
  const first = sheets && firstChild(sheets, 'sheet')
  if (!first) throw new XlsxError('the workbook has no sheets')
  const relationId = first.attributes['id']
  const relations = xml('xl/_rels/workbook.xml.rels')
  const target = relations
    ? childElements(relations, 'Relationship').find((r) => r.attributes['Id'] === relationId)
        ?.attributes['Target']
    : undefined
  if (!target) return 'xl/worksheets/sheet1.xml'
  return target.startsWith('/') ? target.slice(1) : `xl/${target}`
}

function readSharedStrings(table: XmlElement | undefined): string[] {
  if (!table) return []
  // Rich text runs (<r><t>) are concatenated; phonetic hints (<rPh>) are not part of the text.
  return childElements(table, 'si').map((item) =>
    childElements(item)
      .filter((part) => part.name === 't' || part.name === 'r')
      .map(textContent)
      .join(''),
  )
}

/** Built-in number formats 14-22 and 45-47 are dates or times. */
const BUILT_IN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47])

/** The indexes of cell styles (the `s` attribute) whose number format shows a date. */
function readDateStyles(styles: XmlElement | undefined): Set<number> {
  const result = new Set<number>()
  if (!styles) return result
  const customDateFormats = new Set<number>()
  const numberFormats = firstChild(styles, 'numFmts')
  for (const format of numberFormats ? childElements(numberFormats, 'numFmt') : []) {
    // Quoted literals and [colour]/[locale] sections may contain letters that are not date codes.
    const code = (format.attributes['formatCode'] ?? '').replace(/"[^"]*"|\[[^\]]*\]/g, '')
    if (/[dmyhs]/i.test(code)) customDateFormats.add(Number(format.attributes['numFmtId']))
  }
  const cellFormats = firstChild(styles, 'cellXfs')
  for (const [index, format] of (cellFormats ? childElements(cellFormats, 'xf') : []).entries()) {
    const id = Number(format.attributes['numFmtId'] ?? 0)
    if (BUILT_IN_DATE_FORMATS.has(id) || customDateFormats.has(id)) result.add(index)
  }
  return result
}

function cellText(cell: XmlElement, sharedStrings: string[], dateStyles: Set<number>): string {
  const type = cell.attributes['t'] ?? 'n'
  if (type === 'inlineStr') {
    const inline = firstChild(cell, 'is')
    return inline ? textContent(inline) : ''
  }
  const valueElement = firstChild(cell, 'v')
  const value = valueElement ? textContent(valueElement) : ''
  if (value === '') return ''
  switch (type) {
    case 's': {
      const text = sharedStrings[Number(value)]
      if (text === undefined) {
        throw new XlsxError(`cell ${cell.attributes['r'] ?? '?'} refers to a missing shared string`)
      }
      return text
    }
    case 'b':
      return value === '1' ? 'TRUE' : 'FALSE'
    case 'n':
      return dateStyles.has(Number(cell.attributes['s'] ?? -1)) ? serialToIsoDate(value) : value
    default:
      // str (formula text), e (error such as #DIV/0!) and d (ISO date) are already text.
      return value
  }
}

/** Excel's 1900 date system: serial 25569 is 1970-01-01 (the 1900 leap-year bug included). */
function serialToIsoDate(serial: string): string {
  const days = Number(serial)
  if (!Number.isFinite(days)) return serial
  const iso = new Date(Math.round((days - 25569) * 86_400_000)).toISOString()
  return Number.isInteger(days) ? iso.slice(0, 10) : iso.slice(0, 19)
}

function columnIndex(reference: string): number {
  const letters = /^[A-Z]+/.exec(reference.toUpperCase())?.[0]
  if (!letters) throw new XlsxError(`cell reference ${reference} has no column letters`)
  let index = 0
  for (const letter of letters) index = index * 26 + (letter.charCodeAt(0) - 64)
  return index - 1
}
