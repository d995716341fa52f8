/**
 * The person's plate-quality choices, remembered across sessions in the page's local storage:
 * the flag thresholds (Z′ below which a plate is flagged yellow and red, the deviations in
 * standard deviations at which a well is marked) and how heat maps colour (sequential or
 * diverging, centred on the negative controls' mean or on a value). Defaults are the vault's
 * (src-common/analysis/plate-quality.ts): warnings at one, two and three standard deviations, Z′
 * below 0.5 yellow and below 0 red. A threshold that cannot hold is refused with the reason and
 * the last good one kept.
 */
import {
  DEFAULT_PLATE_THRESHOLDS,
  type PlateQualityThresholds,
} from '../../../../src-common/analysis/plate-quality.ts'
import type { ScaleKind } from './heat-scale.ts'

/** Where the choices are kept: the page's local storage, or nothing (tests, hosts without it). */
export interface SettingsStore {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}

export const qualityStorageKey = 'vault-desk.plates.quality'

/** Where a diverging scale is centred: the negative controls' mean, or a value. */
export type ScaleCentre = { on: 'negative controls' } | { on: 'value'; value: number }

export interface HeatMapChoice {
  kind: ScaleKind
  centre: ScaleCentre
}

export const defaultHeatMap: HeatMapChoice = {
  kind: 'sequential',
  centre: { on: 'negative controls' },
}

/** Why thresholds cannot hold, or null when they can. */
export function thresholdProblem(thresholds: PlateQualityThresholds): string | null {
  const { zPrimeWarningBelow: warning, zPrimeFailureBelow: failure, deviationLevels } = thresholds
  if (!Number.isFinite(warning) || !Number.isFinite(failure)) {
    return 'Z′ thresholds must be numbers.'
  }
  if (warning > 1 || failure > 1)
    return 'Z′ is never above 1: a threshold above it flags every plate.'
  if (failure > warning) return 'The red threshold must not be above the yellow one.'
  if (deviationLevels.length === 0 || deviationLevels.length > 5) {
    return 'Give one to five deviation levels.'
  }
  if (deviationLevels.some((level) => !Number.isFinite(level) || level <= 0 || level > 100)) {
    return 'Deviation levels are standard deviations above 0 (and at most 100).'
  }
  if (deviationLevels.some((level, index) => index > 0 && level <= deviationLevels[index - 1]!)) {
    return 'Deviation levels must rise, each above the one before.'
  }
  return null
}

export class PlateQualitySettings {
  #thresholds = $state<PlateQualityThresholds>(copy(DEFAULT_PLATE_THRESHOLDS))
  #heatMap = $state<HeatMapChoice>({ ...defaultHeatMap })
  readonly #store: SettingsStore | null

  constructor(store: SettingsStore | null) {
    this.#store = store
    const saved = this.#read()
    const thresholds = readThresholds(saved.thresholds)
    if (thresholds && thresholdProblem(thresholds) === null) this.#thresholds = thresholds
    const heatMap = readHeatMap(saved.heatMap)
    if (heatMap) this.#heatMap = heatMap
  }

  get thresholds(): PlateQualityThresholds {
    return this.#thresholds
  }

  /** The thresholds as plain data, for a request (a state proxy cannot cross to main). */
  thresholdsToSend(): {
    zPrimeWarningBelow: number
    zPrimeFailureBelow: number
    deviationLevels: number[]
  } {
    const { zPrimeWarningBelow, zPrimeFailureBelow, deviationLevels } = this.#thresholds
    return { zPrimeWarningBelow, zPrimeFailureBelow, deviationLevels: [...deviationLevels] }
  }

  get heatMap(): HeatMapChoice {
    return this.#heatMap
  }

  /** Whether the thresholds are the vault's defaults. */
  get defaults(): boolean {
    return JSON.stringify(this.#thresholds) === JSON.stringify(DEFAULT_PLATE_THRESHOLDS)
  }

  /** Takes new thresholds and remembers them; answers why not when they cannot hold. */
  setThresholds(thresholds: PlateQualityThresholds): string | null {
    const problem = thresholdProblem(thresholds)
    if (problem) return problem
    this.#thresholds = copy(thresholds)
    this.#save()
    return null
  }

  resetThresholds(): void {
    this.#thresholds = copy(DEFAULT_PLATE_THRESHOLDS)
    this.#save()
  }

  setHeatMap(choice: HeatMapChoice): void {
    this.#heatMap = readHeatMap(choice) ?? { ...defaultHeatMap }
    this.#save()
  }

  #save(): void {
    try {
      this.#store?.setItem(
        qualityStorageKey,
        JSON.stringify({ thresholds: this.#thresholds, heatMap: this.#heatMap }),
      )
    } catch {
      // A full or forbidden storage only costs the memory across sessions.
    }
  }

  #read(): { thresholds?: unknown; heatMap?: unknown } {
    try {
      const saved: unknown = JSON.parse(this.#store?.getItem(qualityStorageKey) ?? '{}')
      return saved !== null && typeof saved === 'object' ? saved : {}
    } catch {
      return {}
    }
  }
}

/** The page's local storage, or null where there is none. */
export function pageStorage(): SettingsStore | null {
  try {
    return (globalThis as { localStorage?: SettingsStore }).localStorage ?? null
  } catch {
    return null
  }
}

let shared: PlateQualitySettings | null = null

/** One set of choices for every plate view of the window. */
export function plateQualitySettings(): PlateQualitySettings {
  shared ??= new PlateQualitySettings(pageStorage())
  return shared
}

function copy(thresholds: Readonly<PlateQualityThresholds>): PlateQualityThresholds {
  return { ...thresholds, deviationLevels: [...thresholds.deviationLevels] }
}

function readThresholds(raw: unknown): PlateQualityThresholds | null {
  if (raw === null || typeof raw !== 'object') return null
  const given = raw as Record<string, unknown>
  const levels = given.deviationLevels
  if (
    typeof given.zPrimeWarningBelow !== 'number' ||
    typeof given.zPrimeFailureBelow !== 'number' ||
    !Array.isArray(levels) ||
    !levels.every((level) => typeof level === 'number')
  ) {
    return null
  }
  return {
    zPrimeWarningBelow: given.zPrimeWarningBelow,
    zPrimeFailureBelow: given.zPrimeFailureBelow,
    deviationLevels: levels as number[],
  }
}

function readHeatMap(raw: unknown): HeatMapChoice | null {
  if (raw === null || typeof raw !== 'object') return null
  const given = raw as Record<string, unknown>
  if (given.kind !== 'sequential' && given.kind !== 'diverging') return null
  const centre = given.centre as Record<string, unknown> | null | undefined
  if (centre?.on === 'value' && typeof centre.value === 'number' && Number.isFinite(centre.value)) {
    return { kind: given.kind, centre: { on: 'value', value: centre.value } }
  }
  return { kind: given.kind, centre: { on: 'negative controls' } }
}
