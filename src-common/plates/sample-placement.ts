/**
 * Where a new inventory sample goes: a location, and on a location with rows and columns (a box)
 * a free position of its grid. Checked the same way by the window and the CLI, against what the
 * cache and the outbox know to fill the location; the vault has the last word when it is sent.
 */
import { gridLabel, readPositionOn } from './grid-positions.ts'

/**
 * The units a new sample's amount is given in, as `sample.create` accepts them (its payload's
 * schema; a test holds the two equal). Here without zod, so that the window's form need not load
 * it.
 */
export const sampleUnits = [
  'g',
  'mg',
  'µg',
  'kg',
  'L',
  'mL',
  'µL',
  'M',
  'mM',
  'µM',
  'nM',
  'count',
] as const
export type SampleUnit = (typeof sampleUnits)[number]

/** An inventory location as a new sample's place: its grid, if any, and what fills it. */
export interface LocationPlaces {
  id: number
  name: string
  /** Rows and columns of a box; null for a place without positions (a shelf). */
  grid: { rows: number; columns: number } | null
  /** How many samples it holds at most; null when the vault sets no limit. */
  positionLimit: number | null
  /** Samples placed there: cached, and waiting in the outbox. */
  samples: number
  /** Positions (`A01`) taken by cached samples and by samples waiting in the outbox. */
  taken: string[]
}

/** A custom field of inventory samples, from a cached definition or seen on cached samples. */
export interface SampleFieldDefinition {
  name: string
  /** `Text`, `Number`, `Pick List`...; `Text` for a field only seen on samples. */
  dataType: string
  /** The choices of a pick list, when the cache has them. */
  choices: string[]
  source: 'definition' | 'samples'
}

export type PlacementCheck =
  | { ok: true; position: string | null }
  | { ok: false; field: 'location' | 'position'; message: string }

/** The position, as the vault labels it, or why the sample cannot go there. */
export function checkPlacement(places: LocationPlaces, position: string | null): PlacementCheck {
  if (places.positionLimit !== null && places.samples >= places.positionLimit) {
    return {
      ok: false,
      field: 'location',
      message: `${places.name} is full: it holds ${places.samples} of at most ${places.positionLimit} samples.`,
    }
  }
  const given = position?.trim() ?? ''
  if (given === '') return { ok: true, position: null }
  if (!places.grid) {
    return {
      ok: false,
      field: 'position',
      message: `${places.name} has no rows and columns, so a sample there has no position.`,
    }
  }
  const reading = readPositionOn(given, places.grid, places.name)
  if (!reading.ok) return { ok: false, field: 'position', message: reading.message }
  if (places.taken.includes(reading.label)) {
    return {
      ok: false,
      field: 'position',
      message: `${reading.label} of ${places.name} already holds a sample.${freeHint(places)}`,
    }
  }
  return { ok: true, position: reading.label }
}

/** Every free position of a grid location, row by row. */
export function freePositions(places: LocationPlaces): string[] {
  if (!places.grid) return []
  const taken = new Set(places.taken)
  const free: string[] = []
  for (let row = 1; row <= places.grid.rows; row++) {
    for (let column = 1; column <= places.grid.columns; column++) {
      const label = gridLabel({ row, column })
      if (!taken.has(label)) free.push(label)
    }
  }
  return free
}

function freeHint(places: LocationPlaces): string {
  const free = freePositions(places)
  if (free.length === 0) return ' No position is free.'
  return ` Free: ${free.slice(0, 5).join(', ')}${free.length > 5 ? ` and ${free.length - 5} more` : ''}.`
}

/** A value a sample field could not take, named for the person. */
export interface SampleFieldProblem {
  name: string
  message: string
}

export type SampleFieldCheck =
  | { ok: true; fields: Record<string, string | number> }
  | { ok: false; problems: SampleFieldProblem[] }

const isoDate = /^(\d{4})-(\d{2})-(\d{2})$/

/**
 * A new sample's custom fields as the vault takes them, from what the person typed: numbers for
 * Number fields, YYYY-MM-DD for Date fields, a listed value for a Pick List the cache knows, text
 * otherwise; an empty value is left out. A name the vault's definitions do not have is refused;
 * where the cache knows the fields only from its samples, any name goes, as text.
 */
export function checkSampleFields(
  known: readonly SampleFieldDefinition[],
  given: Readonly<Record<string, string>>,
): SampleFieldCheck {
  const defined = known.some((field) => field.source === 'definition')
  const fields: Record<string, string | number> = {}
  const problems: SampleFieldProblem[] = []
  for (const [name, typed] of Object.entries(given)) {
    const text = typed.trim()
    if (text === '') continue
    const field = known.find((candidate) => candidate.name === name)
    if (!field && defined) {
      const names = known.map((candidate) => candidate.name).join(', ')
      problems.push({
        name,
        message: `${name} is not a sample field of this vault (known: ${names}).`,
      })
      continue
    }
    const read = readFieldValue(name, field?.dataType ?? 'Text', field?.choices ?? [], text)
    if (typeof read === 'object') problems.push(read)
    else fields[name] = read
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, fields }
}

function readFieldValue(
  name: string,
  dataType: string,
  choices: readonly string[],
  text: string,
): string | number | SampleFieldProblem {
  if (dataType === 'Number') {
    const number = Number(text.replace(/^([+-]?\d*),(\d+)$/, '$1.$2'))
    return Number.isFinite(number)
      ? number
      : { name, message: `${name} takes a number, not ${JSON.stringify(text)}.` }
  }
  if (dataType === 'Date') {
    const parts = isoDate.exec(text)
    const date = parts ? new Date(Date.UTC(+parts[1]!, +parts[2]! - 1, +parts[3]!)) : null
    return date && date.toISOString().startsWith(text)
      ? text
      : { name, message: `${name} takes a date as YYYY-MM-DD, not ${JSON.stringify(text)}.` }
  }
  if (choices.length > 0) {
    // A pick list value typed in another case is the listed one.
    const listed = choices.find((choice) => choice.toLowerCase() === text.toLowerCase())
    return (
      listed ?? {
        name,
        message: `${name} takes one of ${choices.join(', ')}; not ${JSON.stringify(text)}.`,
      }
    )
  }
  return text
}
