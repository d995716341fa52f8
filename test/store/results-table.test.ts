/**
 * Results tables and plot points (store/readout-queries.ts) on a real, indexed cache, every page
 * checked against a plain JavaScript computation over the same rows: the aggregates, names and
 * batches read back with bare SQL, filtered, sorted and cut by the documented rules written out
 * here, not by the code under test. The table is asked through each of its query shapes (by
 * name through the name index, by a readout's cells and then the empty and missing ones, filtered,
 * scoped, per batch) at page boundaries that cross from one part of the order into the next.
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Comparison } from '../../src-common/analysis/readouts/comparisons.ts'
import type {
  ResultsCell,
  ResultsColumn,
  ResultsLevel,
  ResultsRow,
} from '../../src-common/analysis/readouts/results-table.ts'
import type { ResultsTableOptions } from '../../src-main/store/readout-queries.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { moleculeRecords } from './fixtures/molecule-records.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const vault = 1
const kinase = {
  id: 17,
  name: 'Kinase IC50 (ADP-Glo)',
  readout_definitions: [
    { id: 101, name: 'IC50', data_type: 'Number', unit_label: 'uM', aggregation: 'Geometric Mean' },
    { id: 102, name: '% Inhibition', data_type: 'Number', unit_label: '%', aggregation: 'Mean' },
    { id: 103, name: 'Comment', data_type: 'Text' },
  ],
}
const gpcr = {
  id: 18,
  name: 'GPCR Radioligand Displacement',
  readout_definitions: [
    { id: 201, name: 'Ki', data_type: 'Number', unit_label: 'nM', aggregation: 'Geometric Mean' },
  ],
}
const solubility = {
  id: 19,
  name: 'Kinetic Solubility (PBS pH 7.4)',
  readout_definitions: [
    { id: 301, name: 'Solubility', data_type: 'Number', unit_label: 'uM', aggregation: 'Mean' },
  ],
}
/**
 * Molecules 1-600 are cached; the kinase and solubility protocols also tested 9001-9600, which
 * are not. The solubility protocol tested five named molecules and one unnamed among them.
 */
const cachedMolecules = 600
const uncached = Array.from({ length: 600 }, (_, index) => 9001 + index)

const ic50: ResultsColumn = { protocolId: kinase.id, definitionId: 101 }
const inhibition: ResultsColumn = { protocolId: kinase.id, definitionId: 102 }
const ki: ResultsColumn = { protocolId: gpcr.id, definitionId: 201 }
const soluble: ResultsColumn = { protocolId: solubility.id, definitionId: 301 }
const solubilityMolecules = [1, 2, 3, 4, 5, 37, ...uncached]

function random(seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state / 2147483648
  }
}

/**
 * Readout cells of every kind a column can hold once aggregated: numbers (ties at 30 with `<`,
 * `>` and `~` beside the plain value), text (`ND`), a cell with only a note (empty), and no cell.
 */
function ic50Cell(draw: number, next: () => number): Record<string, unknown> | undefined {
  if (draw < 0.08) return { value: 30, modifier: '>' }
  if (draw < 0.12) return { value: 30 }
  if (draw < 0.15) return { value: 30, modifier: '<' }
  if (draw < 0.18) return { value: 0.5, modifier: '~' }
  if (draw < 0.24) return { value: 'ND' }
  if (draw < 0.3) return { note: 'precipitated' }
  if (draw < 0.36) return undefined
  return { value: Number((10 ** (-2 + 4 * next())).toPrecision(3)) }
}

