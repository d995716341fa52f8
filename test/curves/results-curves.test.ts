/**
 * Curves in the results table (`curves.ofResults`), against the demo vault synced into a real
 * cache through the services and the IPC contract: the rows are those `results.table` answers for
 * a dose-response protocol's IC50 column, per batch and per molecule, and each row's series must
 * be exactly those the batch page shows (`curves.ofBatch`), for a molecule those of every batch
 * its own record lists, with the same fits. The "Curve" columns stand after the calculation's
 * readouts, and only the rows asked are read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type {
  CurveCalculation,
  CurveSeries,
  CurvesAnswer,
  RequestResult,
} from '../../src-main/ipc/contract.ts'
import type { Services } from '../../src-main/services/index.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { isObject, toId } from '../../src-common/values.ts'
import { nextEvent, testServices } from '../services/support.ts'
import { startDemoSim } from '../sync/support.ts'

type ResultsCurves = RequestResult<'curves.ofResults'>
type TableAnswer = RequestResult<'results.table'>

let sim: VaultSim
let services: Services
let dispose: () => Promise<void>
let dispatch: Dispatch
let connectionId: string
let main: number
/** A dose-response protocol of the demo vault with the most series, and its calculations. */
let protocolId: number
let calculations: CurveCalculation[]
/** Every protocol of the demo vault, with its dose-response calculations (maybe none). */
const calculationsOf = new Map<number, CurveCalculation[]>()

