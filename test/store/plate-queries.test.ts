/**
 * Plate quality from a real cache filled by the real sync from the simulator's demo vault,
 * asked through the services and the IPC contract (`plates.*`):
 *
 * - a fixture plate written in this test, with its Z′ and the rest worked out by hand below;
 * - every demo plate and readout with controls: each statistic against NumPy and SciPy (Debian's
 *   /usr/bin/python3) computed in the same run from the wells the cache holds, read the
 *   reference's way from the readout rows' JSON, and against the vault's own plate statistics;
 * - the run's plates side by side, a correction waiting in the outbox, the query plans, and
 *   refusals that name what is wrong.
 */
import { spawnSync } from 'node:child_process'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type {
  OutboxItemView,
  PlateQualityAnswer,
  RunPlatesQualityAnswer,
} from '../../src-main/ipc/contract.ts'
import type { Services } from '../../src-main/services/index.ts'
import { PlateQueries, plateSql } from '../../src-main/store/plate-queries.ts'
import type { VaultCache } from '../../src-main/store/vault-cache.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { wellAt, wellCount, wellRows } from '../../src-common/plates/well-columns.ts'
import { kindDeclaration, recordTitle } from '../../src-common/records/record-kinds.ts'
import { isObject, toLinkId, toNumber, toObjects, toText } from '../../src-common/values.ts'
import { nextEvent, testServices } from '../services/support.ts'
import { requirement } from '../support/environment.ts'
import { startDemoSim } from '../sync/support.ts'

const python = process.env.VAULT_DESK_NATIVE_PYTHON ?? '/usr/bin/python3'
const probe = spawnSync(python, ['-c', 'import numpy, scipy.stats'], { encoding: 'utf8' })
const scipyHere = requirement(
  probe.status === 0,
  `SciPy (${python} with python3-scipy: ${(probe.stderr || String(probe.error ?? '')).trim() || 'import failed'})`,
)

/**
 * Reference statistics by NumPy and SciPy: means with numpy.mean, sample standard deviations with
 * scipy.stats.tstd (n - 1), then the published formulas (Zhang 1999 for Z′ and Z, Sittampalam
 * 1997 for the signal window).
 */
const referenceScript = `
import json, sys
import numpy as np
from scipy import stats
out = {}
for key, plate in json.load(sys.stdin).items():
    p, n, s = (np.array(plate[g], dtype=float) for g in ('positive', 'negative', 'samples'))
    mp, mn, ms = float(np.mean(p)), float(np.mean(n)), float(np.mean(s)) if len(s) else None
    sp, sn = float(stats.tstd(p)), float(stats.tstd(n))
    ss = float(stats.tstd(s)) if len(s) > 1 else None
    high, low = ((mp, sp), (mn, sn)) if mp >= mn else ((mn, sn), (mp, sp))
    out[key] = {
        'positive': [mp, sp], 'negative': [mn, sn], 'samples': [ms, ss],
        'zPrime': 1 - 3 * (sp + sn) / abs(mp - mn),
        'z': None if ss is None else 1 - 3 * (ss + sp) / abs(ms - mp),
        'signalWindow': (high[0] - low[0] - 3 * (high[1] + low[1])) / high[1],
        'signalToBackground': mp / mn,
    }
json.dump(out, sys.stdout)
`

interface ReferenceInput {
  positive: number[]
  negative: number[]
  samples: number[]
}
interface Reference {
  positive: [number, number]
  negative: [number, number]
  samples: [number | null, number | null]
  zPrime: number
  z: number | null
  signalWindow: number
  signalToBackground: number
}

function scipyStatistics(plates: Record<string, ReferenceInput>): Record<string, Reference> {
  const run = spawnSync(python, ['-c', referenceScript], {
    input: JSON.stringify(plates),
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  })
  if (run.status !== 0) throw new Error(`the SciPy reference failed: ${run.stderr}`)
  return JSON.parse(run.stdout) as Record<string, Reference>
}

let sim: VaultSim
let services: Services
let dispose: () => Promise<void>
let dispatch: Dispatch
let connectionId: string
let main: number
let cache: VaultCache

