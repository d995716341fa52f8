/**
 * The distributions against closed forms that hold exactly for small degrees of freedom (SciPy's
 * own values are compared in dose-response/fit.test.ts).
 */
import { describe, expect, it } from 'vitest'
import {
  fDistributionSurvival,
  logGamma,
  regularizedIncompleteBeta,
  studentTCdf,
  studentTQuantile,
  summarize,
} from './statistics.ts'

describe('summarize', () => {
  it('gives the mean and the sample standard deviation (n - 1)', () => {
    // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squares 9+1+1+1+0+0+4+16 = 32, 32 / 7 = 4.5714...
    expect(summarize([2, 4, 4, 4, 5, 5, 7, 9])).toEqual({
      n: 8,
      mean: 5,
      standardDeviation: Math.sqrt(32 / 7),
    })
  })

  it('has no standard deviation for one value and nothing for none', () => {
    expect(summarize([3])).toEqual({ n: 1, mean: 3, standardDeviation: null })
    expect(summarize([])).toBeNull()
    expect(summarize([Number.NaN, Number.POSITIVE_INFINITY])).toBeNull()
    expect(summarize([1, Number.NaN, 3])).toEqual({ n: 2, mean: 2, standardDeviation: Math.SQRT2 })
  })
})

describe('Student t and F', () => {
  it('knows ln Γ at points with known values', () => {
    expect(logGamma(1)).toBeCloseTo(0, 14)
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 13)
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 13)
    expect(logGamma(1.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI) / 2), 13)
  })

  it('gives I_x(1, b) = 1 - (1 - x)^b and I_x(a, 1) = x^a', () => {
    for (const x of [0.01, 0.3, 0.5, 0.9]) {
      expect(regularizedIncompleteBeta(x, 1, 3.5)).toBeCloseTo(1 - (1 - x) ** 3.5, 13)
      expect(regularizedIncompleteBeta(x, 2.5, 1)).toBeCloseTo(x ** 2.5, 13)
    }
  })

  it('matches the closed forms of t with one, two and three degrees of freedom', () => {
    for (const p of [0.6, 0.9, 0.975, 0.995, 0.9999, 0.025]) {
      // df 1 (Cauchy): tan(π (p - 1/2)); df 2: (2p - 1) / sqrt(2 p (1 - p)).
      expect(studentTQuantile(p, 1) / Math.tan(Math.PI * (p - 0.5))).toBeCloseTo(1, 11)
      expect(studentTQuantile(p, 2) / ((2 * p - 1) / Math.sqrt(2 * p * (1 - p)))).toBeCloseTo(1, 11)
      // df 3: F(t) = 1/2 + (θ + sin θ cos θ) / π with θ = atan(t / √3).
      const t = studentTQuantile(p, 3)
      const theta = Math.atan(t / Math.sqrt(3))
      expect(0.5 + (theta + Math.sin(theta) * Math.cos(theta)) / Math.PI).toBeCloseTo(p, 13)
    }
  })

  it('tends to the normal distribution for many degrees of freedom', () => {
    expect(studentTQuantile(0.975, 1e7)).toBeCloseTo(1.959964, 5)
    expect(studentTCdf(0, 5)).toBe(0.5)
    expect(studentTCdf(Number.POSITIVE_INFINITY, 5)).toBe(1)
  })

  it('refuses probabilities outside (0, 1) and non-positive degrees of freedom with NaN', () => {
    expect(studentTQuantile(1, 5)).toBeNaN()
    expect(studentTQuantile(0, 5)).toBeNaN()
    expect(studentTQuantile(0.975, 0)).toBeNaN()
  })

  it('gives the F upper tail of F(2, d2) in closed form: (1 + 2f / d2)^(-d2 / 2)', () => {
    for (const [f, d2] of [
      [0.5, 4],
      [3, 10],
      [12, 7],
    ] as const) {
      expect(fDistributionSurvival(f, 2, d2)).toBeCloseTo((1 + (2 * f) / d2) ** (-d2 / 2), 13)
    }
    expect(fDistributionSurvival(0, 3, 12)).toBe(1)
    expect(fDistributionSurvival(Number.POSITIVE_INFINITY, 3, 12)).toBe(0)
  })
})