async function call<T>(channel: string, args: unknown): Promise<T> {
  const result = await dispatch(channel, args)
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`)
  return result.value as T
}

/** The IC50 of the curve a series draws, as the panel marks it. */
function drawnIc50(series: CurveSeries): number | null {
  const value = series.drawn?.equationType === 'Hill' ? series.drawn.parameters.ic50 : undefined
  return value !== undefined && value > 0 ? value : null
}

/** The median of positive numbers on a log scale (of an even count, the middle two's). */
function logMedian(values: number[]): number | null {
  if (values.length === 0) return null
  const logs = values.map(Math.log10).sort((a, b) => a - b)
  const middle = (logs.length - 1) / 2
  return 10 ** ((logs[Math.floor(middle)]! + logs[Math.ceil(middle)]!) / 2)
}

function resultColumn(calculation: CurveCalculation) {
  return { protocolId: calculation.protocolId, definitionId: calculation.result!.definitionId }
}

async function batchPage(batchId: number): Promise<CurveSeries[]> {
  const answer = await call<CurvesAnswer>('curves.ofBatch', {
    connectionId,
    vaultId: main,
    batchId,
    protocolId,
  })
  return answer.series
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
  services.runtimes.get(connectionId).cache.readoutIndex().complete()
  let most = -1
  for (const protocol of services.results.catalogue(connectionId, main).protocols) {
    const answer = await call<CurvesAnswer>('curves.ofProtocol', {
      connectionId,
      vaultId: main,
      protocolId: protocol.id,
      limit: 1,
    })
    calculationsOf.set(protocol.id, answer.calculations)
    const withResult = answer.calculations.filter((calculation) => calculation.result !== null)
    if (withResult.length > 0 && answer.total > most) {
      most = answer.total
      protocolId = protocol.id
      calculations = answer.calculations
    }
  }
  expect(most).toBeGreaterThan(0)
}, 180_000)

afterAll(async () => {
  await dispose?.()
  await sim?.stop()
})

describe('curves of a results table’s rows', () => {
  it('gives each batch row exactly the series its batch page shows, with the same fits', async () => {
    const calculation = calculations.find((entry) => entry.result !== null)!
    const column = resultColumn(calculation)
    const table = await call<TableAnswer>('results.table', {
      connectionId,
      vaultId: main,
      level: 'batch',
      columns: [column],
      limit: 30,
    })
    const withValue = table.rows.filter((row) => row.cells[0] !== null)
    expect(withValue.length).toBeGreaterThan(3)
    const subjectIds = withValue.map((row) => row.subjectId)
    const answer = await call<ResultsCurves>('curves.ofResults', {
      connectionId,
      vaultId: main,
      level: 'batch',
      subjectIds,
      columns: [column],
    })
    expect(answer.columns.map((entry) => entry.calculation.id)).toContain(calculation.id)
    expect(answer.columns.find((entry) => entry.calculation.id === calculation.id)!.after).toEqual(
      column,
    )
    let compared = 0
    for (const batchId of subjectIds) {
      const page = (await batchPage(batchId)).filter(
        (series) => series.calculationId === calculation.id,
      )
      const row = answer.rows.find(
        (entry) => entry.subjectId === batchId && entry.calculationId === calculation.id,
      )
      if (page.length === 0) {
        expect(row, `batch ${batchId} has no series`).toBeUndefined()
        continue
      }
      expect(row, `batch ${batchId}`).toBeDefined()
      expect(row!.total).toBe(page.length)
      const shown = row!.series.map((series) => series.id).sort((a, b) => a - b)
      const expected = page.map((series) => series.id).sort((a, b) => a - b)
      if (page.length <= 8) expect(shown).toEqual(expected)
      else for (const id of shown) expect(expected).toContain(id)
      for (const series of row!.series) {
        const same = page.find((entry) => entry.id === series.id)!
        expect(series.points).toEqual(same.points)
        expect(series.drawn).toEqual(same.drawn)
        expect(series.local.potency).toEqual(same.local.potency)
      }
      const ic50s = page.flatMap((series) => drawnIc50(series) ?? [])
      const median = logMedian(ic50s)
      if (median === null) expect(row!.potency).toBeNull()
      else {
        expect(row!.potency!.count).toBe(ic50s.length)
        expect(row!.potency!.median).toBeCloseTo(median, 9)
        // The first series drawn is the one whose IC50 is the median (of two middle, the lower).
        const sorted = [...ic50s].sort((a, b) => a - b)
        expect(drawnIc50(row!.series[0]!)).toBe(sorted[Math.floor((sorted.length - 1) / 2)])
      }
      compared += 1
    }
    expect(compared).toBeGreaterThan(3)
    // Only the rows asked are answered.
    for (const row of answer.rows) expect(subjectIds).toContain(row.subjectId)
  })

  it('gives a molecule row the series of every batch its record lists', async () => {
    const calculation = calculations.find((entry) => entry.result !== null)!
    const column = resultColumn(calculation)
    const table = await call<TableAnswer>('results.table', {
      connectionId,
      vaultId: main,
      level: 'molecule',
      columns: [column],
      limit: 20,
    })
    const subjectIds = table.rows.filter((row) => row.cells[0] !== null).map((row) => row.subjectId)
    expect(subjectIds.length).toBeGreaterThan(3)
    const answer = await call<ResultsCurves>('curves.ofResults', {
      connectionId,
      vaultId: main,
      level: 'molecule',
      subjectIds,
      columns: [column],
    })
    let withSeries = 0
    for (const moleculeId of subjectIds) {
      const molecule = await call<{ record: { json: Record<string, unknown> } } | null>(
        'records.get',
        { connectionId, vaultId: main, kind: 'molecules', id: moleculeId },
      )
      const listed = molecule?.record.json.batches
      const batchIds = (Array.isArray(listed) ? listed : []).flatMap((batch) => {
        const id = isObject(batch) ? toId(batch.id) : null
        return id === null ? [] : [id]
      })
      const expected: CurveSeries[] = []
      for (const batchId of batchIds) {
        expected.push(
          ...(await batchPage(batchId)).filter((series) => series.calculationId === calculation.id),
        )
      }
      const row = answer.rows.find(
        (entry) => entry.subjectId === moleculeId && entry.calculationId === calculation.id,
      )
      expect(row?.total ?? 0, `molecule ${moleculeId}`).toBe(expected.length)
      if (!row) continue
      withSeries += 1
      const ids = new Set(expected.map((series) => series.id))
      for (const series of row.series) expect(ids.has(series.id)).toBe(true)
      expect(row.series.length).toBe(Math.min(8, expected.length))
      const median = logMedian(expected.flatMap((series) => drawnIc50(series) ?? []))
      if (median === null) expect(row.potency).toBeNull()
      else expect(row.potency!.median).toBeCloseTo(median, 9)
    }
    expect(withSeries).toBeGreaterThan(3)
  })

  it('places the Curve columns after their readouts, and none for a protocol not shown', async () => {
    const calculation = calculations.find((entry) => entry.result !== null)!
    const response = calculation.response!
    const columns = [{ protocolId, definitionId: response.definitionId }, resultColumn(calculation)]
    const answer = await call<ResultsCurves>('curves.ofResults', {
      connectionId,
      vaultId: main,
      level: 'batch',
      subjectIds: [],
      columns,
    })
    // Its result readout is shown, so the curve follows it rather than the response readout.
    expect(answer.columns.find((entry) => entry.calculation.id === calculation.id)?.after).toEqual(
      columns[1],
    )
    expect(answer.rows).toEqual([])
    const protocols = services.results.catalogue(connectionId, main).protocols
    const without = protocols.find(
      (protocol) => protocol.readouts.length > 0 && calculationsOf.get(protocol.id)?.length === 0,
    )
    expect(without, 'a demo protocol without dose-response calculations').toBeDefined()
    // A readout that is none of its protocol's calculations' gets them all after it.
    const other = protocols.find(
      (protocol) =>
        protocol.id !== protocolId && (calculationsOf.get(protocol.id)?.length ?? 0) > 0,
    )
    const otherReadout = other?.readouts.find((readout) =>
      calculationsOf
        .get(other.id)!
        .every((entry) =>
          [entry.result, entry.response, entry.concentration].every(
            (used) => used?.definitionId !== readout.id,
          ),
        ),
    )
    expect(
      otherReadout,
      'a readout of a dose-response protocol that no calculation uses',
    ).toBeDefined()
    const mixed = await call<ResultsCurves>('curves.ofResults', {
      connectionId,
      vaultId: main,
      level: 'molecule',
      subjectIds: [1, 2, 3],
      columns: [
        { protocolId: without!.id, definitionId: without!.readouts[0]!.id },
        ...(other && otherReadout ? [{ protocolId: other.id, definitionId: otherReadout.id }] : []),
      ],
    })
    expect(mixed.columns.filter((entry) => entry.calculation.protocolId === without!.id)).toEqual(
      [],
    )
    if (other && otherReadout) {
      expect(mixed.columns.map((entry) => entry.calculation.id).sort()).toEqual(
        calculationsOf
          .get(other.id)!
          .map((entry) => entry.id)
          .sort(),
      )
      for (const entry of mixed.columns) {
        expect(entry.after).toEqual({ protocolId: other.id, definitionId: otherReadout.id })
      }
    }
  })

  it('reuses the fits the second time the same rows are asked', async () => {
    const calculation = calculations.find((entry) => entry.result !== null)!
    const table = await call<TableAnswer>('results.table', {
      connectionId,
      vaultId: main,
      level: 'batch',
      columns: [resultColumn(calculation)],
      limit: 10,
      offset: 5,
    })
    const question = {
      connectionId,
      vaultId: main,
      level: 'batch',
      subjectIds: table.rows.map((row) => row.subjectId),
      columns: [resultColumn(calculation)],
    }
    await call<ResultsCurves>('curves.ofResults', question)
    const again = await call<ResultsCurves>('curves.ofResults', question)
    expect(again.fits.computed).toBe(0)
    expect(again.fits.reused).toBeGreaterThan(0)
  })

  it('refuses a question it cannot answer, saying what is wrong', async () => {
    const tooMany = await dispatch('curves.ofResults', {
      connectionId,
      vaultId: main,
      level: 'batch',
      subjectIds: Array.from({ length: 501 }, (_, index) => index + 1),
      columns: [],
    })
    expect(tooMany.ok).toBe(false)
    if (!tooMany.ok) expect(tooMany.error.message).toMatch(/subjectIds/)
    const level = await dispatch('curves.ofResults', {
      connectionId,
      vaultId: main,
      level: 'plate',
      subjectIds: [1],
      columns: [],
    })
    expect(level.ok).toBe(false)
    if (!level.ok) expect(level.error.message).toMatch(/level/)
  })
})
