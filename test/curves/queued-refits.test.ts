/**
 * The queued refits of issue 29, through the services and the IPC contract with the outbox and
 * sync running as in the window, while the vault does not answer (a real TCP relay switched off):
 *
 * - a well of a fitted curve marked as an outlier: the curve is fitted again at once without it
 *   and the pending mark shows; when the vault answers the correction is sent exactly once (the
 *   simulator counts the PUTs it received), and the next sync brings the vault's own refit, which
 *   agrees with the local one and is drawn again;
 * - new fit constraints of a series: edits the specification rejects are refused before queueing
 *   in its words; a valid one refits the curve at once with them (checked against SciPy's
 *   curve_fit with the same constraint, in this run), is sent once, and the vault's refit with the
 *   new constraints replaces the local one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type { CurveSeries, CurvesAnswer, OutboxItemView } from '../../src-main/ipc/contract.ts'
import type { Services } from '../../src-main/services/index.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { networkSwitch, type NetworkSwitch } from '../outbox/support/network-switch.ts'
import { nextEvent, testServices } from '../services/support.ts'
import { startDemoSim } from '../sync/support.ts'
import { referenceProblem, scipyFits, scipyHere } from './scipy-reference.ts'

const kinaseName = 'Kinase IC50 (ADP-Glo)'
const putRow = 'PUT /vaults/{vault_id}/readout_rows/{readout_row_id}'
const putSeries =
  'PUT /vaults/{vault_id}/protocols/{protocol_id}/dose_response_calculations/{dose_response_calculation_id}/dose_response_data_series/{dose_response_data_series_id}'

let sim: VaultSim
let network: NetworkSwitch
let services: Services
let dispose: () => Promise<void>
let dispatch: Dispatch
let connectionId: string
let main: number

async function call<T>(channel: string, args: unknown): Promise<T> {
  const result = await dispatch(channel, args)
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`)
  return result.value as T
}

async function waitUntil(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 60_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function syncOnce(): Promise<void> {
  const synced = nextEvent(
    services,
    'sync.changed',
    (state) => state.connectionId === connectionId && !state.running,
  )
  await call('sync.start', { connectionId })
  expect(await synced).toMatchObject({ lastOutcome: 'completed' })
  services.runtimes.get(connectionId).cache.readoutIndex().complete()
}

beforeAll(async () => {
  sim = await startDemoSim()
  main = sim.cast.vaults.main.id
  network = await networkSwitch(Number(new URL(sim.baseUrl).port))
  // As the window runs: the outbox sends in the background and sync follows reconnection.
  ;({ services, dispose } = testServices({ background: true }))
  dispatch = createDispatcher(createHandlers(services), services.log)
  const first = nextEvent(
    services,
    'sync.changed',
    (state) => !state.running && state.lastOutcome === 'completed',
  )
  const added = await call<{ connection: { id: string } }>('connections.add', {
    name: 'Demo',
    baseUrl: `http://127.0.0.1:${network.port}/api/v1`,
    token: sim.cast.users.admin.tokens[0]!,
    sessionOnly: true,
  })
  connectionId = added.connection.id
  await first
  services.runtimes.get(connectionId).cache.readoutIndex().complete()
}, 180_000)

afterAll(async () => {
  await dispose?.()
  await network?.close()
  await sim?.stop()
})

describe('an outlier marked offline', () => {
  it('refits at once, is sent once when the vault answers, and the vault’s refit comes back', async () => {
    const protocol = services.results
      .catalogue(connectionId, main)
      .protocols.find((entry) => entry.name === kinaseName)!
    const ask = (seriesId: number) =>
      call<CurvesAnswer>('curves.ofProtocol', {
        connectionId,
        vaultId: main,
        protocolId: protocol.id,
        seriesId,
      }).then((answer) => answer.series[0]!)
    const whole = await call<CurvesAnswer>('curves.ofProtocol', {
      connectionId,
      vaultId: main,
      protocolId: protocol.id,
      limit: 1000,
    })
    const calculation = whole.calculations[0]!
    // A curve the vault drew over the cached points, with a well far from it to take out.
    const before = whole.series.find(
      (entry) =>
        entry.local.converged && entry.local.points.used >= 12 && entry.drawn?.source === 'vault',
    )!
    expect(before.vault.samePoints).toBe(true)
    const parameters = before.drawn!.parameters
    const residual = (point: CurveSeries['points'][number]) =>
      Math.abs(
        point.response! -
          (parameters.min! +
            (parameters.max! - parameters.min!) /
              (1 + (parameters.ic50! / point.concentration!) ** parameters.slope!)),
      )
    const well = before.points
      .filter((point) => point.exclusion === null)
      .sort((a, b) => residual(b) - residual(a))[0]!
    expect(before.points.map((point) => point.plateName)).not.toContain(null)
    expect(before.batchName).toBeTruthy()

    await network.off()
    sim.resetStats()
    const [item] = await call<OutboxItemView[]>('outbox.queue', {
      connectionId,
      vaultId: main,
      operation: 'readout.update',
      payload: {
        row: well.rowId,
        readouts: { [calculation.response!.definitionId]: { outlier: true } },
      },
    })

    // At once, offline: the point is a pending outlier and the curve is the local refit.
    const marked = await ask(before.id)
    expect(marked.points.find((point) => point.rowId === well.rowId)).toMatchObject({
      outlier: true,
      exclusion: 'outlier',
      pending: { itemIds: [item!.id] },
    })
    expect(marked.local.points.used).toBe(before.local.points.used - 1)
    expect(marked.drawn).toMatchObject({ source: 'local', stale: false })
    expect(marked.vaultFitOutdated).toBe(true)
    expect(marked.local.potency!.value).not.toBe(before.local.potency!.value)

    // Its attempts find no vault: nothing arrives, it waits.
    await waitUntil('the connection is offline', () =>
      services.runtimes.opened().every((runtime) => !runtime.monitor.state.online),
    )
    expect(sim.stats.byOperation[putRow] ?? 0).toBe(0)
    const waiting = await call<OutboxItemView[]>('outbox.list', { connectionId })
    expect(waiting.find((entry) => entry.id === item!.id)?.state).not.toBe('sent')

    await network.on()
    await waitUntil('the correction is sent', async () => {
      const history = await call<OutboxItemView[]>('outbox.list', {
        connectionId,
        states: ['sent'],
      })
      return history.some((entry) => entry.id === item!.id)
    })
    expect(sim.stats.byOperation[putRow]).toBe(1)

    // The next sync brings the vault's refit: the mark is no longer pending, and the vault's
    // curve, fitted without the well, is drawn again and agrees with the local refit. (A pass
    // that began on reconnecting, before the correction arrived, may still be running: the
    // first request may only see it end.)
    await syncOnce()
    await syncOnce()
    const after = await ask(before.id)
    const point = after.points.find((entry) => entry.rowId === well.rowId)!
    expect(point).toMatchObject({ outlier: true, pending: null, exclusion: 'outlier' })
    expect(after.vault.samePoints).toBe(true)
    expect(after.vaultFitOutdated).toBe(false)
    expect(after.drawn).toMatchObject({ source: 'vault', stale: false })
    expect(after.vault.pointsUsed).toBe(marked.local.points.used)
    expect(after.vault.parameters!.ic50).not.toBe(before.vault.parameters!.ic50)
    expect(Math.abs(after.vault.parameters!.ic50! / marked.local.potency!.value - 1)).toBeLessThan(
      0.01,
    )
    // Sent once: the sync and the look-ups did not send it again.
    expect(sim.stats.byOperation[putRow]).toBe(1)
  }, 180_000)
})

describe('new fit constraints of a series', () => {
  it('are refused in the specification’s words, or refit at once and are sent once', async () => {
    const protocol = services.results
      .catalogue(connectionId, main)
      .protocols.find((entry) => entry.name === kinaseName)!
    const whole = await call<CurvesAnswer>('curves.ofProtocol', {
      connectionId,
      vaultId: main,
      protocolId: protocol.id,
      limit: 1000,
    })
    const before = whole.series.find(
      (entry) =>
        entry.local.converged &&
        entry.drawn?.source === 'vault' &&
        entry.points.every((point) => point.pending === null) &&
        Math.abs(entry.local.parameters!.slope!.value) > 1.2,
    )!
    const queue = (fitParameters: unknown) =>
      dispatch('outbox.queue', {
        connectionId,
        vaultId: main,
        operation: 'curve.update',
        payload: {
          protocol: protocol.id,
          calculation: before.calculationId,
          series: before.id,
          equation_type: 'Hill',
          fit_parameters: fitParameters,
        },
        baseModifiedAt: before.modifiedAt,
      })
    const queuedBefore = (await call<OutboxItemView[]>('outbox.list', { connectionId })).length
    for (const [fitParameters, words] of [
      [{ ic50: { modifier: '=', value: 1 } }, 'unknown fit parameter "ic50" for Hill'],
      [{ slope: { modifier: '~', value: 1 } }, 'slope: invalid modifier "~"'],
      [
        { max: { modifier: 'from', range: { min: 110, max: 90 } } },
        'max: range lower bound 110 is above upper bound 90',
      ],
      [{ min: { modifier: '>=', value: 'ten' } }, 'min: value "ten" is not numeric'],
    ] as const) {
      const refused = await queue(fitParameters)
      expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_argument' } })
      expect(!refused.ok && refused.error.message).toContain(words)
    }
    expect((await call<OutboxItemView[]>('outbox.list', { connectionId })).length).toBe(
      queuedBefore,
    )

    await network.off()
    sim.resetStats()
    const queued = await queue({ slope: { modifier: '=', value: '1' } })
    expect(queued.ok).toBe(true)
    const item = (queued.ok ? (queued.value as OutboxItemView[]) : [])[0]!

    const ask = () =>
      call<CurvesAnswer>('curves.ofProtocol', {
        connectionId,
        vaultId: main,
        protocolId: protocol.id,
        seriesId: before.id,
      }).then((answer) => answer.series[0]!)
    const pending = await ask()
    expect(pending.pendingEdit).toEqual({ state: expect.any(String), itemIds: [item.id] })
    expect(pending.constraints).toEqual({ slope: { modifier: '=', value: 1 } })
    expect(pending.local.parameters!.slope).toMatchObject({ value: 1, fixed: true })
    expect(pending.drawn).toMatchObject({ source: 'local' })
    expect(pending.vaultFitOutdated).toBe(true)
    if (scipyHere) {
      const scipy = scipyFits([referenceProblem(pending, 'fixed slope')]).get('fixed slope')!
      expect(pending.local.converged).toBe(scipy.converged)
      if (scipy.converged) {
        const ratio = pending.local.potency!.value / scipy.parameters!.ic50!
        expect(Math.abs(ratio - 1)).toBeLessThan(0.01)
      }
    }
    expect(sim.stats.byOperation[putSeries] ?? 0).toBe(0)

    await network.on()
    await waitUntil('the constraints are sent', async () => {
      const sent = await call<OutboxItemView[]>('outbox.list', { connectionId, states: ['sent'] })
      return sent.some((entry) => entry.id === item.id)
    })
    expect(sim.stats.byOperation[putSeries]).toBe(1)
    await syncOnce()
    await syncOnce()
    const after = await ask()
    expect(after.pendingEdit).toBeNull()
    expect(after.fitParameters).toEqual({ slope: { modifier: '=', value: 1 } })
    expect(after.vault.parameters!.slope).toBe(1)
    expect(after.drawn).toMatchObject({ source: 'vault', stale: false })
    expect(Math.abs(after.vault.parameters!.ic50! / pending.local.potency!.value - 1)).toBeLessThan(
      0.01,
    )
    expect(sim.stats.byOperation[putSeries]).toBe(1)
  }, 180_000)
})
