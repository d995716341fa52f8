import { EQUATIONS, isEquationType } from '../../../src-common/analysis/dose-response/index.ts'
import { AppError } from '../../shared/app-error.ts'
import type { CurvesAnswer, CurveSeries } from '../../services/curves-service.ts'
import type { CurveCalculation } from '../../store/curve-queries.ts'
import type { Command } from '../command.ts'
import { chooseConnection } from '../connection-choice.ts'
import { completeReadoutIndex } from '../readout-index-progress.ts'
import { vaultIdOption } from '../vault-option.ts'

export const curvesCommand: Command = {
  name: 'curves',
  summary:
    "Fit a protocol's dose-response curves from the cache, offline: each series' parameters, IC50 and goodness of fit beside the vault's own fit.",
  usage: 'vault-desk curves --vault ID --protocol ID|NAME [--batch ID] [--json]',
  options: {
    vault: { type: 'string' },
    protocol: { type: 'string' },
    batch: { type: 'string' },
  },
  async run(context) {
    const { values, positionals } = context
    const vaultId = vaultIdOption(values.vault)
    if (vaultId === undefined) throw new AppError('invalid_argument', 'curves needs --vault ID.')
    if (positionals.length > 0) {
      throw new AppError('invalid_argument', `curves takes no ${positionals.join(' ')}.`)
    }
    const protocol = typeof values.protocol === 'string' ? values.protocol.trim() : ''
    if (protocol === '') {
      throw new AppError('invalid_argument', 'curves needs --protocol ID or --protocol NAME.')
    }
    const batchId = batchOption(values.batch)
    const { runtime } = chooseConnection(context)
    const services = context.services()
    // The protocol is looked up before any indexing, so that a wrong name answers at once.
    services.curves.protocol(runtime.id, vaultId, protocol)
    if (batchId !== undefined && runtime.cache.get('batches', vaultId, batchId) === null) {
      throw new AppError(
        'invalid_argument',
        `There is no batch ${batchId} in vault ${vaultId}'s cache (sync it first, or check the id).`,
      )
    }
    completeReadoutIndex(context, runtime.cache, vaultId)
    const answer = await services.curves.ofProtocol(runtime.id, vaultId, {
      protocol,
      ...(batchId !== undefined ? { batchId } : {}),
    })
    return { document: answer, human: (document) => describeAnswer(document as CurvesAnswer) }
  },
}

function batchOption(value: unknown): number | undefined {
  if (value === undefined) return undefined
  const id = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN
  if (!Number.isSafeInteger(id) || id < 1) {
    throw new AppError(
      'invalid_argument',
      `--batch takes a batch id (a whole number), not ${JSON.stringify(value)}.`,
    )
  }
  return id
}

function describeAnswer(answer: CurvesAnswer): string {
  const protocol = answer.protocol!
  const batch = answer.series[0]?.batchId
  const lines = [
    `${protocol.name} (protocol ${protocol.id}), vault ${answer.vaultId}: ${answer.total} series, ` +
      `fitted offline (${plural(answer.fits.computed, 'fit')} computed, ${answer.fits.reused} reused)`,
  ]
  if (answer.calculations.length === 0) {
    lines.push(`Protocol "${protocol.name}" has no dose-response calculations.`)
    return `${lines.join('\n')}\n`
  }
  if (answer.series.length === 0) {
    lines.push(
      batch === undefined
        ? 'No data series: the vault sent none for this selection.'
        : `No data series of batch ${batch}.`,
    )
  }
  for (const calculation of answer.calculations) {
    const series = answer.series.filter((entry) => entry.calculationId === calculation.id)
    lines.push('', describeCalculation(calculation, series.length))
    for (const entry of series) lines.push(...describeSeries(entry, calculation))
  }
  lines.push('', summary(answer.series))
  return `${lines.join('\n')}\n`
}

function readoutName(readout: CurveCalculation['response']): string {
  if (!readout) return 'an unnamed readout'
  const name = readout.name ?? `readout ${readout.definitionId}`
  return readout.unit ? `${name} (${readout.unit})` : name
}

function describeCalculation(calculation: CurveCalculation, count: number): string {
  const constraints =
    calculation.fitParameters && Object.keys(calculation.fitParameters).length > 0
      ? JSON.stringify(calculation.fitParameters)
      : 'none'
  const activity = calculation.minimumActivity
    ? `; minimum activity ${bound(calculation.minimumActivity.min, '-∞')} to ${bound(calculation.minimumActivity.max, '∞')}`
    : ''
  return (
    `calculation ${calculation.id} "${calculation.name ?? ''}": ${calculation.equationType ?? 'no equation type'} of ` +
    `${readoutName(calculation.response)} against ${readoutName(calculation.concentration)}; ` +
    `constraints: ${constraints}${activity}; ${count} series`
  )
}

function bound(value: number | null, missing: string): string {
  return value === null ? missing : format(value)
}