function readoutRows(): Record<string, unknown>[] {
  const next = random(27)
  const rows: Record<string, unknown>[] = []
  const push = (
    protocol: number,
    molecule: number | null,
    batch: number | null,
    readouts: Record<string, unknown>,
  ) =>
    rows.push({
      id: rows.length + 1,
      class: 'readout row',
      type: 'detail row',
      protocol,
      run: { id: protocol * 100 + (rows.length % 7), run_date: '2026-03-01' },
      batch,
      molecule,
      readouts,
      ...(molecule === null ? { control_state: '+', well: 'A11' } : {}),
    })
  const kinaseMolecules = [
    ...Array.from({ length: 560 }, (_, index) => index + 1).filter((id) => id % 5 !== 4),
    ...uncached,
  ]
  for (const molecule of kinaseMolecules) {
    const batches = 1 + (molecule % 3)
    const batch = molecule * 10 + (molecule % batches)
    // One category per batch, so that every kind survives aggregation somewhere.
    const draw = next()
    for (let replicate = 0; replicate < 1 + (molecule % 2); replicate++) {
      const readouts: Record<string, unknown> = {}
      const cell = ic50Cell(draw, next)
      if (cell) readouts['101'] = cell
      readouts['102'] = next() < 0.05 ? { value: 'ND' } : { value: Math.round(next() * 1000) / 10 }
      push(kinase.id, molecule, batch, readouts)
    }
  }
  push(kinase.id, null, null, { '102': { value: 100 } })
  // The GPCR protocol: some molecules the kinase protocol never tested, and a few it did.
  for (let molecule = 3; molecule <= cachedMolecules; molecule += 3) {
    push(gpcr.id, molecule, molecule * 10, {
      '201': { value: Number((10 ** (3 * next())).toPrecision(3)) },
    })
  }
  for (const molecule of solubilityMolecules) {
    push(solubility.id, molecule, molecule * 10, { '301': { value: Math.round(next() * 200) } })
  }
  return rows
}

interface AggregateRow {
  level: ResultsLevel
  subject_id: number
  protocol_id: number
  definition_id: number
  kind: ResultsCell['kind']
  number: number | null
  modifier: string | null
  text: string | null
  n: number
  source: ResultsCell['source']
}

/** The table's rules, written out: what the code under test must answer. */
class Expected {
  readonly #aggregates: AggregateRow[]
  readonly #names: Map<string, string | null>
  readonly #moleculeOfBatch: Map<number, number | null>

  readonly #byKey: Map<string, AggregateRow>

  constructor(db: Database.Database) {
    this.#aggregates = db.prepare('SELECT * FROM readout_aggregates').all() as AggregateRow[]
    this.#byKey = new Map(
      this.#aggregates.map((row) => [
        `${row.level}:${row.subject_id}:${row.protocol_id}:${row.definition_id}`,
        row,
      ]),
    )
    this.#names = new Map()
    for (const { id, name } of db.prepare('SELECT id, name FROM molecules').all() as {
      id: number
      name: string | null
    }[]) {
      this.#names.set(`molecule:${id}`, name)
    }
    this.#moleculeOfBatch = new Map()
    for (const batch of db
      .prepare('SELECT id, molecule_id, identifier, name FROM batches')
      .all() as {
      id: number
      molecule_id: number | null
      identifier: string | null
      name: string | null
    }[]) {
      this.#names.set(`batch:${batch.id}`, batch.identifier ?? batch.name)
      this.#moleculeOfBatch.set(batch.id, batch.molecule_id)
    }
  }

  aggregates(): readonly AggregateRow[] {
    return this.#aggregates
  }

  cell(level: ResultsLevel, subject: number, column: ResultsColumn): AggregateRow | undefined {
    return this.#byKey.get(`${level}:${subject}:${column.protocolId}:${column.definitionId}`)
  }

  table(options: ResultsTableOptions): { total: number; rows: ResultsRow[] } {
    const { level, columns } = options
    const protocols = new Set(columns.map((column) => column.protocolId))
    const subjects = [
      ...new Set(
        this.#aggregates
          .filter((row) => row.level === level && protocols.has(row.protocol_id))
          .map((row) => row.subject_id),
      ),
    ]
    const cellOf = (subject: number, column: ResultsColumn) => this.cell(level, subject, column)
    const rowOf = (subject: number): ResultsRow => ({
      subjectId: subject,
      moleculeId: level === 'molecule' ? subject : (this.#moleculeOfBatch.get(subject) ?? null),
      name: this.#names.get(`${level}:${subject}`) ?? null,
      cells: columns.map((column) => {
        const cell = cellOf(subject, column)
        if (!cell) return null
        const { kind, number, modifier, text, n, source } = cell
        return { kind, number, modifier, text, n, source }
      }),
    })
    const scope = options.moleculeIds === undefined ? null : new Set(options.moleculeIds)
    const rows = subjects
      .map(rowOf)
      .filter((row) => scope === null || (row.moleculeId !== null && scope.has(row.moleculeId)))
      .filter((row) =>
        (options.filters ?? []).every((filter) =>
          inRange(row.cells[filter.column] ?? null, filter.comparison),
        ),
      )
    const direction = options.sort?.direction === 'desc' ? -1 : 1
    const column = options.sort?.column ?? 'name'
    rows.sort((a, b) => {
      let order: number
      if (column === 'name') {
        order =
          Number(a.name === null) - Number(b.name === null) ||
          direction * nullsFirst(nocase(a.name), nocase(b.name))
      } else {
        const x = a.cells[column] ?? null
        const y = b.cells[column] ?? null
        order =
          kindRank(x) - kindRank(y) ||
          direction * nullsFirst(x?.number ?? null, y?.number ?? null) ||
          direction * (modifierRank(x) - modifierRank(y)) ||
          direction * nullsFirst(nocase(x?.text ?? null), nocase(y?.text ?? null))
      }
      return order || a.subjectId - b.subjectId
    })
    const offset = options.offset ?? 0
    return { total: rows.length, rows: rows.slice(offset, offset + (options.limit ?? 100)) }
  }
}

