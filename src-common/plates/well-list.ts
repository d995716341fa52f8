/**
 * A list of a new plate's wells, as a person pastes or drops it: CSV (or tab, semicolon or pipe
 * separated) text with a column of well positions and a column of batches, each batch named by its
 * id, its name or its molecule_batch_identifier. Read here, the same way for the window and the CLI,
 * in two steps: `readWellList` reads the text against the plate's size (positions that are not
 * wells of it, wells given twice, lines without a batch); `planWells` lays the batches main found
 * for the references (`BatchResolution`) over the lines, so that unknown and ambiguous ones are
 * reported on their line too. Nothing is to be queued while `problems` is not empty.
 */
import Papa from 'papaparse'
import { plateFormats, type PlateSize } from '../plates.ts'
import { gridLabel, readPositionOn, type GridPosition } from './grid-positions.ts'

/** Past this, a paste is not a well list (the largest plate has 1,536 wells). */
export const wellListLimits = { characters: 2_000_000, lines: 10_000 }

/** Header names (lower case, letters and digits only) of the column of well positions. */
const wellHeaders = new Set([
  'well',
  'wells',
  'pos',
  'position',
  'wellposition',
  'wellpos',
  'welllabel',
  'wellid',
  'destinationwell',
  'destwell',
])

/** Header names of the column of batches. */
const batchHeaders = new Set([
  'batch',
  'batchid',
  'batchname',
  'batchidentifier',
  'moleculebatchidentifier',
  'identifier',
])

export interface WellListLine {
  /** The line of the text it was read from (1-based, the header included). */
  line: number
  position: GridPosition
  /** `A01`, as the vault labels the well. */
  label: string
  /** The batch as given: an id, a name or an identifier. */
  reference: string
}

export interface WellListProblem {
  /** The line of the text, or null for the whole list. */
  line: number | null
  /** What was given there, when there is something to show. */
  value: string | null
  message: string
}

export interface WellListReading {
  /** The separator found: `,`, tab, `;` or `|`; null when there was nothing to read. */
  delimiter: string | null
  /** The headers of the two columns read, or null when the text has no header line. */
  headers: { well: string; batch: string } | null
  lines: WellListLine[]
  problems: WellListProblem[]
}

function headerKey(cell: string): string {
  return cell.toLowerCase().replace(/[^a-z0-9]/g, '')
}

function shown(value: string): string {
  const trimmed = value.trim()
  return trimmed.length > 40 ? `${trimmed.slice(0, 39)}…` : trimmed
}

interface RawRow {
  line: number
  cells: string[]
}

/**
 * Every row of the text with the line it starts on (a quoted cell may span lines), and the parse
 * problems papaparse met, on their lines.
 */
function rowsOf(text: string): { rows: RawRow[]; delimiter: string; problems: WellListProblem[] } {
  const rows: RawRow[] = []
  const problems: WellListProblem[] = []
  let line = 1
  let counted = 0
  // Guessed on the first lines without the blank ones, which would read as one-cell rows.
  let delimiter = Papa.parse<string[]>(text, {
    delimitersToGuess: [',', '\t', ';', '|'],
    skipEmptyLines: 'greedy',
    preview: 50,
  }).meta.delimiter
  Papa.parse<string[]>(text, {
    delimiter,
    skipEmptyLines: false,
    step: (step) => {
      const start = counted
      counted = step.meta.cursor
      delimiter = step.meta.delimiter
      const rowLine = line
      for (let index = start; index < counted; index++) if (text.charCodeAt(index) === 10) line++
      // The cursor stops before the row's line break, which is counted with the next row.
      const quoting = step.errors.filter((error) => error.type === 'Quotes')
      if (quoting.length > 0) {
        const message =
          quoting[0]!.code === 'MissingQuotes'
            ? 'A quoted cell is never closed: its closing " is missing.'
            : 'A quoted cell has more text after its closing ".'
        problems.push({ line: rowLine, value: null, message })
        return
      }
      const cells = step.data.map((cell) => cell.trim())
      if (cells.some((cell) => cell !== '')) rows.push({ line: rowLine, cells })
    },
  })
  return { rows, delimiter, problems }
}

/**
 * Reads a well list for a plate of `size` wells. The first line is a header when it names the
 * columns (`well`, `pos` or `position`; `batch`, `batch_id`, `batch name`, `identifier` or
 * `molecule_batch_identifier`, in any case and spacing); a list whose first cell is already a well
 * has no header and gives the well first, then the batch. Other columns are ignored.
 */
