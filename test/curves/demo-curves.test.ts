/**
 * Dose-response curves of the demo vault, synced into a real cache and fitted offline through the
 * services and the IPC contract (`curves.*`): every series of every protocol with dose-response
 * calculations is fitted again, in the same test run, by SciPy's curve_fit (Debian's
 * /usr/bin/python3 with python3-scipy, through src-common/analysis/dose-response/
 * scipy_reference.py, which starts from its own guesses): the same verdict, and IC50 within 1%
 * where both converge. The simulator's own fits are compared too. Then a well is marked as an
 * outlier offline: its curve is fitted again at once, without that point, and agrees with SciPy
 * on the remaining points; discarding the correction brings the first fit back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Dispatch } from '../../src-main/ipc/dispatcher.ts'
import type { CurveSeries, CurvesAnswer, OutboxItemView } from '../../src-main/ipc/contract.ts'
import type { Services } from '../../src-main/services/index.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { connectAndSync, dispatching, testServices, type Call } from '../services/support.ts'
import { startDemoSim } from '../sync/support.ts'
import { referenceProblem, scipyFits, scipyHere } from './scipy-reference.ts'

function relative(value: number, expected: number): number {
  return Math.abs(value - expected) / Math.abs(expected)
}

/**
 * Whether a Hill curve passes the rules the local fitter (fit.ts) and the reference apply before
 * they call a fit determined: its centre within 100-fold of the tested concentrations, and a
 * tested concentration on its transition (10% to 90% of the way between the plateaus). The
 * simulator's fitter applies neither, so its curve of a step or of noise is compared only when it
 * passes them.
 */
function determinedHill(parameters: Record<string, number>, concentrations: number[]): boolean {
  const logs = [...new Set(concentrations.filter((x) => x > 0))].map(Math.log10)
  const centre = Math.log10(parameters.ic50!)
  if (centre < Math.min(...logs) - 2 || centre > Math.max(...logs) + 2) return false
  return logs.some((log) => {
    const fraction = 1 / (1 + 10 ** (parameters.slope! * (centre - log)))
    const along = parameters.slope! > 0 ? fraction : 1 - fraction
    return along >= 0.1 && along <= 0.9
  })
}

let sim: VaultSim
let services: Services
let dispose: () => Promise<void>
let dispatch: Dispatch
let connectionId: string
let main: number
let curvesOf: Map<number, CurvesAnswer>

let call: Call

beforeAll(async () => {
  sim = await startDemoSim()
  main = sim.cast.vaults.main.id
  ;({ services, dispose } = testServices())
  ;({ dispatch, call } = dispatching(services))
  connectionId = await connectAndSync(services, call, {
    name: 'Demo',
    baseUrl: sim.baseUrl,
    token: sim.cast.users.admin.tokens[0]!,
  })
  // The cache writer indexes readouts while idle; a host that needs them now completes the index.
  services.runtimes.get(connectionId).cache.readoutIndex().complete()
  const protocols = services.results.catalogue(connectionId, main).protocols
  curvesOf = new Map()
  for (const protocol of protocols) {
    const answer = await call<CurvesAnswer>('curves.ofProtocol', {
      connectionId,
      vaultId: main,
      protocolId: protocol.id,
    })
    if (answer.calculations.length > 0) curvesOf.set(protocol.id, answer)
  }
}, 120_000)

afterAll(async () => {
  await dispose?.()
  await sim?.stop()
})