/** Values, then text, then nothing (an empty cell or none, shown alike), in both directions. */
function kindRank(cell: ResultsCell | null): number {
  if (cell === null) return 2
  return { number: 0, date: 0, boolean: 0, text: 1, empty: 2 }[cell.kind]
}

/** At one number: `<`, `<=`, the plain value (and `~`), `>=`, `>`. */
function modifierRank(cell: ResultsCell | null): number {
  return { '<': 0, '<=': 1, '>=': 3, '>': 4 }[cell?.modifier ?? ''] ?? 2
}

/** SQLite's order of two values: NULL first, then by value. */
function nullsFirst<T extends number | string>(a: T | null, b: T | null): number {
  if (a === null || b === null) return Number(b === null) - Number(a === null)
  return a < b ? -1 : a > b ? 1 : 0
}

/** SQLite's NOCASE: ASCII letters folded, then compared code unit by code unit. */
function nocase(text: string | null): string | null {
  return text === null ? null : text.replace(/[A-Z]/g, (letter) => letter.toLowerCase())
}

/**
 * A range filter: a plain (or `~`) number inside it, or a qualified one whose whole interval is
 * inside (`<b` and `<=b` only without a lower bound, `>b` and `>=b` only without an upper one).
 */
function inRange(cell: ResultsCell | null, comparison: Comparison): boolean {
  if (comparison.kind !== 'range') throw new Error('Only range filters are written out here.')
  if (cell === null || cell.kind !== comparison.scale || cell.number === null) return false
  const { lower, upper } = comparison
  const value = cell.number
  const above = (bound: typeof lower) =>
    bound === null || (bound.inclusive ? value >= bound.value : value > bound.value)
  const below = (bound: typeof upper) =>
    bound === null || (bound.inclusive ? value <= bound.value : value < bound.value)
  switch (cell.modifier) {
    case null:
    case '~':
      return above(lower) && below(upper)
    case '<':
      return lower === null && upper !== null && value <= upper.value
    case '<=':
      return lower === null && below(upper)
    case '>':
      return upper === null && lower !== null && value >= lower.value
    case '>=':
      return upper === null && above(lower)
    default:
      return false
  }
}

