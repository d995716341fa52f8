/**
 * SD files: records separated by `$$$$`, each a molblock (V2000 is checked line by line, V3000 is
 * passed through) followed by data items `> <NAME>` whose value runs to the next blank line.
 */

export class SdfError extends Error {
  readonly recordNumber: number

  constructor(recordNumber: number, message: string) {
    super(`SDF record ${recordNumber}: ${message}`)
    this.name = 'SdfError'
    this.recordNumber = recordNumber
  }
}

export interface SdfRecord {
  /** 1-based position of the record in the file. */
  recordNumber: number
  /** The first header line of the molblock (the molecule name by convention). */
  title: string
  molblock: string
  atomCount: number
  properties: Record<string, string>
}

export type SdfEntry =
  { recordNumber: number; record: SdfRecord } | { recordNumber: number; error: SdfError }

/** Reads every record; one broken record does not stop the others from being read. */
export function readSdfEntries(text: string): SdfEntry[] {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text
  const lines = source.split(/\r\n|\r|\n/)
  const chunks: string[][] = []
  let current: string[] = []
  for (const line of lines) {
    if (line.trimEnd() === '$$$$') {
      chunks.push(current)
      current = []
    } else {
      current.push(line)
    }
  }
  if (current.some((line) => line.trim() !== '')) chunks.push(current)

  return chunks.map((chunk, index) => {
    const recordNumber = index + 1
    try {
      return { recordNumber, record: parseRecord(chunk, recordNumber) }
    } catch (error) {
      if (error instanceof SdfError) return { recordNumber, error }
      throw error
    }
  })
}

/** Reads every record and throws the first record's error, if any. */
export function parseSdf(text: string): SdfRecord[] {
  return readSdfEntries(text).map((entry) => {
    if ('error' in entry) throw entry.error
    return entry.record
  })
}

function parseRecord(lines: string[], recordNumber: number): SdfRecord {
  const fail = (message: string): never => {
    throw new SdfError(recordNumber, message)
  }
  // Some writers leave a blank line between `$$$$` and the next header.
  while (lines.length > 4 && lines[0]!.trim() === '' && !isCountsLine(lines[3] ?? '')) {
    lines = lines.slice(1)
  }
  const endIndex = lines.findIndex((line) => line.startsWith('M  END'))
  if (endIndex < 0) fail('the molblock has no "M  END" line')
  if (endIndex < 3) fail('the molblock is shorter than its three header lines and counts line')
  const countsLine = lines[3]!
  const atomCount = countsLine.includes('V3000')
    ? readV3000AtomCount(lines.slice(4, endIndex), fail)
    : checkV2000(lines, endIndex, fail)
  return {
    recordNumber,
    title: lines[0]!.trim(),
    molblock: lines.slice(0, endIndex + 1).join('\n') + '\n',
    atomCount,
    properties: readProperties(lines.slice(endIndex + 1), fail),
  }
}

function isCountsLine(line: string): boolean {
  return /V[23]000\s*$/.test(line)
}

function checkV2000(lines: string[], endIndex: number, fail: (message: string) => never): number {
  const countsLine = lines[3]!
  if (!countsLine.includes('V2000')) {
    fail(`line 4 is not a V2000 or V3000 counts line: ${JSON.stringify(countsLine)}`)
  }
  const atomCount = Number(countsLine.slice(0, 3))
  const bondCount = Number(countsLine.slice(3, 6))
  if (!Number.isInteger(atomCount) || !Number.isInteger(bondCount) || countsLine.length < 6) {
    fail(`the counts line does not start with atom and bond counts: ${JSON.stringify(countsLine)}`)
  }
  const blockLines = endIndex - 4
  if (blockLines < atomCount + bondCount) {
    fail(
      `the counts line announces ${atomCount} atoms and ${bondCount} bonds ` +
        `but the molblock has only ${blockLines} lines before "M  END"`,
    )
  }
  for (let atom = 0; atom < atomCount; atom += 1) {
    const line = lines[4 + atom]!
    const coordinates = [line.slice(0, 10), line.slice(10, 20), line.slice(20, 30)].map(Number)
    const symbol = line.slice(31, 34).trim()
    if (coordinates.some((value) => Number.isNaN(value)) || !/^[A-Z][a-z]?$|^[*LRQ]/.test(symbol)) {
      fail(`atom ${atom + 1} line is not a V2000 atom line: ${JSON.stringify(line)}`)
    }
  }
  for (let bond = 0; bond < bondCount; bond += 1) {
    const line = lines[4 + atomCount + bond]!
    const first = Number(line.slice(0, 3))
    const second = Number(line.slice(3, 6))
    const valid = (end: number): boolean => Number.isInteger(end) && end >= 1 && end <= atomCount
    if (!valid(first) || !valid(second)) {
      fail(`bond ${bond + 1} refers to an atom that does not exist: ${JSON.stringify(line)}`)
    }
  }
  return atomCount
}

function readV3000AtomCount(ctab: string[], fail: (message: string) => never): number {
  const counts = ctab.find((line) => line.startsWith('M  V30 COUNTS'))
  const atomCount = Number(counts?.split(/\s+/)[3])
  if (!Number.isInteger(atomCount)) fail('the V3000 molblock has no "M  V30 COUNTS" line')
  return atomCount
}

function readProperties(lines: string[], fail: (message: string) => never): Record<string, string> {
  const properties: Record<string, string> = {}
  let index = 0
  while (index < lines.length) {
    const line = lines[index]!
    if (line.trim() === '') {
      index += 1
      continue
    }
    if (!line.startsWith('>')) {
      fail(
        `expected a data item header "> <NAME>" after the molblock, found ${JSON.stringify(line)}`,
      )
    }
    const name = /<([^>]*)>/.exec(line)?.[1]?.trim()
    if (!name) fail(`the data item header ${JSON.stringify(line)} has no <NAME>`)
    const value: string[] = []
    index += 1
    while (index < lines.length && lines[index]!.trim() !== '') {
      value.push(lines[index]!)
      index += 1
    }
    properties[name!] = value.join('\n')
  }
  return properties
}