async function call<T>(channel: string, args: unknown): Promise<T> {
  const result = await dispatch(channel, args)
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`)
  return result.value as T
}

async function refusal(channel: string, args: unknown): Promise<{ code: string; message: string }> {
  const result = await dispatch(channel, args)
  if (result.ok) throw new Error(`${channel} answered where a refusal was expected`)
  return result.error
}

/**
 * The fixture plate (ids 900001 and up, in the demo vault, a protocol of its own): a 96-well plate
 * with one readout, Signal. Values as in src-common/analysis/plate-quality.test.ts:
 *
 * positive (column 1): 100, 104, 96, 100    mean 100, SD = √(32/3) = 3.2659863
 *   and E01 = 500, marked an outlier: left out
 * negative (column 2): 10, 12, 8, 10        mean 10,  SD = √(8/3)  = 1.6329932
 * samples (columns 3 and 4): 10, 15, 5, 10, 0, 20, 10, 10   mean 10, SD = √(250/7) = 5.9761430
 *   and E03 `>200` (qualified) and E04 `n/a` (text): left out
 *
 * Z′ = 1 - 3(3.2659863 + 1.6329932) / 90 = 0.8367007
 * Z  = 1 - 3(5.9761430 + 3.2659863) / 90 = 0.6919290 (samples against the positive control)
 * signal window = (90 - 14.6969385) / 3.2659863 = 23.0567; signal to background = 10
 *
 * With B02 (12) marked an outlier offline, the negatives are 10, 8, 10: mean 9.3333333,
 * SD = √((0.4444 + 1.7778 + 0.4444) / 2) = √(4/3) = 1.1547005, and
 * Z′ = 1 - 3(3.2659863 + 1.1547005) / 90.6666667 = 1 - 13.2620604 / 90.6666667 = 0.8537273.
 */
const fixture = {
  protocol: 900001,
  signal: 900001,
  run: 900001,
  plate: 900001,
  wells: [
    ['A01', '+', 100],
    ['B01', '+', 104],
    ['C01', '+', 96],
    ['D01', '+', 100],
    ['E01', '+', 500, { outlier: true }],
    ['A02', '-', 10],
    ['B02', '-', 12],
    ['C02', '-', 8],
    ['D02', '-', 10],
    ['A03', null, 10],
    ['A04', null, 15],
    ['B03', null, 5],
    ['B04', null, 10],
    ['C03', null, 0],
    ['C04', null, 20],
    ['D03', null, 10],
    ['D04', null, 10],
    ['E03', null, 200, { modifier: '>' }],
    ['E04', null, 'n/a'],
  ] as [string, string | null, number | string, Record<string, unknown>?][],
}

function writeFixture(): void {
  const runDate = '2026-01-05'
  cache.applyPage('protocols', main, [
    {
      id: fixture.protocol,
      name: 'Fixture plate assay',
      readout_definitions: [
        { id: fixture.signal, name: 'Signal', data_type: 'Number', unit_label: 'RLU' },
      ],
      runs: [{ id: fixture.run, run_date: runDate }],
    },
  ])
  cache.applyPage('runs', main, [
    { id: fixture.run, run_date: runDate, protocol: { id: fixture.protocol } },
  ])
  cache.applyPage('plates', main, [
    { id: fixture.plate, name: 'FIX-P001', size: 96, location: 'Bench', wells: [] },
  ])
  cache.applyPage('readout_rows', main, fixture.wells.map(fixtureRow))
  cache.readoutIndex().complete()
}

/** The fixture's readout row of well `index` as the vault sends it. */
function fixtureRow(
  [well, control, value, extra]: (typeof fixture.wells)[number],
  index: number,
): Record<string, unknown> {
  return {
    id: fixture.plate + index,
    type: 'detail row',
    protocol: { id: fixture.protocol },
    run: { id: fixture.run, run_date: '2026-01-05' },
    plate: { id: fixture.plate, name: 'FIX-P001' },
    well,
    ...(control === null ? { batch: { id: 1 } } : { control_state: control }),
    readouts: { [fixture.signal]: { value, ...extra } },
  }
}

beforeAll(async () => {
  sim = await startDemoSim()
  main = sim.cast.vaults.main.id
  ;({ services, dispose } = testServices())
  dispatch = createDispatcher(createHandlers(services), services.log)
  const added = await call<{ connection: { id: string } }>('connections.add', {
    name: 'Demo',
    baseUrl: sim.baseUrl,
    token: sim.cast.users.admin.tokens[0]!,
    sessionOnly: true,
  })
  connectionId = added.connection.id
  const synced = nextEvent(
    services,
    'sync.changed',
    (state) => state.connectionId === connectionId && !state.running,
  )
  await call('sync.start', { connectionId })
  expect(await synced).toMatchObject({ lastOutcome: 'completed' })
  cache = services.runtimes.get(connectionId).cache
  cache.readoutIndex().complete()
  writeFixture()
}, 120_000)

afterAll(async () => {
  await dispose?.()
  await sim?.stop()
})

const quality = (args: Record<string, unknown>) =>
  call<PlateQualityAnswer>('plates.quality', { connectionId, vaultId: main, ...args })

describe('a fixture plate against values worked out by hand', () => {
  it("gives its controls, Z', Z and signal window, leaving out an outlier, a qualified value and a text", async () => {
    const answer = await quality({ plateId: fixture.plate })
    expect(answer.plate).toEqual({
      id: fixture.plate,
      name: 'FIX-P001',
      size: 96,
      location: 'Bench',
    })
    expect(answer.backlog).toEqual({ rows: 0, groups: 0 })
    expect(answer.readouts).toEqual([
      {
        runId: fixture.run,
        runDate: '2026-01-05',
        protocolId: fixture.protocol,
        protocolName: 'Fixture plate assay',
        definitionId: fixture.signal,
        name: 'Signal',
        unit: 'RLU',
        wells: 19,
        // Unqualified numbers: E03 (>200) and E04 (n/a) are not.
        numbers: 17,
        controls: { positive: 5, negative: 4 },
      },
    ])
    const { statistics, wells } = answer.chosen!
    expect(statistics.groups.positive).toMatchObject({ n: 4, mean: 100 })
    expect(statistics.groups.positive.standardDeviation).toBeCloseTo(3.2659863, 6)
    expect(statistics.groups.negative).toMatchObject({ n: 4, mean: 10 })
    expect(statistics.groups.negative.standardDeviation).toBeCloseTo(1.6329932, 6)
    expect(statistics.groups.samples).toMatchObject({ n: 8, mean: 10 })
    expect(statistics.groups.samples.standardDeviation).toBeCloseTo(5.976143, 6)
    expect(statistics.zPrime.value).toBeCloseTo(0.8367007, 6)
    expect(statistics.z.value).toBeCloseTo(0.691929, 6)
    expect(statistics.signalWindow.value).toBeCloseTo(23.0567, 3)
    expect(statistics.signalToBackground.value).toBe(10)
    expect(statistics.flag).toEqual({ level: 'ok', reasons: [] })
    // Left out, and said so, well by well.
    expect(statistics.wells).toEqual({ total: 19, used: 16, unplaced: 0, excluded: 3 })
    expect(statistics.exclusions).toEqual({
      outlier: 1,
      'qualified value': 1,
      'text value': 1,
    })
    const byWell = new Map(wellRows(wells).map((well) => [well.well, well]))
    expect(byWell.get('E01')).toMatchObject({ number: 500, outlier: true, excluded: 'outlier' })
    expect(byWell.get('E03')).toMatchObject({
      number: 200,
      modifier: '>',
      excluded: 'qualified value',
    })
    expect(byWell.get('E04')).toMatchObject({ kind: 'text', text: 'n/a', excluded: 'text value' })
    expect(byWell.get('B01')).toMatchObject({ group: 'positive', level: 1, excluded: null })
    expect(byWell.get('B01')!.deviation).toBeCloseTo(4 / 3.2659863, 6)
    // Sample row means: A 12.5, B 7.5, C 10, D 10; columns 3: 6.25 and 4: 13.75.
    expect(statistics.rows.slice(0, 4).map((line) => line.mean)).toEqual([12.5, 7.5, 10, 10])
    expect(statistics.columns.slice(2, 4).map((line) => line.mean)).toEqual([6.25, 13.75])
  })

  it('flags the plate by the thresholds the person sets', async () => {
    const warned = await quality({
      plateId: fixture.plate,
      quality: { thresholds: { zPrimeWarningBelow: 0.9 } },
    })
    expect(warned.chosen!.statistics.flag).toEqual({
      level: 'warning',
      reasons: ["Z' 0.84 is below 0.9"],
    })
    const failed = await quality({
      plateId: fixture.plate,
      quality: { thresholds: { zPrimeWarningBelow: 0.95, zPrimeFailureBelow: 0.9 } },
    })
    expect(failed.chosen!.statistics.flag.level).toBe('failure')
    // One SD: the four control wells 1.22 SD from their means are now beyond the last level.
    const strict = await quality({
      plateId: fixture.plate,
      quality: { thresholds: { deviationLevels: [1] } },
    })
    expect(strict.chosen!.statistics.controlWellsBeyond).toEqual([4])
    expect(strict.chosen!.statistics.flag.level).toBe('warning')
  })

  it("takes a well marked as an outlier offline out of Z' at once", async () => {
    const b02 = fixture.plate + fixture.wells.findIndex(([well]) => well === 'B02')
    const [item] = await call<OutboxItemView[]>('outbox.queue', {
      connectionId,
      vaultId: main,
      operation: 'readout.update',
      payload: { row: b02, readouts: { [fixture.signal]: { outlier: true } } },
    })
    try {
      const answer = await quality({ plateId: fixture.plate })
      const { statistics, wells } = answer.chosen!
      expect(wellAt(wells, wells.rowId.indexOf(b02))).toMatchObject({
        outlier: true,
        excluded: 'outlier',
        pending: { state: 'queued', itemIds: [item!.id] },
      })
      expect(statistics.groups.negative.n).toBe(3)
      expect(statistics.groups.negative.standardDeviation).toBeCloseTo(1.1547005, 6)
      expect(statistics.zPrime.value).toBeCloseTo(0.8537273, 6)
      expect(statistics.exclusions.outlier).toBe(2)
    } finally {
      await call('outbox.discard', { id: item!.id })
    }
    const restored = await quality({ plateId: fixture.plate })
    expect(restored.chosen!.statistics.zPrime.value).toBeCloseTo(0.8367007, 6)
  })

  it("keeps the plate's rows and counts between questions, and drops them when one of its readout rows changes", async () => {
    const before = await quality({ plateId: fixture.plate })
    const walked = PlateQueries.layoutsWalked
    const again = await quality({ plateId: fixture.plate })
    expect(PlateQueries.layoutsWalked, 'asked again with the cache unchanged').toBe(walked)
    expect(again).toEqual(before)
    expect(before.readouts[0]!.controls).toEqual({ positive: 5, negative: 4 })

    const a03 = fixture.wells.findIndex(([well]) => well === 'A03')
    const [, , value] = fixture.wells[a03]!
    try {
      cache.applyPage('readout_rows', main, [
        { ...fixtureRow(fixture.wells[a03]!, a03), control_state: '-', batch: null },
      ])
      cache.readoutIndex().complete()
      const changed = await quality({ plateId: fixture.plate })
      expect(PlateQueries.layoutsWalked).toBe(walked + 1)
      expect(changed.readouts[0]!.controls).toEqual({ positive: 5, negative: 5 })
      expect(changed.rows.controlState[changed.rows.rowId.indexOf(fixture.plate + a03)]).toBe('-')
      expect(changed.chosen!.statistics.groups.negative.n).toBe(5)
      expect(changed.chosen!.statistics.groups.negative.mean).toBeCloseTo(
        (40 + Number(value)) / 5,
        9,
      )
    } finally {
      cache.applyPage('readout_rows', main, [fixtureRow(fixture.wells[a03]!, a03)])
      cache.readoutIndex().complete()
    }
    const restored = await quality({ plateId: fixture.plate })
    expect(PlateQueries.layoutsWalked).toBe(walked + 2)
    expect(restored).toEqual(before)
  })

  it("reads the plate's record again once the plate has changed", async () => {
    const record = { id: fixture.plate, size: 96, location: 'Bench', wells: [] }
    expect((await quality({ plateId: fixture.plate })).plate.name).toBe('FIX-P001')
    try {
      cache.applyPage('plates', main, [{ ...record, name: 'FIX-P001 (read again)' }])
      expect((await quality({ plateId: fixture.plate })).plate.name).toBe('FIX-P001 (read again)')
    } finally {
      cache.applyPage('plates', main, [{ ...record, name: 'FIX-P001' }])
    }
    expect((await quality({ plateId: fixture.plate })).plate.name).toBe('FIX-P001')
  })

  it('shows the run’s plates with the same statistics', async () => {
    const run = await call<RunPlatesQualityAnswer>('plates.ofRun', {
      connectionId,
      vaultId: main,
      runId: fixture.run,
    })
    expect(run).toMatchObject({
      runId: fixture.run,
      protocolName: 'Fixture plate assay',
      definitionId: fixture.signal,
    })
    expect(run.plates).toHaveLength(1)
    expect(run.plates[0]!.plate.name).toBe('FIX-P001')
    expect(run.plates[0]!.statistics.zPrime.value).toBeCloseTo(0.8367007, 6)
  })
})

/** The demo's plates as the cache holds them, each with its readout rows' JSON. */
function demoPlates(): {
  id: number
  name: string
  size: number | null
  statistics: unknown[]
  rows: unknown[]
}[] {
  return cache
    .list('plates', main, { limit: 100 })
    .records.filter((plate) => toNumber(plate.id) !== fixture.plate)
    .map((plate) => ({
      size: toNumber(plate.size),
      id: toNumber(plate.id)!,
      name: toText(plate.name)!,
      statistics: Array.isArray(plate.statistics) ? plate.statistics : [],
      rows: cache.list('readout_rows', main, {
        filters: { plate_id: toNumber(plate.id)! },
        limit: 5000,
      }).records,
    }))
    .filter((plate) => plate.rows.length > 0)
}

/** A readout's values on a plate, by group, read from the rows the vault sent. */
function referenceInput(rows: readonly unknown[], definitionId: number): ReferenceInput {
  const input: ReferenceInput = { positive: [], negative: [], samples: [] }
  for (const row of rows) {
    if (!isObject(row) || !isObject(row.readouts)) continue
    const cell = row.readouts[String(definitionId)]
    if (!isObject(cell) || cell.outlier === true || cell.modifier) continue
    if (typeof cell.value !== 'number') continue
    const control = toText(row.control_state)
    const group = control === '+' ? 'positive' : control === '-' ? 'negative' : 'samples'
    input[group].push(cell.value)
  }
  return input
}

describe('the demo vault’s plates', () => {
  it('choose a readout with both controls, and name every readout measured on the plate', async () => {
    const plates = demoPlates()
    expect(plates.length).toBeGreaterThanOrEqual(5)
    for (const plate of plates) {
      const answer = await quality({ plateId: plate.id })
      expect(answer.plate.size).toBe(plate.size)
      const chosen = answer.chosen!
      expect(chosen.readout.controls.positive).toBeGreaterThanOrEqual(2)
      expect(chosen.readout.controls.negative).toBeGreaterThanOrEqual(2)
      expect(answer.readouts.map((readout) => readout.name)).toContain('% Inhibition')
      // Every detail row on the plate with a cell of the readout is a well of the answer.
      const withCell = plate.rows.filter(
        (row) =>
          isObject(row) &&
          isObject(row.readouts) &&
          isObject(row.readouts[String(chosen.readout.definitionId)]),
      )
      expect(wellCount(chosen.wells)).toBe(withCell.length)
      // Sample wells beside the controls.
      expect(wellCount(chosen.wells)).toBeGreaterThan(
        chosen.readout.controls.positive + chosen.readout.controls.negative,
      )
    }
  })

  it.skipIf(!scipyHere)(
    "agree with NumPy and SciPy on every plate and readout with controls: means, SDs, Z', Z, signal window",
    async () => {
      const inputs: Record<string, ReferenceInput> = {}
      const answers = new Map<string, PlateQualityAnswer>()
      for (const plate of demoPlates()) {
        const first = await quality({ plateId: plate.id })
        for (const readout of first.readouts) {
          if (readout.controls.positive < 2 || readout.controls.negative < 2) continue
          const key = `${plate.id}:${readout.definitionId}`
          answers.set(key, await quality({ plateId: plate.id, definitionId: readout.definitionId }))
          inputs[key] = referenceInput(plate.rows, readout.definitionId)
        }
      }
      expect(Object.keys(inputs).length).toBeGreaterThanOrEqual(10)
      const reference = scipyStatistics(inputs)
      const close = (ours: number | null, theirs: number | null, what: string) => {
        expect(ours, what).not.toBeNull()
        expect(Math.abs(ours! - theirs!), what).toBeLessThanOrEqual(
          1e-9 * Math.max(1, Math.abs(theirs!)),
        )
      }
      for (const [key, answer] of answers) {
        const ours = answer.chosen!.statistics
        const theirs = reference[key]!
        close(ours.groups.positive.mean, theirs.positive[0], `${key} positive mean`)
        close(ours.groups.positive.standardDeviation, theirs.positive[1], `${key} positive SD`)
        close(ours.groups.negative.mean, theirs.negative[0], `${key} negative mean`)
        close(ours.groups.negative.standardDeviation, theirs.negative[1], `${key} negative SD`)
        close(ours.groups.samples.mean, theirs.samples[0], `${key} samples mean`)
        close(ours.zPrime.value, theirs.zPrime, `${key} Z'`)
        close(ours.z.value, theirs.z, `${key} Z`)
        close(ours.signalWindow.value, theirs.signalWindow, `${key} signal window`)
        close(ours.signalToBackground.value, theirs.signalToBackground, `${key} S/B`)
      }
    },
  )

  it("agree with the vault's own plate statistics (Z' and controls, to its four digits)", async () => {
    let compared = 0
    for (const plate of demoPlates()) {
      for (const statistic of plate.statistics) {
        if (!isObject(statistic)) continue
        const definitionId = toLinkId(statistic.readout_definition)!
        const answer = await quality({
          plateId: plate.id,
          definitionId,
          runId: toLinkId(statistic.run)!,
        })
        const ours = answer.chosen!.statistics
        const four = (value: number | null) =>
          value === null ? null : Number(value.toPrecision(4))
        expect(four(ours.zPrime.value), `${plate.name} ${definitionId}`).toBe(
          toNumber(statistic.z_prime),
        )
        const positive = statistic.positive_controls as Record<string, number>
        expect(ours.groups.positive.n).toBe(positive.count)
        expect(four(ours.groups.positive.mean)).toBe(positive.mean)
        compared += 1
      }
    }
    expect(compared).toBeGreaterThanOrEqual(10)
  })

  it('show each run’s plate with the statistics of its plate page', async () => {
    const runs = cache.list('runs', main, { limit: 200 }).records
    let withPlates = 0
    for (const run of runs) {
      const answer = await call<RunPlatesQualityAnswer>('plates.ofRun', {
        connectionId,
        vaultId: main,
        runId: toNumber(run.id)!,
      })
      for (const shown of answer.plates) {
        const page = await quality({
          plateId: shown.plate.id,
          definitionId: answer.definitionId!,
          runId: answer.runId,
        })
        expect(shown.statistics).toEqual(page.chosen!.statistics)
        expect(shown.wells).toEqual(page.chosen!.wells)
        withPlates += 1
      }
    }
    expect(withPlates).toBeGreaterThanOrEqual(5)
  })

  it('find a plate’s and a run’s cells through the indexes, never by scanning the value index', () => {
    const db = new Database(cache.file, { readonly: true })
    try {
      const parameters = {
        plateLayout: [main, fixture.plate],
        plateCells: [main, fixture.plate, fixture.signal, fixture.run],
        plateBatches: [main, '[1, 2, 3]'],
        runReadouts: [main, fixture.run],
        runCells: [main, fixture.run, fixture.signal],
      }
      for (const [name, sql] of Object.entries(plateSql)) {
        const plan = db
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...parameters[name as keyof typeof plateSql]) as { detail: string }[]
        const details = plan.map((step) => step.detail).join('\n')
        // The batches' one walk is over the ids given to it.
        expect(details.replace('SCAN json_each VIRTUAL TABLE', ''), name).not.toMatch(/SCAN/)
        if (name === 'plateBatches') {
          expect(details, name).toMatch(/^SEARCH batches USING .*\(vault_id=\? AND id=\?\)/)
          continue
        }
        // A plate's rows from its index alone (cache step 14), without their table rows.
        expect(details, name).toMatch(
          name.startsWith('plate')
            ? /^SEARCH r USING COVERING INDEX readout_rows_by_plate_id/
            : /^SEARCH r USING INDEX readout_rows_by_run_id/,
        )
        expect(details, name).toMatch(/SEARCH v USING PRIMARY KEY \(vault_id=\? AND row_id=\?/)
      }
    } finally {
      db.close()
    }
  })
})

