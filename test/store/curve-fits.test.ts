/**
 * Dose-response series read from a real cache (store/curve-queries.ts) and fitted
 * (store/curve-fits.ts): points from the readout value index in their definitions' units, cells
 * that are not plain numbers reported and left out with their reason, constraints merged, the
 * vault's own fit beside the local one, corrections waiting in the outbox applied, and selections
 * by protocol, batch, series, page and shard. Expected figures are worked out by hand in the
 * comments; fits are checked against SciPy on the demo vault (test/curves/).
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  curveFitMessages,
  packSeries,
  unpackSeries,
  KeptFits,
  type CurveFitTask,
  type CurveSeries,
  type CurveWorkerMessage,
} from '../../src-main/store/curve-fits.ts'
import {
  curveCellsSql,
  type CurveCalculation,
  type CurveSelection,
  type PendingReadoutRow,
  type PendingSeriesEdit,
} from '../../src-main/store/curve-queries.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const vault = 1
const protocol = {
  id: 17,
  name: 'Kinase IC50 (ADP-Glo)',
  readout_definitions: [
    { id: 201, name: 'Concentration', data_type: 'Number', unit_label: 'uM' },
    { id: 202, name: '% Inhibition', data_type: 'Number', unit_label: '%' },
    { id: 203, name: 'Comment', data_type: 'Text' },
    { id: 204, name: 'IC50', data_type: 'Number', unit_label: 'uM', calculated: true },
  ],
}

let nextRow = 1000
const row = (
  batch: number,
  run: number,
  concentration: unknown,
  response: unknown,
  extra: Record<string, unknown> = {},
) => ({
  id: nextRow++,
  class: 'readout row',
  type: 'detail row',
  protocol: 17,
  run: { id: run, run_date: `2026-03-0${run}` },
  batch,
  molecule: batch - 200,
  plate: 40,
  well: `A${String(nextRow - 1000).padStart(2, '0')}`,
  readouts: {
    ...(concentration === undefined ? {} : { 201: concentration }),
    ...(response === undefined ? {} : { 202: response }),
  },
  ...extra,
})

const hill = (x: number): number => 100 / (1 + 1 / x)
/** Half-log dilutions from 0.01 to 100 µM; small fixed errors so that the fit has residuals. */
const doses = [0.01, 0.0316, 0.1, 0.316, 1, 3.16, 10, 31.6, 100]
const errors = [0.8, -1.1, 1.4, -0.6, 0.9, -1.3, 0.5, -0.7, 1.2]

const clean = doses.map((x, index) =>
  row(301, 5, { value: x }, { value: hill(x) + errors[index]! }),
)
// The vault's outlier, and 850 nM typed with its unit into the µM readout (0.85 µM).
const outlierRow = row(301, 5, { value: 3.16 }, { value: 12, outlier: true })
const withUnit = row(301, 5, { value: '850 nM' }, { value: hill(0.85) })
const bestFit = doses.map((x, index) =>
  row(302, 5, { value: x }, { value: 10 + 0.8 * hill(x) + errors[index]! }),
)
const badCells = [
  row(303, 5, { value: 30 }, { value: 100, modifier: '>' }),
  row(303, 5, { value: 10 }, { value: 'n.d.' }),
  row(303, 5, undefined, { value: 40 }),
  row(303, 5, { value: 0 }, { value: 1 }),
  row(303, 5, { value: -1 }, { value: 2 }),
  row(303, 5, { value: 0.1 }, { value: 9 }),
  row(303, 5, { value: 1 }, { value: 50 }),
]
const flat = [0.1, 1, 10, 100].map((x) => row(304, 5, { value: x }, { value: 50 }))
const badConstraints = doses.map((x) => row(305, 5, { value: x }, { value: hill(x) }))
// Linear: y = 2x + 1 with errors .1, -.1, 0, .1, -.1 at x = 1..5. By hand: x̄ = 3, ȳ = 7,
// Sxx = 10, Σ(x - x̄)·e = -0.2, so slope 2 - 0.02 = 1.98 and intercept 7 - 1.98 · 3 = 1.06.
const line = [1, 2, 3, 4, 5].map((x, index) =>
  row(306, 7, { value: x }, { value: 2 * x + 1 + [0.1, -0.1, 0, 0.1, -0.1][index]! }),
)
const rows = [
  ...clean,
  outlierRow,
  withUnit,
  ...bestFit,
  ...badCells,
  ...flat,
  ...badConstraints,
  ...line,
  // A control well (no batch) and the vault's aggregate row of batch 301: never points.
  row(0, 5, { value: 10 }, { value: 100 }, { batch: null, molecule: null, control_state: '+' }),
  row(301, 5, undefined, undefined, {
    type: 'aggregate row',
    readouts: { 204: { value: 1.02 } },
  }),
]