const range = (lower: number | null, upper: number | null, inclusive = true): Comparison => ({
  kind: 'range',
  scale: 'number',
  lower: lower === null ? null : { value: lower, inclusive },
  upper: upper === null ? null : { value: upper, inclusive },
})

describe('results tables and plot points, against the rules computed over the same rows', () => {
  const temporaryDirectory = useTemporaryDirectory()
  let cache: VaultCache
  let reader: Database.Database
  let expected: Expected

  beforeAll(() => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    cache = VaultCache.open(file).cache
    const molecules = moleculeRecords(cachedMolecules).map((record, index) => {
      const id = index + 1
      // Names as people give them: some missing, some lower or upper case, some shared.
      if (id % 37 === 0) return { ...record, name: null }
      if (id % 50 === 0) return { ...record, name: 'Shared name' }
      if (id % 11 === 0) return { ...record, name: String(record.name).toLowerCase() }
      if (id % 13 === 0) return { ...record, name: String(record.name).toUpperCase() }
      return record
    })
    cache.applyPage('molecules', vault, molecules)
    cache.applyPage('protocols', vault, [kinase, gpcr, solubility])
    cache.applyPage('readout_rows', vault, readoutRows())
    cache.readoutIndex().complete()
    reader = new Database(file, { readonly: true })
    expected = new Expected(reader)
  })
  afterAll(async () => {
    reader?.close()
    await cache?.close()
  })

  /** Every page of `size` rows the table has, asked as the window asks them, against the rules. */
  const expectPages = (options: ResultsTableOptions, size: number, offsets?: number[]) => {
    const whole = expected.table({ ...options, limit: 100_000, offset: 0 })
    const starts =
      offsets ?? Array.from({ length: Math.ceil(whole.total / size) + 1 }, (_, page) => page * size)
    for (const offset of starts) {
      const question = { ...options, limit: size, offset }
      const answer = cache.results().table(vault, question)
      expect(answer, JSON.stringify(question)).toEqual({
        total: whole.total,
        rows: whole.rows.slice(offset, offset + size),
      })
    }
    return whole
  }

  it('holds every kind of cell the rules order, so that no rule goes untested', () => {
    const kinds = new Set(
      expected
        .aggregates()
        .filter((row) => row.level === 'molecule' && row.definition_id === 101)
        .map((row) => `${row.kind}:${row.modifier ?? ''}`),
    )
    expect([...kinds].sort()).toEqual([
      'empty:',
      'number:',
      'number:<',
      'number:>',
      'number:~',
      'text:',
    ])
    const table = expected.table({ level: 'molecule', columns: [ic50, ki], limit: 100_000 })
    // Molecules of the GPCR protocol alone have no IC50; unnamed and uncached ones have no name.
    expect(table.rows.some((row) => row.cells[0] === null)).toBe(true)
    expect(table.rows.filter((row) => row.name === null).length).toBeGreaterThan(600)
    expect(table.rows.filter((row) => row.name === 'Shared name').length).toBeGreaterThan(3)
  })

  it('sorts by name both ways, names first, through every page', () => {
    for (const direction of ['asc', 'desc'] as const) {
      const options: ResultsTableOptions = {
        level: 'molecule',
        columns: [ic50, inhibition, ki],
        sort: { column: 'name', direction },
      }
      // Small pages near the start (read through the name index), then every page.
      expectPages(options, 7, [0, 7, 14, 21])
      const whole = expectPages(options, 97)
      // Kinase: 448 cached molecules (1-560 but every fifth) and 600 uncached; GPCR alone: the
      // 37 multiples of 3 up to 560 the kinase protocol left out, and the 14 from 561 to 600.
      expect(whole.total).toBe(448 + 600 + 37 + 14)
    }
    // By default, by name.
    expectPages({ level: 'molecule', columns: [ic50] }, 5, [0, 5, 10])
  })

  it('lists unnamed and uncached molecules after the named ones, by id', () => {
    // Five named molecules among 606: the named ones run out within the first page or two.
    for (const direction of ['asc', 'desc'] as const) {
      const options: ResultsTableOptions = {
        level: 'molecule',
        columns: [soluble],
        sort: { column: 'name', direction },
      }
      const whole = expectPages(options, 2, [0, 2, 3, 4, 5, 6, 8, 10])
      expect(whole.rows.slice(4, 7).map((row) => [row.subjectId, row.name !== null])).toEqual([
        [whole.rows[4]!.subjectId, true],
        [37, false],
        [9001, false],
      ])
      expectPages(options, 101)
      const filtered = { ...options, filters: [{ column: 0, comparison: range(50, 150) }] }
      expectPages(filtered, 2, [0, 1, 2, 3, 4, 5, 6])
      expectPages(filtered, 101)
    }
    // The same over many named molecules, unnamed ones among them.
    const named = expected
      .table({ level: 'molecule', columns: [ic50], limit: 100_000 })
      .rows.filter((row) => row.name !== null).length
    for (const offset of [named - 3, named - 1, named, named + 4]) {
      expectPages({ level: 'molecule', columns: [ic50] }, 2, [offset])
    }
  })

  it('sorts by a readout both ways: values, then text, then empty cells and none', () => {
    for (const direction of ['asc', 'desc'] as const) {
      for (const column of [0, 1, 2]) {
        expectPages(
          { level: 'molecule', columns: [ic50, inhibition, ki], sort: { column, direction } },
          53,
        )
      }
      expectPages({ level: 'batch', columns: [ic50, ki], sort: { column: 0, direction } }, 61)
    }
  })

  it('filters by ranges, bounded or open, with qualified values, sorted either way', () => {
    const filters = [
      [{ column: 0, comparison: range(0.1, 10) }],
      [{ column: 0, comparison: range(0.1, 30, false) }],
      [{ column: 0, comparison: range(null, 30) }],
      [{ column: 0, comparison: range(30, null) }],
      [
        { column: 0, comparison: range(null, 5) },
        { column: 1, comparison: range(20, 80) },
      ],
    ]
    for (const filter of filters) {
      for (const sort of [
        undefined,
        { column: 'name' as const, direction: 'desc' as const },
        { column: 0, direction: 'asc' as const },
        { column: 0, direction: 'desc' as const },
        { column: 1, direction: 'desc' as const },
      ]) {
        const options: ResultsTableOptions = {
          level: 'molecule',
          columns: [ic50, inhibition],
          filters: filter,
          sort,
        }
        expectPages(options, 3, [0, 3])
        const whole = expectPages(options, 41)
        expect(whole.total).toBeGreaterThan(0)
      }
      expectPages({ level: 'batch', columns: [ic50, inhibition], filters: filter }, 41)
    }
    // `<30` meets `< 30`'s open range by its whole interval; `>30` meets `>= 30`.
    const below = expected.table({
      level: 'molecule',
      columns: [ic50],
      filters: [{ column: 0, comparison: range(null, 30) }],
      limit: 100_000,
    })
    expect(below.rows.some((row) => row.cells[0]?.modifier === '<')).toBe(true)
    const above = expected.table({
      level: 'molecule',
      columns: [ic50],
      filters: [{ column: 0, comparison: range(30, null) }],
      limit: 100_000,
    })
    expect(above.rows.some((row) => row.cells[0]?.modifier === '>')).toBe(true)
  })

  it('keeps to the molecules of another search, per molecule and per batch', () => {
    const moleculeIds = Array.from({ length: 200 }, (_, index) => 3 * index + 1).concat([
      9005, 77777,
    ])
    for (const level of ['molecule', 'batch'] as const) {
      for (const sort of [undefined, { column: 0, direction: 'desc' as const }]) {
        expectPages({ level, columns: [ic50, ki], moleculeIds, sort }, 29)
        expectPages(
          {
            level,
            columns: [ic50, ki],
            moleculeIds,
            sort,
            filters: [{ column: 0, comparison: range(null, 10) }],
          },
          29,
        )
      }
    }
  })

  it('shows the aggregates corrections waiting in the outbox change, recomputed and pending', () => {
    // A kinase molecule tested twice on one batch with two plain IC50s: one marked an outlier
    // offline leaves the other, alone, as the batch's and the molecule's IC50.
    const rows = readoutRows()
    const plainIc50 = (row: Record<string, unknown>) => {
      const cell = (row.readouts as Record<string, { value?: unknown; modifier?: string }>)['101']
      return typeof cell?.value === 'number' && cell.modifier === undefined ? cell.value : null
    }
    const tested = rows.filter(
      (row) => row.protocol === kinase.id && typeof row.molecule === 'number',
    )
    const molecule = tested.find(
      (row) =>
        (row.molecule as number) <= cachedMolecules &&
        tested.filter((other) => other.molecule === row.molecule).length === 2 &&
        tested.every((other) => other.molecule !== row.molecule || plainIc50(other) !== null),
    )!.molecule as number
    const [marked, kept] = tested.filter((row) => row.molecule === molecule)
    const readouts = marked!.readouts as Record<string, Record<string, unknown>>
    const pending = [
      {
        rowId: marked!.id as number,
        record: {
          ...marked!,
          readouts: { ...readouts, '101': { ...readouts['101'], outlier: true } },
        },
        state: 'queued',
        itemIds: [1],
      },
    ]
    for (const level of ['molecule', 'batch'] as const) {
      const question = { level, columns: [ic50, inhibition], moleculeIds: [molecule] }
      const synced = cache.results().table(vault, question)
      const corrected = cache.results().table(vault, { ...question, pending })
      expect(synced.rows.map((row) => row.cells[0]?.n)).toEqual([2])
      expect(corrected.total).toBe(synced.total)
      expect(corrected.rows.map((row) => row.subjectId)).toEqual(
        synced.rows.map((row) => row.subjectId),
      )
      const [ic50Cell, inhibitionCell] = corrected.rows[0]!.cells
      expect(ic50Cell).toMatchObject({ kind: 'number', n: 1, pending: true })
      expect(ic50Cell!.number).toBeCloseTo(plainIc50(kept!)!, 12)
      // The other readout of the same rows is unchanged, and not marked.
      expect(inhibitionCell).toEqual(synced.rows[0]!.cells[1])
    }
  })

  it('gives plot points of every molecule, or of chosen ones, as the aggregates hold them', () => {
    const columns = [ic50, inhibition, ki]
    const pointsOf = (ids: readonly number[]) => ({
      ids: [...ids],
      values: columns.map((column) =>
        ids.map((id) => {
          const cell = expected.cell('molecule', id, column)
          return cell?.kind === 'number' ? cell.number : null
        }),
      ),
    })
    const all = cache.results().points(vault, { columns })
    const cached = Array.from({ length: cachedMolecules }, (_, index) => index + 1)
    expect({ ids: all.ids, values: all.values }).toEqual(pointsOf(cached))
    // Modifiers beside their values: a `>30` plots at 30 and says so.
    const at = all.ids.indexOf(
      expected.aggregates().find((row) => row.level === 'molecule' && row.modifier === '>')!
        .subject_id,
    )
    expect(all.values[0]![at]).toBe(30)
    expect(all.modifiers[0]![at]).toBe('>')
    // Chosen molecules, unordered, with ids that are not cached: those are left out.
    const chosen = [512, 3, 9005, 44, 300, 1, 77777]
    const some = cache.results().points(vault, { columns, moleculeIds: chosen })
    expect({ ids: some.ids, values: some.values }).toEqual(pointsOf([1, 3, 44, 300, 512]))
    expect(cache.results().points(vault, { columns, moleculeIds: [] })).toEqual({
      ids: [],
      values: [[], [], []],
      modifiers: [[], [], []],
    })
  })
})