describe("a plate's wells as columns", () => {
  /** Every cached plate with readout rows, the fixture's among them, with its rows' JSON by id. */
  function platesWithRows() {
    return cache
      .list('plates', main, { limit: 100 })
      .records.map((plate) => {
        const id = toNumber(plate.id)!
        const rows = cache
          .list('readout_rows', main, { filters: { plate_id: id }, limit: 5000 })
          .records.filter(isObject)
        return { id, rows }
      })
      .filter((plate) => plate.rows.length > 0)
  }

  it('hold, well by well, the values, marks and controls of the readout rows the vault sent', async () => {
    const plates = platesWithRows()
    expect(plates.map((plate) => plate.id)).toContain(fixture.plate)
    let compared = 0
    const kinds = new Set<string>()
    for (const plate of plates) {
      const rowsById = new Map(plate.rows.map((row) => [toNumber(row.id)!, row]))
      const first = await quality({ plateId: plate.id })
      for (const readout of first.readouts) {
        const answer = await quality({
          plateId: plate.id,
          definitionId: readout.definitionId,
          ...(readout.runId === null ? {} : { runId: readout.runId }),
        })
        const { wells } = answer.chosen!
        const count = wellCount(wells)
        for (const [field, column] of Object.entries(wells)) {
          expect(column, `${plate.id}:${readout.definitionId} ${field}`).toHaveLength(count)
        }
        expect(count).toBe(readout.wells)
        for (let index = 0; index < count; index += 1) {
          const row = rowsById.get(wells.rowId[index]!)!
          const cell = (row.readouts as Record<string, Record<string, unknown>>)[
            String(readout.definitionId)
          ]!
          const where = `plate ${plate.id}, readout ${readout.definitionId}, row ${row.id}`
          expect(wells.well[index], where).toBe(toText(row.well))
          expect(wells.controlState[index], where).toBe(row.control_state ?? null)
          expect(wells.batchId[index], where).toBe(toLinkId(row.batch))
          expect(wells.outlier[index], where).toBe(cell.outlier === true)
          expect(wells.modifier[index], where).toBe(toText(cell.modifier))
          expect(wells.note[index], where).toBe(toText(cell.note))
          kinds.add(wells.kind[index]!)
          if (typeof cell.value === 'number') {
            expect(wells.kind[index], where).toBe('number')
            expect(wells.number[index], where).toBe(cell.value)
          } else if (typeof cell.value === 'string' && wells.kind[index] === 'text') {
            expect(wells.text[index], where).toBe(cell.value)
          }
          compared += 1
        }
        // The rows in id order, as the value index keys them.
        expect(wells.rowId).toEqual([...wells.rowId].sort((a, b) => a - b))
      }
      // Every readout row of the plate, whichever readout, for its layout.
      const ids = [...rowsById.keys()].sort((a, b) => a - b)
      expect(first.rows.rowId).toEqual(ids)
      expect(first.rows.well).toEqual(ids.map((id) => toText(rowsById.get(id)!.well)))
      expect(first.rows.controlState).toEqual(
        ids.map((id) => rowsById.get(id)!.control_state ?? null),
      )
    }
    expect(compared).toBeGreaterThan(1000)
    expect(kinds).toEqual(new Set(['number', 'text']))
  })

  it('come with the names of the batches the plate’s wells and readout rows hold, as their pages are titled', async () => {
    const titleOf = (batchId: number) => {
      const batch = cache.get('batches', main, batchId)
      return batch ? recordTitle(kindDeclaration('batches'), batch) : null
    }
    let named = 0
    for (const plate of cache.list('plates', main, { limit: 100 }).records.filter(isObject)) {
      const id = toNumber(plate.id)!
      const rows = cache
        .list('readout_rows', main, { filters: { plate_id: id }, limit: 5000 })
        .records.filter(isObject)
      const held = [
        ...toObjects(plate.wells).map((well) => toLinkId(well.batch)),
        ...rows.map((row) => toLinkId(row.batch)),
      ].filter((batchId): batchId is number => batchId !== null && titleOf(batchId) !== null)
      const expected = [...new Set(held)].sort((a, b) => a - b)
      const answer = await quality({ plateId: id })
      expect(answer.batches.id, `plate ${id}`).toEqual(expected)
      expect(answer.batches.name, `plate ${id}`).toEqual(expected.map(titleOf))
      named += expected.length
    }
    expect(named).toBeGreaterThan(10)
    // The fixture plate's wells list no batches; its samples' rows name batch 1.
    expect((await quality({ plateId: fixture.plate })).batches).toEqual({
      id: [1],
      name: [titleOf(1)],
    })
  })

  it("give one well as an object, refusing an index outside the plate's wells", async () => {
    const { wells } = (await quality({ plateId: fixture.plate })).chosen!
    const e03 = wells.well.indexOf('E03')
    expect(wellAt(wells, e03)).toEqual({
      rowId: fixture.plate + fixture.wells.findIndex(([well]) => well === 'E03'),
      well: 'E03',
      batchId: 1,
      moleculeId: null,
      controlState: null,
      kind: 'number',
      number: 200,
      modifier: '>',
      text: wells.text[e03],
      outlier: false,
      note: null,
      pending: null,
      group: null,
      deviation: null,
      level: 0,
      excluded: 'qualified value',
    })
    expect(wellRows(wells).map((well) => well.well)).toEqual(wells.well)
    expect(() => wellAt(wells, 19)).toThrow("Well 19 is not among the plate's 19 wells (0 to 18).")
    expect(() => wellAt(wells, -1)).toThrow(/not among the plate's 19 wells/)
  })
})

describe('refusals that name what is wrong', () => {
  it('for a plate or run the cache does not hold', async () => {
    expect(
      await refusal('plates.quality', { connectionId, vaultId: main, plateId: 7_777_777 }),
    ).toEqual({
      code: 'not_found',
      message: `Plate 7777777 is not in the local copy of vault ${main}.`,
    })
    expect(
      await refusal('plates.ofRun', { connectionId, vaultId: main, runId: 7_777_777 }),
    ).toMatchObject({
      code: 'not_found',
    })
  })

  it('for a readout the plate does not have, listing those it has', async () => {
    const error = await refusal('plates.quality', {
      connectionId,
      vaultId: main,
      plateId: fixture.plate,
      definitionId: 424242,
    })
    expect(error.code).toBe('not_found')
    expect(error.message).toBe(
      `The plate FIX-P001 has no readout 424242. Its readouts: Signal (${fixture.signal}, run ${fixture.run}).`,
    )
  })

  it('for thresholds that cannot hold', async () => {
    const error = await refusal('plates.quality', {
      connectionId,
      vaultId: main,
      plateId: fixture.plate,
      quality: { thresholds: { zPrimeWarningBelow: 0.2, zPrimeFailureBelow: 0.5 } },
    })
    expect(error.code).toBe('invalid_argument')
    expect(error.message).toMatch(/failure threshold must not be above the warning threshold/)
    const negative = await refusal('plates.quality', {
      connectionId,
      vaultId: main,
      plateId: fixture.plate,
      quality: { thresholds: { deviationLevels: [-1] } },
    })
    expect(negative.code).toBe('invalid_argument')
  })
})
