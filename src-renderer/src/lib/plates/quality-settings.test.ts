import { describe, expect, it } from 'vitest'
import {
  PlateQualitySettings,
  qualityStorageKey,
  thresholdProblem,
  type SettingsStore,
} from './quality-settings.svelte.ts'

function memory(
  initial: Record<string, string> = {},
): SettingsStore & { saved: Record<string, string> } {
  const saved = { ...initial }
  return {
    saved,
    getItem: (key) => saved[key] ?? null,
    setItem: (key, value) => void (saved[key] = value),
  }
}

describe('plate quality settings', () => {
  it('start from the vault’s defaults and remember the person’s thresholds and scale', () => {
    const store = memory()
    const settings = new PlateQualitySettings(store)
    expect(settings.thresholds).toEqual({
      zPrimeWarningBelow: 0.5,
      zPrimeFailureBelow: 0,
      deviationLevels: [1, 2, 3],
    })
    expect(settings.defaults).toBe(true)
    expect(
      settings.setThresholds({
        zPrimeWarningBelow: 0.6,
        zPrimeFailureBelow: 0.2,
        deviationLevels: [2, 4],
      }),
    ).toBeNull()
    settings.setHeatMap({ kind: 'diverging', centre: { on: 'value', value: 50 } })
    const next = new PlateQualitySettings(store)
    expect(next.thresholds).toEqual({
      zPrimeWarningBelow: 0.6,
      zPrimeFailureBelow: 0.2,
      deviationLevels: [2, 4],
    })
    expect(next.defaults).toBe(false)
    expect(next.heatMap).toEqual({ kind: 'diverging', centre: { on: 'value', value: 50 } })
    expect(next.thresholdsToSend()).toEqual(next.thresholds)
    next.resetThresholds()
    expect(new PlateQualitySettings(store).defaults).toBe(true)
  })

  it('refuse thresholds that cannot hold, keeping the last good ones', () => {
    const settings = new PlateQualitySettings(memory())
    expect(
      settings.setThresholds({
        zPrimeWarningBelow: 0.2,
        zPrimeFailureBelow: 0.5,
        deviationLevels: [1],
      }),
    ).toBe('The red threshold must not be above the yellow one.')
    expect(
      thresholdProblem({ zPrimeWarningBelow: 1.5, zPrimeFailureBelow: 0, deviationLevels: [1] }),
    ).toMatch(/never above 1/)
    expect(
      thresholdProblem({ zPrimeWarningBelow: 0.5, zPrimeFailureBelow: 0, deviationLevels: [2, 1] }),
    ).toBe('Deviation levels must rise, each above the one before.')
    expect(
      thresholdProblem({ zPrimeWarningBelow: 0.5, zPrimeFailureBelow: 0, deviationLevels: [] }),
    ).toBe('Give one to five deviation levels.')
    expect(
      thresholdProblem({
        zPrimeWarningBelow: Number.NaN,
        zPrimeFailureBelow: 0,
        deviationLevels: [1],
      }),
    ).toBe('Z′ thresholds must be numbers.')
    expect(settings.thresholds.zPrimeWarningBelow).toBe(0.5)
  })

  it('ignore saved choices that are broken or cannot hold', () => {
    const broken = new PlateQualitySettings(memory({ [qualityStorageKey]: '{not json' }))
    expect(broken.defaults).toBe(true)
    const impossible = new PlateQualitySettings(
      memory({
        [qualityStorageKey]: JSON.stringify({
          thresholds: { zPrimeWarningBelow: 0, zPrimeFailureBelow: 0.9, deviationLevels: [1] },
          heatMap: { kind: 'rainbow' },
        }),
      }),
    )
    expect(impossible.defaults).toBe(true)
    expect(impossible.heatMap.kind).toBe('sequential')
    expect(new PlateQualitySettings(null).defaults).toBe(true)
  })
})
