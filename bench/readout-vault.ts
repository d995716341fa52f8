/**
 * A synthetic assay vault for the readout benchmarks, made deterministically: four protocols
 * with readout definitions (a potency in µM or nM with a geometric mean, a percentage with an
 * arithmetic mean, a free-text comment), runs of one 96-well plate each, and readout rows shaped
 * as the simulator gives them (`src-sim/resources/domain/readout-store.ts`): `{id, class, type,
 * molecule, batch, run {id, run_date}, protocol, plate, well, control_state?, readouts
 * {definition id: {value, modifier?, outlier?, note?}}}`.
 *
 * The mix is a screening collection's: two or three replicates per tested batch, a quarter of the
 * potency tests with the vault's own aggregate row (its curve fit), potencies past the assay's
 * top concentration as `>30` (a modifier, or the text as typed), `ND` percentages, outliers,
 * notes, comments, a few values typed with their unit (`850 nM` in a µM readout), and sixteen
 * control wells on every plate (no batch, no molecule). Batch ids follow
 * `test/store/fixtures/molecule-records.ts`, so the rows belong to the molecules it makes.
 */

export const benchVaultId = 1

interface Definition {
  id: number
  name: string
  data_type: 'Number' | 'Text'
  unit_label: string
  precision: number
  aggregation: string
  calculated: boolean
}

interface BenchProtocol {
  id: number
  name: string
  /** Potency: log-normal around a series' activity, the top concentration as a ceiling. */
  kind: 'potency' | 'solubility'
  /** The potency's unit: its values are µM times this. */
  unitScale: number
  definitions: Definition[]
}

const definition = (
  id: number,
  name: string,
  dataType: 'Number' | 'Text',
  unit: string,
  aggregation: string,
): Definition => ({
  id,
  name,
  data_type: dataType,
  unit_label: unit,
  precision: dataType === 'Number' ? 3 : 0,
  aggregation,
  calculated: false,
})

export const benchProtocols: readonly BenchProtocol[] = [
  {
    id: 1,
    name: 'Kinase IC50 (ADP-Glo)',
    kind: 'potency',
    unitScale: 1,
    definitions: [
      definition(101, 'IC50', 'Number', 'uM', 'Geometric Mean'),
      definition(102, '% Inhibition', 'Number', '%', 'Mean'),
      definition(103, 'Comment', 'Text', '', ''),
    ],
  },
  {
    id: 2,
    name: 'GPCR Radioligand Displacement',
    kind: 'potency',
    unitScale: 1000,
    definitions: [
      definition(201, 'Ki', 'Number', 'nM', 'Geometric Mean'),
      definition(202, '% Displacement', 'Number', '%', 'Mean'),
      definition(203, 'Comment', 'Text', '', ''),
    ],
  },
  {
    id: 3,
    name: 'Kinetic Solubility (PBS pH 7.4)',
    kind: 'solubility',
    unitScale: 1,
    definitions: [
      definition(301, 'Solubility', 'Number', 'uM', 'Mean'),
      definition(302, 'Comment', 'Text', '', ''),
    ],
  },
  {
    id: 4,
    name: 'Cell Viability (CellTiter-Glo)',
    kind: 'potency',
    unitScale: 1,
    definitions: [
      definition(401, 'EC50', 'Number', 'uM', 'Geometric Mean'),
      definition(402, '% Viability', 'Number', '%', 'Mean'),
      definition(403, 'Comment', 'Text', '', ''),
    ],
  },
]

const createdAt = '2024-01-01T08:00:00Z'

/** The protocol records, as the vault's protocol pages give them. */
export function protocolRecords(): Record<string, unknown>[] {
  return benchProtocols.map((protocol) => ({
    id: protocol.id,
    class: 'protocol',
    name: protocol.name,
    description: '',
    category: protocol.kind === 'potency' ? 'Potency' : 'ADME',
    data_set: null,
    projects: [{ id: 1, name: 'Project 1' }],
    owner: 'Ada Lovelace',
    protocol_fields: {},
    readout_definitions: protocol.definitions,
    calculations: [],
    created_at: createdAt,
    modified_at: createdAt,
  }))
}

/** A batch of a molecule tested in a protocol. */
export interface AssayTest {
  protocolId: number
  moleculeId: number
  batchId: number
}

/** The batch ids of a molecule, as `moleculeRecord` numbers them (one to three per molecule). */
export function batchIdsOf(moleculeId: number): number[] {
  return Array.from({ length: 1 + (moleculeId % 3) }, (_, batch) => moleculeId * 10 + batch)
}

