/**
 * A curve panel in words: which fit is drawn and why, the potency with its interval, R², why
 * there is no curve, each point's description. The panel, its tooltip and its text alternative
 * for screen readers all read these, so they always say the same thing.
 */
import type { CurveCalculation, CurveSeries } from '../../../../src-main/ipc/contract.ts'
import type { ExclusionReason } from '../../../../src-common/analysis/dose-response/index.ts'
import { formatValue } from '../plots/ticks.ts'
import {
  concentrationUnit,
  formatConcentration,
  type ConcentrationUnit,
} from './concentration-units.ts'
import { potencyOf, type PanelPoint } from './curve-plot.ts'

/**
 * What the potency is called: the result readout's name when it says (IC50, EC50, GI50, Ki...),
 * else IC50, the parameter's name in the API.
 */
export function potencyName(calculation: CurveCalculation | null): string {
  const named = calculation?.result?.name ?? calculation?.name ?? null
  const match = named ? /\b(p?[A-Z]{1,2}50|K[id])\b/i.exec(named) : null
  return match ? match[1]! : 'IC50'
}

/** The concentration unit of a calculation's concentration readout. */
export function unitOf(calculation: CurveCalculation | null): ConcentrationUnit {
  return concentrationUnit(calculation?.concentration?.unit ?? null)
}

/** Which curve is drawn, in a few words ("Vault fit", "Local fit: corrections pending"). */
export function sourceText(series: Pick<CurveSeries, 'drawn' | 'vault' | 'points'>): string {
  const drawn = series.drawn
  if (!drawn) return 'No curve'
  const pending = series.points.some((point) => point.pending !== null)
  if (drawn.source === 'vault') {
    return drawn.stale
      ? pending
        ? 'Vault fit, before the pending corrections (not refitted here)'
        : 'Vault fit, of points since changed (not refitted here)'
      : 'Vault fit'
  }
  if (pending) return 'Local refit: corrections pending'
  if (series.vault.samePoints === false) return 'Local fit: points changed since the vault fitted'
  if (series.vault.status === 'fitted') return 'Local fit'
  return 'Local fit: the vault sent no curve'
}

/**
 * "0.35 µM (95% CI 0.21–0.58 µM)"; null without a potency. A potency beyond the tested
 * concentrations is an extrapolation and says so ("7.2 pM, below the tested range").
 */
export function potencyText(
  series: Pick<CurveSeries, 'drawn' | 'local' | 'points'>,
  unit: ConcentrationUnit,
): string | null {
  const potency = potencyOf(series)
  if (!potency) return null
  const value = formatConcentration(potency.value, unit)
  const tested = series.points.flatMap((point) =>
    point.exclusion === null && point.concentration !== null && point.concentration > 0
      ? [point.concentration]
      : [],
  )
  const beyond =
    tested.length === 0
      ? ''
      : potency.value < Math.min(...tested)
        ? ', below the tested range'
        : potency.value > Math.max(...tested)
          ? ', above the tested range'
          : ''
  if (potency.low === null || potency.high === null) return `${value}${beyond}`
  return `${value} (95% CI ${formatConcentration(potency.low, unit)}–${formatConcentration(potency.high, unit)})${beyond}`
}

/** R² to three decimals; null when there is no local fit statistic for the drawn curve. */
export function rSquaredText(
  series: Pick<CurveSeries, 'drawn' | 'local' | 'vault'>,
): string | null {
  const value =
    series.drawn?.source === 'vault'
      ? (series.vault.rSquared ?? series.local.statistics?.rSquared ?? null)
      : (series.local.statistics?.rSquared ?? null)
  return value === null ? null : value.toFixed(3)
}

/** Why no curve is drawn, for a scientist: the local fit's reason, else the vault's. */
export function noCurveText(series: Pick<CurveSeries, 'local' | 'vault'>): string {
  const reason = series.local.reason ?? series.vault.error
  if (series.local.outcome === 'inactive' || series.vault.status === 'inactive') {
    return `Inactive${reason ? `: ${reason}` : ''}`
  }
  return reason ? `No curve: ${reason}` : 'No curve: the fit gave no parameters.'
}

const exclusionWords: Readonly<Record<ExclusionReason, string>> = {
  outlier: 'outlier, not fitted',
  missing: 'no value, not fitted',
  qualified: 'qualified value, not fitted',
  text: 'text, not fitted',
  'non-finite': 'not a finite number, not fitted',
  'negative concentration': 'negative concentration, not fitted',
  'zero concentration': 'zero concentration, not on the log axis',
}

/** What the fit made of a point ("used", "outlier, not fitted", "outlier pending"). */
export function pointStatus(point: PanelPoint): string {
  const base = point.exclusion === null ? 'used' : exclusionWords[point.exclusion]
  if (point.pending === null) return base
  return `${base}; correction ${point.pending.state === 'queued' ? 'pending' : point.pending.state}`
}

/** A concentration cell as given, in readable units when it is a number. */
export function concentrationCell(point: PanelPoint, unit: ConcentrationUnit): string {
  if (point.concentration === null) return point.concentrationText ?? '—'
  const modifier = point.concentrationModifier ?? ''
  return `${modifier}${formatConcentration(point.concentration, unit, 4)}`
}

/** A response cell as given: its modifier and number, or its text. */
export function responseCell(point: PanelPoint, unit: string | null): string {
  if (point.response === null) return point.responseText ?? '—'
  const text = `${point.responseModifier ?? ''}${formatValue(point.response)}`
  return unit ? `${text} ${unit}` : text
}

/** Where the point was measured: "well B03, plate P-0012". */
export function placeText(point: PanelPoint): string {
  const plate = point.plateName ?? (point.plateId === null ? null : `#${point.plateId}`)
  return [point.well ? `well ${point.well}` : null, plate ? `plate ${plate}` : null]
    .filter((part) => part !== null)
    .join(', ')
}

/** The tooltip of a point, one fact a line. */
export function pointTooltip(
  point: PanelPoint,
  unit: ConcentrationUnit,
  responseUnit: string | null,
): string[] {
  return [
    `Concentration ${concentrationCell(point, unit)}`,
    `Response ${responseCell(point, responseUnit)}`,
    placeText(point) || 'Well not known',
    pointStatus(point),
  ]
}

/** The drawn curve's parameters, named as the API names them, with the local fit's errors. */
export function parameterRows(
  series: Pick<CurveSeries, 'drawn' | 'local'>,
): { name: string; value: string; standardError: string | null; note: string | null }[] {
  const drawn = series.drawn
  if (!drawn) return []
  return Object.entries(drawn.parameters).map(([name, value]) => {
    const estimate = series.local.parameters?.[name] ?? null
    const local = drawn.source === 'local' ? estimate : null
    return {
      name,
      value: formatValue(value),
      standardError:
        local?.standardError === null || local?.standardError === undefined
          ? null
          : formatValue(local.standardError),
      note: local?.fixed ? 'fixed' : local?.atBound ? `at its ${local.atBound} bound` : null,
    }
  })
}