const calculation = (id: number, equation: string, fitParameters: unknown = {}) => ({
  id,
  class: 'dose response calculation',
  name: `${equation} fit`,
  protocol: 17,
  equation_type: equation,
  readout_definition: 202,
  concentration_readout_definition: 201,
  result_readout_definition: 204,
  fit_parameters: fitParameters,
  minimum_activity: {},
})

const vaultPoints = (points: ReturnType<typeof row>[]) =>
  points
    .filter((point) => typeof (point.readouts[201] as { value: unknown })?.value === 'number')
    .map((point) => ({
      x: (point.readouts[201] as { value: number }).value,
      y: (point.readouts[202] as { value: number }).value,
      outlier: (point.readouts[202] as { outlier?: boolean }).outlier ?? false,
      readout_row: point.id,
    }))

const series = (
  id: number,
  calculationId: number,
  batch: number,
  run: number,
  extra: Record<string, unknown> = {},
) => ({
  id,
  class: 'dose response data series',
  calculation: calculationId,
  equation_type: calculationId === 2 ? 'Biphasic' : calculationId === 3 ? 'Linear' : 'Hill',
  batch,
  molecule: batch - 200,
  run: { id: run, run_date: `2026-03-0${run}` },
  fit_parameters: {},
  ...extra,
})

const biphasic = {
  center1: 0.1,
  center2: 10,
  frac: 0.4,
  plateau1: 0,
  plateau2: 100,
  slope1: 1,
  slope2: 1.5,
}

const seriesRecords = [
  series(11, 1, 301, 5, {
    status: 'fitted',
    fitted_parameters: { min: 0, max: 100.4, slope: 1.01, ic50: 1.02 },
    r_squared: 0.998,
    points_used: 10,
    // The vault lists the rows with a number in both cells; the 850 nM row as 0.85.
    points: vaultPoints([...clean, outlierRow]).concat({
      x: 0.85,
      y: hill(0.85),
      outlier: false,
      readout_row: withUnit.id,
    }),
  }),
  series(12, 1, 302, 5, { fit_parameters: { min: { modifier: 'best fit' } } }),
  series(13, 1, 303, 5, { status: 'failed', error: 'too few points' }),
  series(14, 1, 304, 5),
  series(15, 1, 305, 5, { fit_parameters: { slope: { modifier: '!!', value: 1 } } }),
  series(21, 2, 301, 5, { status: 'fitted', fitted_parameters: biphasic }),
  series(31, 3, 306, 7),
  series(41, 4, 305, 5),
]

