/**
 * A data series as `curves.*` answers it, for the tests of the curve panel's helpers: a falling
 * Hill curve (IC50 0.35 µM) with used points, a vault outlier, a pending outlier mark, a
 * qualified response, a point at zero concentration and a text response.
 */
import type { CurveSeries } from '../../../../src-main/ipc/contract.ts'
import type { PanelPoint } from './curve-plot.ts'

const hill = { min: 2, max: 98, slope: -1.2, ic50: 0.35 }

function point(
  rowId: number,
  concentration: number | null,
  response: number | null,
  extra: Partial<PanelPoint> = {},
): PanelPoint {
  return {
    rowId,
    plateId: 40,
    plateName: 'P-0040',
    well: `A${String(rowId).padStart(2, '0')}`,
    concentration,
    concentrationModifier: null,
    response,
    responseModifier: null,
    concentrationText: concentration === null ? null : String(concentration),
    responseText: response === null ? null : String(response),
    outlier: false,
    pending: null,
    exclusion: null,
    ...extra,
  }
}

export function seriesOf(overrides: Partial<CurveSeries> = {}): CurveSeries {
  return {
    id: 7,
    calculationId: 3,
    protocolId: 2,
    batchId: 11,
    batchName: 'CPD-0011-01',
    moleculeId: 5,
    runId: 20,
    runDate: '2026-07-24',
    equationType: 'Hill',
    fitParameters: null,
    pendingEdit: null,
    modifiedAt: '2026-07-24T10:00:00Z',
    vault: {
      status: 'fitted',
      parameters: hill,
      rSquared: 0.987,
      pointsUsed: 4,
      error: null,
      result: { value: 0.35, modifier: null, note: null },
      samePoints: false,
    },
    points: [
      point(9, 0, 97),
      point(1, 0.01, 96),
      point(2, 0.1, 80),
      point(3, 0.3, 10, { outlier: true, exclusion: 'outlier' }),
      point(4, 1, 90, {
        outlier: true,
        exclusion: 'outlier',
        pending: { state: 'queued', itemIds: [31] },
      }),
      point(5, 3, 30, { responseModifier: '>', responseText: '>30', exclusion: 'qualified' }),
      point(6, 10, 5),
      point(10, 30, null, { responseText: 'n.d.', exclusion: 'text' }),
    ],
    constraints: {},
    local: {
      equationType: 'Hill',
      fitted: true,
      converged: true,
      outcome: 'fitted',
      reason: null,
      parameters: {
        min: { value: 2, standardError: 1.5, fixed: false, atBound: null },
        max: { value: 98, standardError: 2.5, fixed: false, atBound: null },
        slope: { value: -1.2, standardError: null, fixed: true, atBound: null },
        ic50: { value: 0.35, standardError: 0.05, fixed: false, atBound: null },
      },
      potency: {
        parameter: 'ic50',
        value: 0.35,
        log10: Math.log10(0.35),
        log10StandardError: 0.1,
        confidenceInterval95: { low: 0.2, high: 0.6 },
        withinTestedRange: true,
      },
      statistics: {
        n: 4,
        degreesOfFreedom: 1,
        sumOfSquares: 12,
        rSquared: 0.9912,
        rmse: 1.7,
        residualStandardError: 3.4,
        versusFlatLine: null,
      },
      points: {
        total: 8,
        used: 4,
        zeroConcentrationUsed: 0,
        excludedByReason: { outlier: 2, qualified: 1, text: 1 },
      },
      search: { starts: 1, iterations: 12, stop: null, lastEstimate: null },
    },
    comparison: null,
    drawn: { source: 'local', equationType: 'Hill', parameters: hill, stale: false },
    vaultFitOutdated: true,
    ...overrides,
  }
}