export function readWellList(text: string, size: PlateSize): WellListReading {
  const grid = plateFormats[size]
  const empty = (message: string): WellListReading => ({
    delimiter: null,
    headers: null,
    lines: [],
    problems: [{ line: null, value: null, message }],
  })
  if (text.length > wellListLimits.characters) {
    return empty(
      `The well list has ${text.length.toLocaleString('en')} characters; a plate's list has at most ${wellListLimits.characters.toLocaleString('en')}.`,
    )
  }
  const unmarked = text.startsWith('\uFEFF') ? text.slice(1) : text
  if (unmarked.trim() === '') return empty('The well list is empty.')
  const { rows, delimiter, problems } = rowsOf(unmarked)
  if (rows.length > wellListLimits.lines) {
    return empty(
      `The well list has ${rows.length.toLocaleString('en')} lines; a ${size}-well plate needs at most ${size}.`,
    )
  }
  const first = rows[0]!
  let wellColumn = 0
  let batchColumn = 1
  let headers: WellListReading['headers'] = null
  let dataRows = rows
  const firstIsWell = first.cells[0] !== undefined && /^[A-Za-z]{1,2}\s*\d+$/.test(first.cells[0])
  if (!firstIsWell) {
    const keys = first.cells.map(headerKey)
    wellColumn = keys.findIndex((key) => wellHeaders.has(key))
    batchColumn = keys.findIndex((key) => batchHeaders.has(key))
    if (wellColumn < 0 || batchColumn < 0) {
      const lacking = [
        wellColumn < 0 ? 'column of well positions (well, pos or position)' : null,
        batchColumn < 0
          ? 'column of batches (batch, batch_id, batch name or molecule_batch_identifier)'
          : null,
      ].filter(Boolean)
      return {
        delimiter,
        headers: null,
        lines: [],
        problems: [
          {
            line: first.line,
            value: shown(first.cells.join(delimiter)),
            message: `The header line names no ${lacking.join(' and no ')}. It has: ${first.cells.map((cell) => cell || '(blank)').join(', ')}.`,
          },
        ],
      }
    }
    headers = { well: first.cells[wellColumn]!, batch: first.cells[batchColumn]! }
    dataRows = rows.slice(1)
  }
  if (dataRows.length === 0)
    problems.push({ line: null, value: null, message: 'No wells are listed.' })

  const lines: WellListLine[] = []
  const taken = new Map<string, number>()
  for (const row of dataRows) {
    const wellText = row.cells[wellColumn] ?? ''
    const reference = row.cells[batchColumn] ?? ''
    if (wellText === '') {
      problems.push({ line: row.line, value: null, message: 'No well position is given.' })
      continue
    }
    const reading = readPositionOn(wellText, grid, `a ${size}-well plate`)
    if (!reading.ok) {
      problems.push({ line: row.line, value: shown(wellText), message: reading.message })
      continue
    }
    const earlier = taken.get(reading.label)
    if (earlier !== undefined) {
      problems.push({
        line: row.line,
        value: reading.label,
        message: `Well ${reading.label} is given twice: also on line ${earlier}.`,
      })
      continue
    }
    taken.set(reading.label, row.line)
    if (reference === '') {
      problems.push({
        line: row.line,
        value: reading.label,
        message: `Well ${reading.label} names no batch.`,
      })
      continue
    }
    lines.push({ line: row.line, position: reading.position, label: reading.label, reference })
  }
  problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0))
  return { delimiter, headers, lines, problems }
}

/** A cached batch a reference was found to name. */
export interface BatchMatch {
  batchId: number
  /** How a person knows it: its identifier, else its name, else `Batch 12`. */
  label: string
  /** What the reference matched: `id`, `name` or `identifier`. */
  by: 'id' | 'name' | 'identifier'
}

/** What main found in the cache for one reference. */
export interface BatchResolution {
  reference: string
  /** The distinct batches it names (at most a few are listed): one is found, more ambiguous. */
  matches: BatchMatch[]
  /** How many distinct batches it names in all: 0 is unknown, 1 found, more ambiguous. */
  count: number
}

export interface PlannedWell {
  line: number
  label: string
  position: GridPosition
  batchId: number
  batchLabel: string
}

export interface WellPlan {
  /** As `NewPlate.wells` takes them, ready to queue when `problems` is empty. */
  wells: { pos: string; batch: number }[]
  placed: PlannedWell[]
  problems: WellListProblem[]
}

/** Every distinct batch reference of a reading, to ask main about. */
export function referencesOf(reading: WellListReading): string[] {
  return [...new Set(reading.lines.map((line) => line.reference))]
}

/** The reading's wells with their batches, and every problem of the list, line by line. */
export function planWells(
  reading: WellListReading,
  resolutions: readonly BatchResolution[],
): WellPlan {
  const byReference = new Map(resolutions.map((resolution) => [resolution.reference, resolution]))
  const problems = [...reading.problems]
  const placed: PlannedWell[] = []
  for (const line of reading.lines) {
    const resolution = byReference.get(line.reference)
    const matches = resolution?.matches ?? []
    const count = resolution?.count ?? 0
    if (count === 1 && matches.length === 1) {
      const [match] = matches
      placed.push({
        line: line.line,
        label: line.label,
        position: line.position,
        batchId: match!.batchId,
        batchLabel: match!.label,
      })
      continue
    }
    problems.push({
      line: line.line,
      value: shown(line.reference),
      message:
        count === 0
          ? `No cached batch has the id, name or identifier ${JSON.stringify(line.reference)}.`
          : `${JSON.stringify(line.reference)} names ${count} batches: ${describeMatches(matches, count)}. Give the batch id or identifier instead.`,
    })
  }
  problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0))
  return {
    wells: placed.map((well) => ({ pos: gridLabel(well.position), batch: well.batchId })),
    placed,
    problems,
  }
}

/** The first few batches an ambiguous reference names, as `VD-1-001 (id 1, by name)…`. */
export function describeMatches(matches: readonly BatchMatch[], count: number): string {
  const shownMatches = matches.slice(0, 5)
  const listed = shownMatches.map((match) => `${match.label} (id ${match.batchId}, by ${match.by})`)
  return `${listed.join(', ')}${count > shownMatches.length ? ` and ${count - shownMatches.length} more` : ''}`
}

/** A problem as one line of text: `line 4: …`. */
export function describeWellProblem(problem: WellListProblem): string {
  return problem.line === null ? problem.message : `line ${problem.line}: ${problem.message}`
}