describe('dose-response series from the cache', () => {
  const temporaryDirectory = useTemporaryDirectory()
  let cache: VaultCache
  let file: string

  beforeEach(() => {
    file = path.join(temporaryDirectory(), 'cache.db')
    cache = VaultCache.open(file).cache
    cache.applyPage('protocols', vault, [protocol])
    cache.applyPage('readout_rows', vault, rows)
    cache.applyPage(
      'dose_response_calculations',
      vault,
      [
        calculation(1, 'Hill', { min: { modifier: '=', value: 0 } }),
        calculation(2, 'Biphasic'),
        calculation(3, 'Linear'),
        calculation(4, 'Hill', { hill_slope: { modifier: '=', value: 1 } }),
      ],
      { parentId: 17 },
    )
    for (const calculationId of [1, 2, 3, 4]) {
      cache.applyPage(
        'dose_response_series',
        vault,
        seriesRecords.filter((record) => record.calculation === calculationId),
        { parentId: calculationId },
      )
    }
    cache.readoutIndex().complete()
  })
  afterEach(() => cache.close())

  /** A task's messages as a worker sends them (each cloned, as posting it would). */
  function curves(
    selection: CurveSelection,
    pending: PendingReadoutRow[] = [],
    kept = new KeptFits(0),
    pendingSeries: PendingSeriesEdit[] = [],
  ): { calculations: CurveCalculation[]; total: number; series: CurveSeries[]; fitted: number } {
    const task: CurveFitTask = { file, vaultId: vault, selection, pending, pendingSeries }
    const messages: CurveWorkerMessage[] = [...curveFitMessages(1, task, kept)].map((message) =>
      structuredClone(message),
    )
    const head = messages.find((message) => message.type === 'head')!
    const done = messages.at(-1)!
    if (done.type !== 'done') throw new Error(`the task ended with ${done.type}`)
    expect(done.fitted + done.reused).toBe(
      messages.reduce(
        (sum, message) => sum + (message.type === 'part' ? message.series.series.length : 0),
        0,
      ),
    )
    return {
      calculations: head.calculations,
      total: head.total,
      fitted: done.fitted,
      series: messages.flatMap((message) =>
        message.type === 'part' ? unpackSeries(message.series) : [],
      ),
    }
  }

  const byId = (list: readonly CurveSeries[], id: number): CurveSeries =>
    list.find((entry) => entry.id === id)!

  it('reads every series of a protocol with its calculation, points and the vault’s fit', () => {
    const answer = curves({ protocolId: 17 })
    expect(answer.total).toBe(8)
    expect(answer.series.map((entry) => entry.id)).toEqual([11, 12, 13, 14, 15, 21, 31, 41])
    expect(answer.calculations[0]).toEqual({
      id: 1,
      protocolId: 17,
      protocolName: 'Kinase IC50 (ADP-Glo)',
      name: 'Hill fit',
      equationType: 'Hill',
      response: { definitionId: 202, name: '% Inhibition', unit: '%' },
      concentration: { definitionId: 201, name: 'Concentration', unit: 'uM' },
      result: { definitionId: 204, name: 'IC50', unit: 'uM' },
      fitParameters: { min: { modifier: '=', value: 0 } },
      minimumActivity: null,
    })
    const first = byId(answer.series, 11)
    // Nine doses, the outlier and the 850 nM row; the control and the aggregate row are not points.
    expect(first.points).toHaveLength(11)
    expect(first.points.map((point) => point.concentration)).toEqual(
      [...doses, 3.16, 0.85].sort((a, b) => a - b),
    )
    expect(first.points.find((point) => point.rowId === withUnit.id)).toMatchObject({
      concentration: 0.85,
      concentrationText: '850 nM',
      exclusion: null,
      plateId: 40,
    })
    expect(first.points.find((point) => point.rowId === outlierRow.id)).toMatchObject({
      outlier: true,
      exclusion: 'outlier',
    })
    expect(first).toMatchObject({
      batchId: 301,
      moleculeId: 101,
      runId: 5,
      runDate: '2026-03-05',
      constraints: { min: { modifier: '=', value: 0 } },
      vault: { status: 'fitted', samePoints: true, pointsUsed: 10, rSquared: 0.998 },
      vaultFitOutdated: false,
      drawn: { source: 'vault', parameters: { ic50: 1.02 }, stale: false },
    })
    expect(first.local).toMatchObject({ outcome: 'fitted', converged: true })
    expect(first.local.points).toEqual({
      total: 11,
      used: 10,
      zeroConcentrationUsed: 0,
      excludedByReason: { outlier: 1 },
    })
    // The calculation fixes min at 0; the data were made with ic50 1 and slope 1.
    expect(first.local.parameters!.min).toEqual({
      value: 0,
      standardError: null,
      fixed: true,
      atBound: null,
    })
    expect(first.local.potency!.value).toBeGreaterThan(0.9)
    expect(first.local.potency!.value).toBeLessThan(1.1)
    expect(first.local.potency!.confidenceInterval95!.low).toBeLessThan(first.local.potency!.value)
    expect(first.comparison).toMatchObject({
      vault: 'curve',
      local: 'curve',
      sameVerdict: true,
      resultParameter: 'ic50',
    })
    expect(first.comparison!.resultRatio!).toBeCloseTo(first.local.potency!.value / 1.02, 12)
  })

  it("lets a series' best fit lift its calculation's constraint", () => {
    const own = byId(curves({ protocolId: 17, batchId: 302 }).series, 12)
    expect(own.constraints).toEqual({})
    expect(own.local.parameters!.min!.fixed).toBe(false)
    // Made with min 10: the lifted constraint lets the fit find it.
    expect(own.local.parameters!.min!.value).toBeGreaterThan(7)
    expect(own.local.parameters!.min!.value).toBeLessThan(13)
  })

  it('reports cells that are not plain numbers and leaves them out with their reason', () => {
    const bad = byId(curves({ protocolId: 17 }).series, 13)
    const byRow = new Map(bad.points.map((point) => [point.rowId, point]))
    expect(byRow.get(badCells[0]!.id)).toMatchObject({
      concentration: 30,
      response: 100,
      responseModifier: '>',
      responseText: '>100',
      exclusion: 'qualified',
    })
    expect(byRow.get(badCells[1]!.id)).toMatchObject({
      response: null,
      responseText: 'n.d.',
      exclusion: 'text',
    })
    expect(byRow.get(badCells[2]!.id)).toMatchObject({ concentration: null, exclusion: 'missing' })
    expect(byRow.get(badCells[3]!.id)).toMatchObject({ exclusion: 'zero concentration' })
    expect(byRow.get(badCells[4]!.id)).toMatchObject({ exclusion: 'negative concentration' })
    // Min is fixed: three free parameters need three usable points; two are left.
    expect(bad.local).toMatchObject({
      outcome: 'too few points',
      converged: false,
      parameters: null,
    })
    expect(bad.local.reason).toMatch(/needs at least 3 usable points; 2 are usable/)
    expect(bad.drawn).toBeNull()
    expect(bad.comparison).toMatchObject({
      vault: 'no curve',
      local: 'no curve',
      sameVerdict: true,
    })

    expect(byId(curves({ protocolId: 17 }).series, 14).local).toMatchObject({
      outcome: 'all responses equal',
    })
  })

  it('refuses constraints the specification rejects, naming whose they are', () => {
    const refused = byId(curves({ protocolId: 17, seriesId: 15 }).series, 15)
    expect(refused.local.outcome).toBe('invalid constraints')
    expect(refused.local.reason).toBe(
      `the data series' fit_parameters: slope: invalid modifier "!!" (use one of =, from, >, >=, <, <=, best fit)`,
    )
    expect(refused.constraints).toBeNull()
    const calculationLevel = byId(curves({ protocolId: 17, seriesId: 41 }).series, 41)
    expect(calculationLevel.local.reason).toBe(
      `the calculation's fit_parameters: unknown fit parameter "hill_slope" for Hill (known: min, max, slope)`,
    )
  })

  it("draws the vault's curve where there is no local fitting, and fits straight lines", () => {
    const answer = curves({ protocolId: 17 })
    const biphasicSeries = byId(answer.series, 21)
    expect(biphasicSeries.local.outcome).toBe('not implemented')
    expect(biphasicSeries.drawn).toEqual({
      source: 'vault',
      equationType: 'Biphasic',
      parameters: biphasic,
      stale: false,
    })
    expect(biphasicSeries.comparison).toMatchObject({ local: 'not fitted here', sameVerdict: null })

    const straight = byId(answer.series, 31)
    expect(straight.local.parameters!.slope!.value).toBeCloseTo(1.98, 10)
    expect(straight.local.parameters!.y_intercept!.value).toBeCloseTo(1.06, 10)
    expect(straight.comparison).toBeNull()
    expect(straight.drawn).toMatchObject({ source: 'local', equationType: 'Linear' })
  })

  it('applies corrections waiting in the outbox before fitting', () => {
    const before = byId(curves({ protocolId: 17, batchId: 301 }).series, 11)
    const marked = clean[4]!
    const corrected = clean[5]!
    const pending: PendingReadoutRow[] = [
      {
        rowId: marked.id,
        record: {
          ...marked,
          readouts: { ...marked.readouts, 202: { ...marked.readouts[202], outlier: true } },
        },
        state: 'queued',
        itemIds: [7],
      },
      {
        rowId: corrected.id,
        record: { ...corrected, readouts: { ...corrected.readouts, 202: { value: '60 %' } } },
        state: 'conflict',
        itemIds: [8],
      },
    ]
    const untouched = clean[6]!
    pending.push({
      rowId: untouched.id,
      record: { ...untouched, readouts: { ...untouched.readouts, 203: { value: 'cloudy' } } },
      state: 'queued',
      itemIds: [9],
    })
    const answer = curves({ protocolId: 17, batchId: 301 }, pending)
    const after = byId(answer.series, 11)
    // No local fit can replace the vault's Biphasic curve: it is drawn, said to be stale.
    expect(byId(answer.series, 21).drawn).toMatchObject({ source: 'vault', stale: true })
    expect(byId(answer.series, 21).vaultFitOutdated).toBe(true)
    // A correction of another readout of the row (its comment) leaves the point as it was.
    expect(after.points.find((point) => point.rowId === untouched.id)).toMatchObject({
      pending: null,
      exclusion: null,
    })
    expect(after.points.find((point) => point.rowId === marked.id)).toMatchObject({
      outlier: true,
      exclusion: 'outlier',
      pending: { state: 'queued', itemIds: [7] },
    })
    // A value typed with its unit is read as the index reads it.
    expect(after.points.find((point) => point.rowId === corrected.id)).toMatchObject({
      response: 60,
      responseText: '60 %',
      pending: { state: 'conflict', itemIds: [8] },
    })
    expect(after.local.points.used).toBe(before.local.points.used - 1)
    expect(after.local.potency!.value).not.toBe(before.local.potency!.value)
    // The vault's fit is of other points now: the local curve is drawn.
    expect(after.vaultFitOutdated).toBe(true)
    expect(after.drawn).toMatchObject({ source: 'local' })
    // The vault's points still match the cache's: only the pending changes differ.
    expect(after.vault.samePoints).toBe(true)
  })

  it('sends series with their points packed in columns, taken in as they were', () => {
    const marked = clean[4]!
    const pending: PendingReadoutRow[] = [
      {
        rowId: marked.id,
        record: {
          ...marked,
          readouts: { ...marked.readouts, 202: { ...marked.readouts[202], outlier: true } },
        },
        state: 'queued',
        itemIds: [7, 12],
      },
    ]
    const series = curves({ protocolId: 17 }, pending).series
    const points = series.flatMap((entry) => entry.points)
    // What the columns must carry: marks waiting, outliers, exclusions, texts, missing numbers.
    expect(points.some((point) => point.pending !== null)).toBe(true)
    expect(points.some((point) => point.outlier)).toBe(true)
    expect(points.some((point) => point.exclusion !== null && point.exclusion !== 'outlier')).toBe(
      true,
    )
    expect(points.some((point) => point.response === null)).toBe(true)
    const packed = structuredClone(packSeries(series))
    expect(packed.numbers).toBeInstanceOf(Float64Array)
    expect(unpackSeries(packed)).toEqual(series)
    expect(unpackSeries(packSeries([]))).toEqual([])
  })

  it("finds a batch's and a protocol's cells in the curve index alone, never walking the vault's", () => {
    const db = new Database(file, { readonly: true })
    try {
      for (const sharded of [false, true]) {
        const byBatch = queryPlan(db, { byBatch: true, sharded, covered: true })
        expect(byBatch).toMatch(
          /SEARCH v USING COVERING INDEX readout_values_for_curves \(vault_id=\? AND protocol_id=\? AND definition_id=\? AND batch_id=\?\)/,
        )
        const byProtocol = queryPlan(db, { byBatch: false, sharded, covered: true })
        expect(byProtocol).toMatch(
          /SEARCH v USING COVERING INDEX readout_values_for_curves \(vault_id=\? AND protocol_id=\? AND definition_id=\?\)/,
        )
        for (const details of [byBatch, byProtocol]) {
          expect(details).not.toMatch(/SCAN (v|r|readout)/)
          expect(details).not.toMatch(/USING PRIMARY KEY/)
        }
      }
    } finally {
      db.close()
    }
  })

  it("without the curve index (a cache its worker has yet to give it), finds a batch's cells by the batch index and a protocol's by its rows", () => {
    const db = new Database(file, { readonly: true })
    try {
      for (const sharded of [false, true]) {
        const byBatch = queryPlan(db, { byBatch: true, sharded, covered: false })
        expect(byBatch).toMatch(
          /SEARCH v USING INDEX readout_values_by_batch \(vault_id=\? AND batch_id=\?\)/,
        )
        // Named: with the curve index present the planner would look each row's cells up in it
        // by protocol and readout, a walk of the protocol's cells per row.
        const byProtocol = queryPlan(db, { byBatch: false, sharded, covered: false })
        expect(byProtocol).toMatch(/SEARCH r USING INDEX readout_rows_by_protocol_id/)
        expect(byProtocol).toMatch(/SEARCH v USING PRIMARY KEY \(vault_id=\? AND row_id=\?/)
        for (const details of [byBatch, byProtocol]) {
          expect(details).not.toMatch(/SCAN (v|r|readout)/)
          expect(details).not.toMatch(/USING PRIMARY KEY \(vault_id=\?\)/)
          expect(details).not.toMatch(/readout_values_for_curves/)
        }
      }
    } finally {
      db.close()
    }
  })

  it('reads the same series along the curve index as without it', () => {
    const selections: CurveSelection[] = [
      { protocolId: 17 },
      { protocolId: 17, shard: { index: 1, count: 2 } },
      { batchId: 301 },
      { protocolIds: [17], batchIds: [301, 302] },
    ]
    const covered = selections.map((selection) => curves(selection))
    const db = new Database(file)
    db.exec('DROP INDEX readout_values_for_curves')
    db.close()
    expect(selections.map((selection) => curves(selection))).toEqual(covered)
    expect(covered[0]!.series.some((series) => series.points.length > 0)).toBe(true)
  })

  it('says when the vault fitted other points than the cache holds', () => {
    cache.applyPage('readout_rows', vault, [
      { ...clean[0]!, readouts: { 201: { value: 0.01 }, 202: { value: 33 } } },
    ])
    cache.readoutIndex().complete()
    const changed = byId(curves({ protocolId: 17, batchId: 301 }).series, 11)
    expect(changed.vault.samePoints).toBe(false)
    expect(changed.vaultFitOutdated).toBe(true)
    expect(changed.drawn?.source).toBe('local')
  })

  it('answers a batch, a series, a page and shards that add up to the protocol', () => {
    const all = curves({ protocolId: 17 })
    expect(curves({ batchId: 301 }).series.map((entry) => entry.id)).toEqual([11, 21])
    expect(curves({ seriesId: 14 }).series.map((entry) => entry.id)).toEqual([14])
    const page = curves({ protocolId: 17, offset: 2, limit: 3 })
    expect(page.total).toBe(8)
    expect(page.series.map((entry) => entry.id)).toEqual([13, 14, 15])
    const shards = [0, 1, 2].map((index) => curves({ protocolId: 17, shard: { index, count: 3 } }))
    expect(shards.flatMap((shard) => shard.series.map((entry) => entry.id)).sort()).toEqual(
      all.series.map((entry) => entry.id).sort(),
    )
    const pageShares = [0, 1].map((index) =>
      curves({ protocolId: 17, offset: 2, limit: 3, shard: { index, count: 2 } }),
    )
    expect(pageShares.map((share) => share.total)).toEqual([8, 8])
    expect(pageShares.flatMap((share) => share.series.map((entry) => entry.id)).sort()).toEqual([
      13, 14, 15,
    ])
    // A shard holds a batch's series together (301 has a Hill and a Biphasic series).
    const holding301 = shards.filter((shard) => shard.series.some((entry) => entry.batchId === 301))
    expect(holding301).toHaveLength(1)
    expect(holding301[0]!.series.filter((entry) => entry.batchId === 301)).toHaveLength(2)
  })

  it('fits again only what changed: the same points and constraints reuse the kept fit', () => {
    const kept = new KeptFits(100)
    const first = curves({ protocolId: 17 }, [], kept)
    expect(first.fitted).toBe(8)
    const again = curves({ protocolId: 17 }, [], kept)
    expect(again.fitted).toBe(0)
    expect(again.series).toEqual(first.series)
    const marked = clean[2]!
    const changed = curves(
      { protocolId: 17 },
      [
        {
          rowId: marked.id,
          record: {
            ...marked,
            readouts: { ...marked.readouts, 202: { ...marked.readouts[202], outlier: true } },
          },
          state: 'queued',
          itemIds: [1],
        },
      ],
      kept,
    )
    // The Hill and the Biphasic series of batch 301 and run 5 hold the marked well.
    expect(changed.fitted).toBe(2)
    expect(byId(changed.series, 11).local).not.toEqual(byId(first.series, 11).local)
    expect(byId(changed.series, 12)).toEqual(byId(first.series, 12))
    // Without room to keep any, everything is fitted every time.
    const forgetful = new KeptFits(0)
    curves({ protocolId: 17 }, [], forgetful)
    expect(curves({ protocolId: 17 }, [], forgetful).fitted).toBe(8)
  })

  it('reads rows the index has yet to index from the cache, and names plates', () => {
    cache.applyPage('plates', vault, [{ id: 40, name: 'Plate 40' }])
    const before = byId(curves({ protocolId: 17, batchId: 301 }).series, 11)
    expect(before.points.every((point) => point.plateName === 'Plate 40')).toBe(true)
    // The vault's answer to a correction, stored, not yet indexed (the writer indexes when idle).
    const marked = clean[4]!
    cache.applyPage('readout_rows', vault, [
      { ...marked, readouts: { ...marked.readouts, 202: { value: 40, outlier: true } } },
    ])
    expect(cache.readoutIndex().backlog().rows).toBe(1)
    const after = byId(curves({ protocolId: 17, batchId: 301 }).series, 11)
    expect(after.points.find((point) => point.rowId === marked.id)).toMatchObject({
      response: 40,
      outlier: true,
      exclusion: 'outlier',
      pending: null,
    })
    expect(after.local.points.used).toBe(before.local.points.used - 1)
    // The same answer once indexed.
    cache.readoutIndex().complete()
    const indexed = byId(curves({ protocolId: 17, batchId: 301 }).series, 11)
    expect(indexed.points).toEqual(after.points)
    expect(indexed.local).toEqual(after.local)
  })

  it('fits with new constraints waiting in the outbox at once, saying they wait', () => {
    const before = byId(curves({ protocolId: 17, seriesId: 11 }).series, 11)
    expect(before.local.parameters!.slope!.fixed).toBe(false)
    const edit: PendingSeriesEdit = {
      seriesId: 11,
      // As the outbox's merge patch leaves it: nulls where the cached copy had no such member.
      record: {
        ...seriesRecords[0],
        fit_parameters: { slope: { modifier: '=', value: 1.5, range: null } },
      },
      state: 'queued',
      itemIds: [12],
    }
    const after = byId(
      curves({ protocolId: 17, seriesId: 11 }, [], new KeptFits(0), [edit]).series,
      11,
    )
    expect(after.pendingEdit).toEqual({ state: 'queued', itemIds: [12] })
    expect(after.fitParameters).toEqual({ slope: { modifier: '=', value: 1.5 } })
    // The calculation's min = 0 still holds; the series' slope is fixed over it.
    expect(after.constraints).toEqual({
      min: { modifier: '=', value: 0 },
      slope: { modifier: '=', value: 1.5 },
    })
    expect(after.local.parameters!.slope).toMatchObject({ value: 1.5, fixed: true })
    expect(after.vaultFitOutdated).toBe(true)
    expect(after.drawn).toMatchObject({ source: 'local' })
  })
})

/** The query plan of the statement that reads a selection's cells, one step a line. */
function queryPlan(
  db: Database.Database,
  options: { byBatch: boolean; sharded: boolean; covered: boolean },
): string {
  const sql = curveCellsSql(options)
  const parameters = {
    vaultId: vault,
    batchIds: '[301, 302]',
    protocolIds: '[17]',
    definitionIds: '[201, 202]',
    shardCount: 2,
    shardIndex: 0,
  }
  return (
    db
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all(
        Object.fromEntries(Object.entries(parameters).filter(([name]) => sql.includes(`@${name}`))),
      ) as { detail: string }[]
  )
    .map((step) => step.detail)
    .join('\n')
}
