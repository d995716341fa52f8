/**
 * SciPy's curve_fit as the reference of the curves' tests, run in the same test run through
 * src-common/analysis/dose-response/scipy_reference.py (Debian's /usr/bin/python3 with
 * python3-scipy, starting from its own guesses), on the very points and constraints a local fit
 * used.
 */
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import type { CurveSeries } from '../../src-main/ipc/contract.ts'
import { requirement } from '../support/environment.ts'

const python = process.env.VAULT_DESK_NATIVE_PYTHON ?? '/usr/bin/python3'
const script = path.resolve(
  import.meta.dirname,
  '../../src-common/analysis/dose-response/scipy_reference.py',
)
const probe = spawnSync(python, ['-c', 'import numpy, scipy'], { encoding: 'utf8' })
export const scipyHere = requirement(
  probe.status === 0,
  `SciPy (${python} with python3-scipy: ${(probe.stderr || String(probe.error ?? '')).trim() || 'import failed'})`,
)

export interface ReferenceProblem {
  id: string
  equation: string
  x: number[]
  y: number[]
  fixed: Record<string, number>
  bounds: Record<string, [number | null, number | null]>
}
export interface ReferenceFit {
  id: string
  converged: boolean
  reason?: string
  parameters?: Record<string, number>
}

export function scipyFits(problems: ReferenceProblem[]): Map<string, ReferenceFit> {
  const run = spawnSync(python, [script], {
    input: JSON.stringify({ problems }),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
  if (run.status !== 0) throw new Error(`scipy_reference.py failed: ${run.stderr}`)
  const answer = JSON.parse(run.stdout) as { fits: ReferenceFit[] }
  return new Map(answer.fits.map((fit) => [fit.id, fit]))
}

/** The points a local fit used, and its constraints as curve_fit's fixed values and bounds. */
export function referenceProblem(series: CurveSeries, id = String(series.id)): ReferenceProblem {
  const used = series.points.filter((point) => point.exclusion === null)
  const fixed: ReferenceProblem['fixed'] = {}
  const bounds: ReferenceProblem['bounds'] = {}
  for (const [name, constraint] of Object.entries(series.constraints ?? {})) {
    const nudge = (value: number) => 1e-9 * Math.max(1, Math.abs(value))
    if (constraint.modifier === '=') fixed[name] = constraint.value
    else if (constraint.modifier === 'from') {
      bounds[name] = [constraint.range.min, constraint.range.max]
    } else if (constraint.modifier === '>=') bounds[name] = [constraint.value, null]
    else if (constraint.modifier === '>')
      bounds[name] = [constraint.value + nudge(constraint.value), null]
    else if (constraint.modifier === '<=') bounds[name] = [null, constraint.value]
    else if (constraint.modifier === '<')
      bounds[name] = [null, constraint.value - nudge(constraint.value)]
  }
  return {
    id,
    equation: series.local.equationType,
    x: used.map((point) => point.concentration!),
    y: used.map((point) => point.response!),
    fixed,
    bounds,
  }
}
