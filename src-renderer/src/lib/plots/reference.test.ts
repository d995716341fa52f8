/**
 * The plots' numbers against the references a scientist would check them with, run in the same
 * test: numpy's histogram bins (numpy.histogram_bin_edges and numpy.histogram) and matplotlib's
 * viridis, through Debian's python3.
 */
// The renderer has no Node at run time; its tests run in Node, and this one starts Python.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { requirement } from '../../../../test/support/environment.ts'
import { viridis } from './colours.ts'
import { histogram } from './histogram.ts'

const python = '/usr/bin/python3'

function hasModules(modules: string): boolean {
  if (!fs.existsSync(python)) return false
  try {
    execFileSync(python, ['-c', `import ${modules}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

function runPython<T>(script: string, input: unknown): T {
  return JSON.parse(
    execFileSync(python, ['-c', script], {
      input: JSON.stringify(input),
      maxBuffer: 1 << 26,
    }).toString(),
  ) as T
}

const numpy = requirement(
  hasModules('numpy'),
  'Debian python3 with numpy (/usr/bin/python3, python3-numpy)',
)
const matplotlib = requirement(
  hasModules('matplotlib'),
  'Debian python3 with matplotlib (/usr/bin/python3, python3-matplotlib)',
)

/** Samples of the shapes plots meet: normal, skewed, heavy-tailed, discrete, tiny. */
function samples(): number[][] {
  let state = 20_260_511
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    return (state + 0.5) / 2_147_483_648
  }
  const normal = () => Math.sqrt(-2 * Math.log(random())) * Math.cos(2 * Math.PI * random())
  return [
    Array.from({ length: 5000 }, () => 320 + normal() * 85),
    Array.from({ length: 20_000 }, () => 10 ** (2.5 + normal() * 1.1)),
    Array.from({ length: 3000 }, () => normal() / Math.sqrt(random() + 0.2)),
    Array.from({ length: 800 }, () => Math.floor(random() * 6)),
    [3.2, 1.1, 8.4, 2.2, 5.9],
    Array.from({ length: 1000 }, () => Number((random() * 10).toFixed(1))),
  ]
}

describe.runIf(numpy)('histograms against numpy', () => {
  it('bins as numpy.histogram_bin_edges does by Freedman-Diaconis and Sturges, and counts as numpy.histogram', () => {
    // The log-normal set (1) needs more bins than a screen shows on a linear axis: see below.
    const sets = samples().filter((_, index) => index !== 1)
    const ours = sets.flatMap((values) =>
      (['freedman-diaconis', 'sturges'] as const).map((rule) => ({
        values,
        rule,
        result: histogram(values, { rule }),
      })),
    )
    for (const { result } of ours) expect(result.capped).toBe(false)
    const reference = runPython<{ edges: number[]; counts: number[]; ourCounts: number[] }[]>(
      `
import json, sys
import numpy as np
out = []
for case in json.load(sys.stdin):
    a = np.array(case['values'], dtype=float)
    edges = np.histogram_bin_edges(a, bins='fd' if case['rule'] == 'freedman-diaconis' else 'sturges')
    counts, _ = np.histogram(a, bins=edges)
    ours, _ = np.histogram(a, bins=np.array(case['ourEdges'], dtype=float))
    out.append({'edges': edges.tolist(), 'counts': counts.tolist(), 'ourCounts': ours.tolist()})
json.dump(out, sys.stdout)
`,
      ours.map(({ values, rule, result }) => ({ values, rule, ourEdges: result.edges })),
    )
    ours.forEach(({ rule, result, values }, index) => {
      const expected = reference[index]!
      const what = `${rule} over ${values.length} values (set ${Math.floor(index / 2)})`
      expect(result.edges.length, what).toBe(expected.edges.length)
      result.edges.forEach((edge, at) => {
        expect(Math.abs(edge - expected.edges[at]!), what).toBeLessThanOrEqual(
          Math.abs(expected.edges[at]!) * 1e-12 + 1e-12,
        )
      })
      // Counting: exactly numpy's, with numpy given our edges.
      expect(result.counts, what).toEqual(expected.ourCounts)
      expect(result.counts, what).toEqual(expected.counts)
    })
  })

  it('bins a log axis as numpy bins the decimal logarithms', () => {
    const values = samples()[1]!
    const result = histogram([...values, 0, -1, null], { scale: 'log', rule: 'freedman-diaconis' })
    const expected = runPython<{ edges: number[]; counts: number[] }>(
      `
import json, sys
import numpy as np
a = np.log10(np.array(json.load(sys.stdin), dtype=float))
edges = np.histogram_bin_edges(a, bins='fd')
counts, _ = np.histogram(a, bins=edges)
json.dump({'edges': (10 ** edges).tolist(), 'counts': counts.tolist()}, sys.stdout)
`,
      values,
    )
    expect(result.nonPositive).toBe(2)
    expect(result.missing).toBe(1)
    expect(result.counts).toEqual(expected.counts)
    result.edges.forEach((edge, at) => expect(edge / expected.edges[at]!).toBeCloseTo(1, 12))
  })
})

describe.runIf(matplotlib)('colours against matplotlib', () => {
  it("is matplotlib's viridis, all 256 colours", () => {
    const reference = runPython<number[][]>(
      `
import json, sys
from matplotlib import cm
json.dump([[round(c * 255) for c in rgb] for rgb in cm.get_cmap('viridis').colors], sys.stdout)
`,
      null,
    )
    expect(viridis.map((rgb) => [...rgb])).toEqual(reference)
  })
})
