import { describe, expect, it } from 'vitest'
import {
  addDays,
  moleculeMatches,
  rowMeets,
  runDayRange,
  subjectMatches,
  utcDay,
  type EvaluationContext,
  type ResultsCriterion,
} from './criteria.ts'
import { parseCriteria } from './criteria-text.ts'
import { readResultRow, type ResultRow } from './result-rows.ts'
import { catalogue } from './test-support/catalogue.ts'

const KINASE = 'Kinase IC50 (ADP-Glo)'
const context: EvaluationContext = { today: '2024-03-10' }

const definitions = new Map(
  catalogue.flatMap((protocol) =>
    protocol.readouts.map((readout) => [readout.id, readout] as const),
  ),
)

function row(raw: Record<string, unknown>): ResultRow {
  const read = readResultRow({ class: 'readout row', ...raw }, (id) => definitions.get(id))
  if (!read) throw new Error('unreadable row')
  return read
}

const run = (id: number, day: string) => ({ id, run_date: day })
const aggregateRow = (fields: Record<string, unknown>) => row({ type: 'aggregate row', ...fields })
const detailRow = (fields: Record<string, unknown>) => row({ type: 'detail row', ...fields })

/** Readout rows by batch, as the vault would send them (molecule 501 has batches 1001, 1003). */
const batches = new Map<number, ResultRow[]>([
  [
    1001,
    [
      aggregateRow({
        batch: 1001,
        molecule: 501,
        protocol: 1,
        run: run(101, '2024-01-10'),
        readouts: { 14: { value: 0.3 } },
      }),
      aggregateRow({
        batch: 1001,
        molecule: 501,
        protocol: 1,
        run: run(102, '2024-03-01'),
        readouts: { 14: { value: 30, modifier: '>', note: 'inactive' } },
      }),
      detailRow({
        batch: 1001,
        molecule: 501,
        protocol: 1,
        run: run(101, '2024-01-10'),
        readouts: { 11: 85.2, 13: 'precipitate at top concentration' },
      }),
    ],
  ],
  [
    1002,
    [
      aggregateRow({
        batch: '1002',
        molecule: { id: 502 },
        protocol: { id: 1 },
        run: run(102, '2024-03-01'),
        readouts: { 14: '<0.01' },
      }),
      detailRow({
        batch: 1002,
        molecule: 502,
        protocol: 1,
        run: run(102, '2024-03-01'),
        readouts: { 11: { value: 99, outlier: true } },
      }),
      aggregateRow({
        batch: 1002,
        molecule: 502,
        protocol: 2,
        run: run(201, '2024-02-20'),
        readouts: { 24: 300 },
      }),
    ],
  ],
  [
    1003,
    [
      detailRow({
        batch: 1003,
        molecule: 501,
        protocol: 3,
        run: run(301, '2024-02-01T15:00:00Z'),
        readouts: { 30: '>200', 31: 'nephelometry' },
      }),
    ],
  ],
  [1004, []],
  [
    1005,
    [
      aggregateRow({
        batch: 1005,
        molecule: 504,
        protocol: 1,
        run: run(101, '2024-01-10'),
        readouts: { 14: { note: 'no fit: too few points' } },
      }),
    ],
  ],
])

/** A control well of the kinase run: no batch, so it belongs to no batch's rows. */
const control = detailRow({
  protocol: 1,
  run: run(101, '2024-01-10'),
  control_state: ' + ',
  readouts: { 11: 100 },
})

function criteria(...texts: string[]): ResultsCriterion[] {
  const parsed = parseCriteria(texts, catalogue)
  if (!parsed.ok) throw new Error(parsed.errors.map((error) => error.message).join('; '))
  return parsed.criteria
}

function matching(...texts: string[]): number[] {
  const parsed = criteria(...texts)
  return [...batches].flatMap(([id, rows]) => (subjectMatches(parsed, rows, context) ? [id] : []))
}

describe('reading readout rows', () => {
  it('reads links as ids or objects, the run date, the row type and control state', () => {
    expect(control).toMatchObject({
      protocolId: 1,
      runId: 101,
      runDate: '2024-01-10',
      batchId: null,
      moleculeId: null,
      aggregateRow: false,
      controlState: '+',
    })
    const potent = batches.get(1002)![0]!
    expect(potent).toMatchObject({
      batchId: 1002,
      moleculeId: 502,
      protocolId: 1,
      aggregateRow: true,
    })
    expect(potent.cells.get(14)?.value).toMatchObject({
      kind: 'number',
      value: 0.01,
      modifier: '<',
    })
    expect(batches.get(1001)![2]!.cells.get(13)?.value).toEqual({
      kind: 'text',
      text: 'precipitate at top concentration',
    })
    expect(
      readResultRow({ id: '7', run: 9, run_date: '2024-01-01', readouts: { x: 1, '3': 2 } }),
    ).toMatchObject({
      id: 7,
      runId: 9,
      runDate: '2024-01-01',
      protocolId: null,
    })
    expect(readResultRow({ readouts: { x: 1, '3': 2 } })?.cells.size).toBe(1)
    expect(readResultRow('row')).toBeNull()
  })
})