type Cell = { value?: number | string; modifier?: '<' | '>'; outlier?: boolean; note?: string }
export type ReadoutRowRecord = Record<string, unknown> & { id: number }

/** A run's plate: 80 sample wells (columns 1-10), controls in columns 11 and 12. */
interface OpenPlate {
  runId: number
  runDate: string
  nextSample: number
}

const sampleWells = 80
const comments = ['precipitated', 'colored compound', 'curve did not reach the bottom']

/**
 * Makes the readout rows of tests, in order, on plates filled one after the other per protocol;
 * the same tests always give the same rows. `runs()` answers the runs opened so far.
 */
export class ReadoutRowMaker {
  readonly #next: () => number
  readonly #plates = new Map<number, OpenPlate>()
  readonly #runs: Record<string, unknown>[] = []
  #nextRowId = 1

  constructor(seed = 1) {
    let state = seed >>> 0 || 1
    this.#next = () => {
      state ^= state << 13
      state ^= state >>> 17
      state ^= state << 5
      return (state >>> 0) / 4294967296
    }
  }

  /** Rows made so far. */
  get rowCount(): number {
    return this.#nextRowId - 1
  }

  runs(): Record<string, unknown>[] {
    return this.#runs
  }

  /** The rows of one test, with the controls of a plate it opens first. */
  rowsOf(test: AssayTest): ReadoutRowRecord[] {
    const protocol = benchProtocols.find((candidate) => candidate.id === test.protocolId)
    if (!protocol) throw new Error(`No bench protocol ${test.protocolId}.`)
    const rows: ReadoutRowRecord[] = []
    const [first, second] = protocol.definitions.map((entry) => String(entry.id))
    const comment = String(protocol.definitions.find((entry) => entry.data_type === 'Text')!.id)
    const replicates =
      protocol.kind === 'potency'
        ? 2 + (this.#next() < 0.4 ? 1 : 0)
        : 1 + (this.#next() < 0.5 ? 1 : 0)
    // The batch's activity, in µM: log-normal, a tail of inactives past the top concentration.
    const log10Potency =
      protocol.kind === 'potency' ? 0.4 + 1.1 * this.#normal() : 1.7 + 0.6 * this.#normal()
    for (let replicate = 0; replicate < replicates; replicate++) {
      const plate = this.#plateOf(protocol, rows)
      const readouts: Record<string, Cell> = {}
      const log10Value = log10Potency + 0.15 * this.#normal()
      readouts[first!] = this.#numberCell(protocol, log10Value)
      if (protocol.kind === 'potency') {
        readouts[second!] =
          this.#next() < 0.02
            ? { value: 'ND' }
            : { value: round1(100 / (1 + 10 ** log10Value / 10) + 5 * this.#normal()) }
      }
      if (this.#next() < 0.04) readouts[comment] = { value: this.#pick(comments) }
      rows.push(this.#row(protocol, plate, plate.nextSample++, test, 'detail row', readouts))
    }
    if (protocol.kind === 'potency' && this.#next() < 0.25) {
      // The vault's own curve fit: an aggregate row with the potency alone, no well.
      const plate = this.#plates.get(protocol.id)!
      const fitted = this.#numberCell(protocol, log10Potency, { plain: true })
      rows.push(this.#row(protocol, plate, null, test, 'aggregate row', { [first!]: fitted }))
    }
    return rows
  }

  #plateOf(protocol: BenchProtocol, rows: ReadoutRowRecord[]): OpenPlate {
    const open = this.#plates.get(protocol.id)
    if (open && open.nextSample < sampleWells) return open
    const runId = this.#runs.length + 1
    const day = new Date(Date.UTC(2024, 0, 1) + Math.floor(runId / 4) * 86_400_000)
    const plate: OpenPlate = { runId, runDate: day.toISOString().slice(0, 10), nextSample: 0 }
    this.#plates.set(protocol.id, plate)
    this.#runs.push({
      id: runId,
      class: 'run',
      protocol: { id: protocol.id, name: protocol.name },
      project: { id: 1, name: 'Project 1' },
      run_date: plate.runDate,
      person: 'Rosalind Franklin',
      place: 'Lab 2',
      conditions: '',
      slurp: null,
      created_at: `${plate.runDate}T17:00:00Z`,
      modified_at: `${plate.runDate}T17:00:00Z`,
    })
    const [first, second] = protocol.definitions.map((entry) => String(entry.id))
    for (let control = 0; control < 16; control++) {
      const positive = control < 8
      const readouts: Record<string, Cell> =
        protocol.kind === 'potency'
          ? { [second!]: { value: round1((positive ? 100 : 0) + 3 * this.#normal()) } }
          : { [first!]: { value: round1((positive ? 180 : 2) * (1 + 0.05 * this.#normal())) } }
      rows.push(
        this.#row(protocol, plate, sampleWells + control, null, 'detail row', readouts, {
          control_state: positive ? '+' : '-',
        }),
      )
    }
    return plate
  }

  /** A potency or solubility as a cell, in the definition's unit, with the mix real vaults send. */
  #numberCell(protocol: BenchProtocol, log10Micromolar: number, options = { plain: false }): Cell {
    const scale = protocol.unitScale
    if (protocol.kind === 'solubility') {
      const value = 10 ** log10Micromolar
      if (value > 200) return { value: 200, modifier: '>' }
      if (value < 1) return { value: 1, modifier: '<' }
      return { value: round3(value) }
    }
    const micromolar = 10 ** log10Micromolar
    if (micromolar > 30) {
      // Past the top concentration: a modifier, or the text as someone typed it.
      return this.#next() < 0.3 ? { value: `>${30 * scale}` } : { value: 30 * scale, modifier: '>' }
    }
    const draw = options.plain ? 1 : this.#next()
    if (draw < 0.03) return { value: round3(micromolar * scale * 10), outlier: true }
    if (draw < 0.04) {
      // Typed with a unit: in nM for a µM readout, in µM for an nM one.
      return scale === 1
        ? { value: `${round3(micromolar * 1000)} nM` }
        : { value: `${round3(micromolar)} uM` }
    }
    if (draw < 0.05) return { value: round3(micromolar * scale), note: 'hook effect at top dose' }
    return { value: round3(micromolar * scale) }
  }

  #row(
    protocol: BenchProtocol,
    plate: OpenPlate,
    wellIndex: number | null,
    test: AssayTest | null,
    type: 'detail row' | 'aggregate row',
    readouts: Record<string, Cell>,
    extra: Record<string, unknown> = {},
  ): ReadoutRowRecord {
    const id = this.#nextRowId++
    const stamp = `${plate.runDate}T17:00:00Z`
    const row: ReadoutRowRecord = {
      id,
      class: 'readout row',
      type,
      molecule: test?.moleculeId ?? null,
      batch: test?.batchId ?? null,
      run: { id: plate.runId, run_date: plate.runDate },
      protocol: protocol.id,
      readouts,
      created_at: stamp,
      modified_at: stamp,
    }
    if (wellIndex !== null) {
      row.plate = plate.runId
      row.well = wellLabel(wellIndex)
    }
    return Object.assign(row, extra)
  }

  #normal(): number {
    // Box-Muller; 1 - u keeps the logarithm finite.
    const u = 1 - this.#next()
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.#next())
  }

  #pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#next() * items.length)]!
  }
}

/** Samples fill columns 1-10 by row; controls columns 11 and 12. */
function wellLabel(index: number): string {
  const column = index < sampleWells ? (index % 10) + 1 : 11 + Math.floor((index - sampleWells) / 8)
  const row = index < sampleWells ? Math.floor(index / 10) : (index - sampleWells) % 8
  return `${String.fromCharCode(65 + row)}${String(column).padStart(2, '0')}`
}

const round1 = (value: number) => Math.round(value * 10) / 10
const round3 = (value: number) => Number(value.toPrecision(3))

/**
 * Tests spread evenly over `moleculeCount` molecules: each round tests every molecule once, in
 * another protocol each time (so each protocol holds about a quarter of the tests).
 */
export function* assayTests(moleculeCount: number): Generator<AssayTest> {
  for (let test = 0; ; test++) {
    const moleculeId = 1 + (test % moleculeCount)
    const round = Math.floor(test / moleculeCount)
    const batches = batchIdsOf(moleculeId)
    yield {
      protocolId: benchProtocols[(moleculeId + round) % benchProtocols.length]!.id,
      moleculeId,
      batchId: batches[round % batches.length]!,
    }
  }
}

/** The rows of the tests in pages, at most `maxRows` rows in all. */
export function* readoutPages(
  maker: ReadoutRowMaker,
  tests: Iterable<AssayTest>,
  options: { pageSize: number; maxRows?: number },
): Generator<ReadoutRowRecord[]> {
  const maxRows = options.maxRows ?? Infinity
  let page: ReadoutRowRecord[] = []
  let made = 0
  for (const test of tests) {
    for (const row of maker.rowsOf(test)) {
      if (made === maxRows) break
      page.push(row)
      made++
      if (page.length === options.pageSize) {
        yield page
        page = []
      }
    }
    if (made === maxRows) break
  }
  if (page.length > 0) yield page
}