describe('the demo vault’s dose-response curves, fitted offline', () => {
  it('answers every series of each dose-response protocol, with its points and the vault’s fit', () => {
    expect(curvesOf.size).toBeGreaterThanOrEqual(2)
    for (const answer of curvesOf.values()) {
      expect(answer.backlog).toEqual({ rows: 0, groups: 0 })
      expect(answer.series).toHaveLength(answer.total)
      expect(answer.fits).toEqual({ computed: answer.total, reused: 0 })
      for (const series of answer.series) {
        expect(series.points.length).toBeGreaterThan(0)
        expect(series.vault.status).not.toBeNull()
        // The vault fitted the very points the cache holds.
        expect(series.vault.samePoints).toBe(true)
      }
    }
  })

  it.skipIf(!scipyHere)(
    'agrees with SciPy’s curve_fit on every series: verdict, and IC50 within 1%',
    () => {
      const fitted = [...curvesOf.values()]
        .flatMap((answer) => answer.series)
        // An inactive series is the vault's rule on its responses, not a fit: neither side fits it.
        .filter((series) => series.local.fitted)
      const reference = scipyFits(fitted.map((series) => referenceProblem(series)))
      let both = 0
      let worst = 0
      for (const series of fitted) {
        const scipy = reference.get(String(series.id))!
        expect(
          series.local.converged,
          `series ${series.id}: ours ${series.local.outcome} (${series.local.reason}), SciPy ${scipy.converged ? 'converged' : scipy.reason}`,
        ).toBe(scipy.converged)
        if (!series.local.converged) continue
        both += 1
        const difference = relative(series.local.potency!.value, scipy.parameters!.ic50!)
        expect(difference, `series ${series.id} IC50`).toBeLessThan(0.01)
        worst = Math.max(worst, difference)
      }
      // Most of the demo's curves are well determined: a comparison of failures would prove nothing.
      expect(both).toBeGreaterThan(fitted.length * 0.7)
      console.info(
        `curves: ${both} of ${fitted.length} series fitted by both; IC50 within ${(worst * 100).toFixed(4)}% of SciPy's`,
      )
    },
  )

  it('agrees with the simulator’s own fits where both drew a determined curve', () => {
    let compared = 0
    let worst = 0
    let inactive = 0
    for (const series of [...curvesOf.values()].flatMap((answer) => answer.series)) {
      const comparison = series.comparison!
      if (series.vault.status === 'inactive' || series.local.outcome === 'inactive') {
        // The minimum activity rule is the vault's, applied to the same responses.
        expect(comparison.sameVerdict, `series ${series.id}`).toBe(true)
        inactive += 1
        continue
      }
      const used = series.points.filter((point) => point.exclusion === null)
      if (
        !series.local.converged ||
        !determinedHill(
          series.vault.parameters!,
          used.map((point) => point.concentration!),
        )
      ) {
        continue
      }
      compared += 1
      const difference = Math.abs(comparison.resultRatio! - 1)
      expect(
        difference,
        `series ${series.id}: local/vault IC50 ${comparison.resultRatio}`,
      ).toBeLessThan(0.01)
      worst = Math.max(worst, difference)
      expect(comparison.sameVerdict).toBe(true)
      expect(series.drawn).toMatchObject({ source: 'vault', stale: false })
    }
    expect(inactive).toBeGreaterThan(0)
    expect(compared).toBeGreaterThan(50)
    console.info(
      `curves: ${compared} series compared with the simulator's fit; IC50 within ${(worst * 100).toFixed(4)}% (it rounds to 6 digits)`,
    )
  })

  it('fits a curve again at once when a well is marked as an outlier offline', async () => {
    const kinase = [...curvesOf.values()].find(
      (answer) => answer.protocol!.name === 'Kinase IC50 (ADP-Glo)',
    )!
    const calculation = kinase.calculations[0]!
    // A fitted curve and its used point farthest from it.
    const series = kinase.series.find(
      (entry) =>
        entry.local.converged && entry.local.points.used >= 12 && entry.drawn?.source === 'vault',
    )!
    const { min, max, slope, ic50 } = Object.fromEntries(
      Object.entries(series.local.parameters!).map(([name, estimate]) => [name, estimate.value]),
    ) as Record<string, number>
    const residual = (point: CurveSeries['points'][number]) =>
      Math.abs(
        point.response! - (min! + (max! - min!) / (1 + (ic50! / point.concentration!) ** slope!)),
      )
    const well = series.points
      .filter((point) => point.exclusion === null)
      .sort((a, b) => residual(b) - residual(a))[0]!

    const [item] = await call<OutboxItemView[]>('outbox.queue', {
      connectionId,
      vaultId: main,
      operation: 'readout.update',
      payload: {
        row: well.rowId,
        readouts: { [calculation.response!.definitionId]: { outlier: true } },
      },
    })
    expect(item).toMatchObject({ state: 'queued' })

    const refit = await call<CurvesAnswer>('curves.ofProtocol', {
      connectionId,
      vaultId: main,
      protocolId: kinase.protocol!.id,
      seriesId: series.id,
    })
    expect(refit.fits).toEqual({ computed: 1, reused: 0 })
    const after = refit.series[0]!
    expect(after.points.find((point) => point.rowId === well.rowId)).toMatchObject({
      outlier: true,
      exclusion: 'outlier',
      pending: { state: 'queued', itemIds: [item!.id] },
    })
    expect(after.local.points.used).toBe(series.local.points.used - 1)
    expect(after.local.potency!.value).not.toBe(series.local.potency!.value)
    expect(after.vaultFitOutdated).toBe(true)
    expect(after.drawn).toMatchObject({ source: 'local', stale: false })
    if (scipyHere) {
      const scipy = scipyFits([referenceProblem(after, 'refit')]).get('refit')!
      expect(after.local.converged).toBe(scipy.converged)
      if (scipy.converged) {
        expect(relative(after.local.potency!.value, scipy.parameters!.ic50!)).toBeLessThan(0.01)
      }
    }

    // The other curves are not fitted again: their points and constraints did not change.
    const whole = await call<CurvesAnswer>('curves.ofProtocol', {
      connectionId,
      vaultId: main,
      protocolId: kinase.protocol!.id,
    })
    expect(whole.fits).toEqual({ computed: 0, reused: kinase.total })
    expect(whole.series.find((entry) => entry.id === series.id)!.local).toEqual(after.local)

    // Discarded, the correction is gone and the first fit is back.
    await call('outbox.discard', { id: item!.id })
    const back = await call<CurvesAnswer>('curves.ofBatch', {
      connectionId,
      vaultId: main,
      batchId: series.batchId,
      protocolId: kinase.protocol!.id,
    })
    const restored = back.series.find((entry) => entry.id === series.id)!
    expect(restored.local.potency).toEqual(series.local.potency)
    expect(restored.points.every((point) => point.pending === null)).toBe(true)
    expect(restored.drawn).toMatchObject({ source: 'vault' })
  })

  it('refuses unknown protocols and bad arguments with what is wrong', async () => {
    const unknown = await dispatch('curves.ofProtocol', {
      connectionId,
      vaultId: main,
      protocolId: 987654,
    })
    expect(unknown).toMatchObject({ ok: false, error: { code: 'invalid_argument' } })
    expect(!unknown.ok && unknown.error.message).toMatch(
      /no protocol 987654 .*Kinase IC50 \(ADP-Glo\)/,
    )
    const page = await dispatch('curves.ofProtocol', {
      connectionId,
      vaultId: main,
      protocolId: 1,
      limit: 5000,
    })
    expect(page).toMatchObject({ ok: false, error: { code: 'invalid_argument' } })
    const batch = await dispatch('curves.ofBatch', { connectionId, vaultId: main, batchId: -3 })
    expect(batch).toMatchObject({ ok: false, error: { code: 'invalid_argument' } })
  })
})