describe('a batch meets a criterion when one of its readout rows does', () => {
  it('finds batches by a readout value, in the readout’s unit', () => {
    expect(matching(`${KINASE}: IC50 < 1 uM`)).toEqual([1001, 1002])
    expect(matching(`${KINASE}: IC50 < 1000 nM`)).toEqual([1001, 1002])
    // 300 nM on a readout kept in nM meets "< 1 uM".
    expect(matching('GPCR Radioligand Displacement: IC50 < 1 uM')).toEqual([1002])
    expect(matching('GPCR Radioligand Displacement: IC50 < 0.2 uM')).toEqual([])
  })

  it('compares qualified values by their bound, as the vault’s own criteria do', () => {
    // 1001's >30 is compared as 30: it meets "> 10", "< 40" and "from 10 to 100" (its 0.3
    // meets "< 40" too); 1002's 0.2 only "< 40".
    expect(matching(`${KINASE}: IC50 > 10`)).toEqual([1001])
    expect(matching(`${KINASE}: IC50 < 40`)).toEqual([1001, 1002])
    expect(matching(`${KINASE}: IC50 from 10 to 100`)).toEqual([1001])
    // 1003's >200 compared as 200.
    expect(matching('Kinetic Solubility (PBS pH 7.4): Solubility > 100')).toEqual([1003])
    expect(matching('Kinetic Solubility (PBS pH 7.4): Solubility < 300')).toEqual([1003])
  })

  it('counts outliers, as the vault’s search does, and any cell for a readout alone', () => {
    expect(matching(`${KINASE}: % Inhibition > 90`)).toEqual([1002])
    expect(matching(`${KINASE}: IC50`)).toEqual([1001, 1002, 1005])
    expect(matching(`${KINASE}: Comment contains PRECIPITATE`)).toEqual([1001])
  })

  it('finds batches in or not in a protocol, batches never tested included', () => {
    expect(matching(KINASE)).toEqual([1001, 1002, 1005])
    expect(matching(`not ${KINASE}`)).toEqual([1003, 1004])
    expect(matching(`not ${KINASE}: IC50 < 1 uM`)).toEqual([1003, 1004, 1005])
  })

  it('keeps the runs a run clause names', () => {
    // Today 2024-03-10: the last 30 days start on 2024-02-09, so only run 102 (2024-03-01).
    expect(matching(`${KINASE}: IC50 < 1 uM; run in the last 30 days`)).toEqual([1002])
    expect(matching(`${KINASE}: IC50 < 1 uM; run date on 2024-01-10`)).toEqual([1001])
    expect(matching(`${KINASE}: IC50 < 1 uM; run 102`)).toEqual([1002])
    expect(matching('run date from 2024-02-01 to 2024-02-01')).toEqual([1003])
    expect(matching('run date before 2024-02-01')).toEqual([1001, 1005])
    // 2024-03-10 less 9 days is 2024-03-01, the day of run 102; less 8 days is after it.
    expect(matching('run in the last 9 days')).toEqual([1001, 1002])
    expect(matching('run in the last 8 days')).toEqual([])
  })

  it('combines criteria left to right by their junctions, without precedence', () => {
    const a = `${KINASE}: IC50 < 1 uM`
    const b = 'and Kinetic Solubility (PBS pH 7.4)'
    const c = `or not ${KINASE}`
    // (a AND b) OR c = {} OR {1003, 1004}; a AND (b OR c) would be empty.
    expect(matching(a, b, c)).toEqual([1003, 1004])
    expect(matching(a, `or ${KINASE}: IC50 > 10`)).toEqual([1001, 1002])
    expect(matching()).toEqual([1001, 1002, 1003, 1004, 1005])
  })

  it('answers for single rows, and gives the day range a run filter keeps', () => {
    const [recent] = criteria(`${KINASE}: IC50 > 10; run in the last 30 days`)
    expect(rowMeets(recent!, batches.get(1001)![1]!, context)).toBe(true)
    expect(rowMeets(recent!, batches.get(1001)![0]!, context)).toBe(false)
    expect(rowMeets(recent!, control, context)).toBe(false)
    expect(runDayRange(recent!.runs, context)).toEqual({ onOrAfter: '2024-02-09', before: null })
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29')
    expect(utcDay(Date.UTC(2024, 2, 10, 23, 59))).toBe('2024-03-10')
  })
})

describe('criteria on aggregates, a separate choice', () => {
  it('compares the aggregate of the rows in scope instead of any row', () => {
    // 1001: geometric mean of 0.3 and >30 is >3 ((0.3 × 30)^(1/2) = 3); 1002: <0.01; 1005: none.
    expect(matching(`${KINASE}: aggregate IC50 < 1 uM`)).toEqual([1002])
    expect(matching(`${KINASE}: aggregate IC50 > 2`)).toEqual([1001])
    expect(matching(`${KINASE}: aggregate IC50 > 10`)).toEqual([])
    expect(matching(`${KINASE}: aggregate IC50 > 10; run in the last 30 days`)).toEqual([1001])
    expect(matching(`not ${KINASE}: aggregate IC50 < 1 uM`)).toEqual([1001, 1003, 1004, 1005])
    // Detail rows: 85.2, the outlier 99 left out of 1002's.
    expect(matching(`${KINASE}: aggregate % Inhibition > 50`)).toEqual([1001])
  })
})

describe('molecules match through their batches', () => {
  const molecule501 = [batches.get(1001)!, batches.get(1003)!]

  it('matches a molecule when one batch meets every criterion', () => {
    const both = criteria(
      `${KINASE}: IC50 < 1 uM`,
      'Kinetic Solubility (PBS pH 7.4): Solubility > 100',
    )
    // 1001 meets the first only, 1003 the second only.
    expect(moleculeMatches(both, molecule501, context)).toBe(false)
    const either = criteria(
      `${KINASE}: IC50 < 1 uM`,
      'or Kinetic Solubility (PBS pH 7.4): Solubility > 100',
    )
    expect(moleculeMatches(either, molecule501, context)).toBe(true)
    // Batch 1003 was never tested in the kinase assay, so the molecule is "not in" it.
    expect(moleculeMatches(criteria(`not ${KINASE}`), molecule501, context)).toBe(true)
    expect(moleculeMatches(criteria(`not ${KINASE}`), [batches.get(1001)!], context)).toBe(false)
  })
})