function describeSeries(series: CurveSeries, calculation: CurveCalculation): string[] {
  const unit = calculation.concentration?.unit ? ` ${calculation.concentration.unit}` : ''
  const report = series.local.points
  const left = Object.entries(report.excludedByReason).map(
    ([reason, count]) => `${count} ${reason}`,
  )
  const pending = series.points.filter((point) => point.pending !== null).length
  const header =
    `series ${series.id} · batch ${series.batchId ?? '?'} · run ${series.runId ?? '?'}` +
    `${series.runDate ? ` (${series.runDate})` : ''} · ${report.used} of ${report.total} points used` +
    `${left.length > 0 ? ` (left out: ${left.join(', ')})` : ''}` +
    `${pending > 0 ? ` · ${pending} correction${pending === 1 ? '' : 's'} waiting in the outbox` : ''}`
  return [
    header,
    `  local  ${describeLocal(series, unit)}`,
    `  vault  ${describeVault(series, unit)}`,
  ]
}

function describeLocal(series: CurveSeries, unit: string): string {
  const fit = series.local
  if (!fit.converged || !fit.parameters) {
    const what = fit.outcome === 'inactive' ? 'inactive' : `no curve (${fit.outcome})`
    const reason = fit.reason?.replace(/^inactive: /, '') ?? ''
    return `${what}: ${reason}`
  }
  const parts: string[] = []
  if (fit.potency) {
    const interval = fit.potency.confidenceInterval95
    parts.push(
      `IC50 ${format(fit.potency.value)}${unit}` +
        (interval ? ` (95% CI ${format(interval.low)} to ${format(interval.high)})` : ''),
    )
  }
  const equation = isEquationType(fit.equationType) ? EQUATIONS[fit.equationType] : null
  for (const name of equation?.parameters ?? Object.keys(fit.parameters)) {
    if (fit.potency && name === fit.potency.parameter) continue
    const estimate = fit.parameters[name]
    if (!estimate) continue
    const note = estimate.fixed
      ? ' (fixed)'
      : estimate.atBound
        ? ` (at its ${estimate.atBound} bound)`
        : ''
    const error = estimate.standardError === null ? '' : ` ± ${format(estimate.standardError)}`
    parts.push(`${name} ${format(estimate.value)}${error}${note}`)
  }
  const statistics = fit.statistics!
  parts.push(`R² ${statistics.rSquared === null ? '-' : statistics.rSquared.toFixed(3)}`)
  if (statistics.versusFlatLine && !statistics.versusFlatLine.significant) {
    parts.push(`no better than a flat line (p ${format(statistics.versusFlatLine.pValue)})`)
  }
  return parts.join(' · ')
}

function describeVault(series: CurveSeries, unit: string): string {
  const vault = series.vault
  if (vault.status === null) return 'sent no fit'
  const parts: string[] = [vault.status]
  const comparison = series.comparison
  const resultName = comparison?.resultParameter ?? null
  const result = resultName && vault.parameters ? vault.parameters[resultName] : undefined
  if (result !== undefined) {
    parts.push(
      `${resultName === 'ic50' ? 'IC50' : resultName} ${format(result)}${resultName === 'ic50' ? unit : ''}`,
    )
  }
  if (vault.rSquared !== null) parts.push(`R² ${vault.rSquared.toFixed(3)}`)
  if (vault.error) parts.push(vault.error)
  if (comparison?.resultRatio != null)
    parts.push(`local/vault ${comparison.resultRatio.toFixed(3)}`)
  const squares = comparison?.sumOfSquares
  if (squares && squares.vault < squares.local * (1 - 1e-6)) {
    parts.push(
      `its curve fits these points better (sum of squares ${format(squares.vault)} against ${format(squares.local)})`,
    )
  }
  if (comparison?.sameVerdict === false) parts.push('a different verdict from the local fit')
  if (series.vaultFitOutdated) parts.push('outdated: the points have changed since it fitted them')
  return parts.join(' · ')
}

function summary(series: readonly CurveSeries[]): string {
  const fitted = series.filter((entry) => entry.local.converged).length
  const both = series.filter((entry) => entry.comparison?.resultRatio != null)
  const close = both.filter((entry) => Math.abs(entry.comparison!.resultRatio! - 1) <= 0.01)
  const compared = series.filter((entry) => entry.comparison?.sameVerdict != null)
  const same = compared.filter((entry) => entry.comparison!.sameVerdict)
  return (
    `${fitted} of ${series.length} series fitted locally; the same verdict as the vault for ` +
    `${same.length} of ${compared.length}; the result within 1% of the vault's for ${close.length} ` +
    `of ${both.length} fitted by both`
  )
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

/** Three significant digits; tiny and huge values in exponent form. */
function format(value: number): string {
  const size = Math.abs(value)
  if (value === 0 || (size >= 1e-3 && size < 1e6)) return String(Number(value.toPrecision(3)))
  return value.toExponential(2)
}
