import { describe, expect, it } from 'vitest'
import {
  firstPoints,
  ic50Range,
  sampleName,
  samplePoints,
  sampleStructures,
} from './sample-points.ts'

describe('sample points', () => {
  const sample = samplePoints(20_000)

  it('are the same on every run, and the first n of many are the n of few', () => {
    expect(samplePoints(500)).toEqual(firstPoints(sample, 500))
    expect(sampleName(42)).toBe('VD-000042')
    expect(sample.structures.every((index) => index >= 0 && index < sampleStructures.length)).toBe(
      true,
    )
  })

  it('have the gaps, qualified values and negatives real data has', () => {
    const { ic50, inhibition, logP } = sample
    expect(ic50.values.includes(null)).toBe(true)
    expect(logP.values.includes(null)).toBe(true)
    const above = [...ic50.values].filter((_, row) => ic50.modifiers![row] === '>')
    const below = [...ic50.values].filter((_, row) => ic50.modifiers![row] === '<')
    expect(above.length).toBeGreaterThan(100)
    expect(below.length).toBeGreaterThan(100)
    expect(new Set(above)).toEqual(new Set([ic50Range.high]))
    expect(new Set(below)).toEqual(new Set([ic50Range.low]))
    expect([...inhibition.values].some((value) => value !== null && value <= 0)).toBe(true)
  })
})
