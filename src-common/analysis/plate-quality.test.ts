/**
 * Plate statistics against values worked out by hand (in the comments), never from the code.
 */
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_PLATE_THRESHOLDS,
  plateQuality,
  zPrimeFlag,
  type PlateWellInput,
} from './plate-quality.ts'

/**
 * A 96-well fixture: positive controls in column 1, negative controls in column 2, samples in
 * columns 3 and 4 of rows A to D.
 *
 * positive: 100, 104, 96, 100   mean 100, squares 0 + 16 + 16 + 0 = 32, SD = √(32/3) = 3.2659863
 * negative: 10, 12, 8, 10       mean 10,  squares 0 + 4 + 4 + 0 = 8,    SD = √(8/3)  = 1.6329932
 * samples:  10, 15, 5, 10, 0, 20, 10, 10
 *                               mean 10,  squares 0+25+25+0+100+100+0+0 = 250, SD = √(250/7) = 5.9761430
 *
 * Z'  = 1 - 3(3.2659863 + 1.6329932) / |100 - 10| = 1 - 14.6969385 / 90 = 0.8367007
 * Z   = 1 - 3(5.9761430 + 3.2659863) / |10 - 100| = 1 - 27.7263879 / 90 = 0.6919290  (vs +)
 * Z against the negative control: |10 - 10| = 0, undefined.
 * signal window = (100 - 10 - 3(3.2659863 + 1.6329932)) / 3.2659863 = 75.3030615 / 3.2659863
 *               = 23.0567
 * signal to background = 100 / 10 = 10
 * CV: positive 3.2659863 %, negative 16.329932 %, samples 59.761430 %
 * Deviations: well B01 (104): 4 / 3.2659863 = 1.2247 SD (level 1), and C01 (96) the same below;
 * B02 (12) and C02 (8): 2 / 1.6329932 = 1.2247 SD (level 1): four control wells beyond 1 SD, none
 * beyond 2. Sample C04 (20): 10 / 5.976 = 1.6733 SD (level 1); A01 (100): 0 (level 0).
 * Sample row means: A (10 + 15) / 2 = 12.5, B (5 + 10) / 2 = 7.5, C (0 + 20) / 2 = 10, D 10;
 * column means: 3: (10 + 5 + 0 + 10) / 4 = 6.25, 4: (15 + 10 + 20 + 10) / 4 = 13.75.
 */
const fixture: PlateWellInput[] = [
  { position: 'A01', value: 100, controlState: '+' },
  { position: 'B01', value: 104, controlState: '+' },
  { position: 'C01', value: 96, controlState: '+' },
  { position: 'D01', value: 100, controlState: '+' },
  { row: 1, column: 2, value: 10, controlState: '-' },
  { row: 2, column: 2, value: 12, controlState: '-' },
  { row: 3, column: 2, value: 8, controlState: '-' },
  { row: 4, column: 2, value: 10, controlState: '-' },
  { position: 'A03', value: 10 },
  { position: 'A04', value: 15, controlState: null },
  { position: 'B03', value: 5, controlState: '' },
  { position: 'B04', value: '10' },
  { position: 'C03', value: 0 },
  { position: 'C4', value: 20, key: 'C04' },
  { position: 'd03', value: 10 },
  { position: 'D04', value: 10 },
]

describe('plate quality of a hand-computed fixture', () => {
  const quality = plateQuality(fixture)

  it('summarises each group with the sample standard deviation and CV', () => {
    expect(quality.groups.positive.n).toBe(4)
    expect(quality.groups.positive.mean).toBe(100)
    expect(quality.groups.positive.standardDeviation).toBeCloseTo(3.2659863, 6)
    expect(quality.groups.positive.cvPercent).toBeCloseTo(3.2659863, 6)
    expect(quality.groups.negative.standardDeviation).toBeCloseTo(1.6329932, 6)
    expect(quality.groups.negative.cvPercent).toBeCloseTo(16.329932, 5)
    expect(quality.groups.samples).toMatchObject({ n: 8, mean: 10 })
    expect(quality.groups.samples.standardDeviation).toBeCloseTo(5.976143, 6)
    expect(quality.groups.samples.cvPercent).toBeCloseTo(59.76143, 4)
    expect(quality.groups.reference).toEqual({
      n: 0,
      mean: null,
      standardDeviation: null,
      cvPercent: null,
    })
  })

  it("computes Z', Z, the signal window and signal to background", () => {
    expect(quality.zPrime.value).toBeCloseTo(0.8367007, 6)
    expect(quality.zPrime.reason).toBeNull()
    expect(quality.z.value).toBeCloseTo(0.691929, 6)
    expect(quality.z.control).toBe('+')
    expect(quality.signalWindow.value).toBeCloseTo(23.0567, 3)
    expect(quality.signalToBackground.value).toBe(10)
  })

  it('flags the plate ok with the default thresholds', () => {
    expect(quality.flag).toEqual({ level: 'ok', reasons: [] })
    expect(quality.thresholds).toEqual({
      zPrimeWarningBelow: 0.5,
      zPrimeFailureBelow: 0,
      deviationLevels: [1, 2, 3],
    })
  })

  it('says why Z against the negative control is undefined (the means coincide)', () => {
    const againstNegative = plateQuality(fixture, { zControl: '-' })
    expect(againstNegative.z).toEqual({
      value: null,
      reason: 'Z is undefined: the sample and negative control means are equal',
      control: '-',
    })
  })

  it('places each well in standard deviations from its group', () => {
    const byPosition = (row: number, column: number) =>
      quality.deviations.find((well) => well.row === row && well.column === column)!
    expect(byPosition(2, 1).deviation).toBeCloseTo(1.2247449, 6)
    expect(byPosition(2, 1)).toMatchObject({ group: 'positive', level: 1 })
    expect(byPosition(3, 4)).toMatchObject({ group: 'samples', level: 1, key: 'C04' })
    expect(byPosition(3, 4).deviation).toBeCloseTo(1.6733201, 6)
    expect(byPosition(1, 1)).toMatchObject({ deviation: 0, level: 0 })
    expect(quality.controlWellsBeyond).toEqual([4, 0, 0])
  })

  it('gives row and column means of the samples on the standard 96-well grid', () => {
    expect(quality.rows.map((row) => [row.label, row.n, row.mean])).toEqual([
      ['A', 2, 12.5],
      ['B', 2, 7.5],
      ['C', 2, 10],
      ['D', 2, 10],
      ['E', 0, null],
      ['F', 0, null],
      ['G', 0, null],
      ['H', 0, null],
    ])
    expect(quality.columns).toHaveLength(12)
    expect(quality.columns.slice(0, 4).map((column) => column.mean)).toEqual([
      null,
      null,
      6.25,
      13.75,
    ])
    expect(quality.wells).toEqual({ total: 16, used: 16, unplaced: 0, excluded: [] })
  })
})

describe('flags', () => {
  it('turns to warning and failure at the thresholds a person sets', () => {
    expect(plateQuality(fixture, { thresholds: { zPrimeWarningBelow: 0.9 } }).flag).toEqual({
      level: 'warning',
      reasons: ["Z' 0.84 is below 0.9"],
    })
    expect(plateQuality(fixture, { thresholds: { zPrimeFailureBelow: 0.85 } }).flag).toEqual({
      level: 'failure',
      reasons: ["Z' 0.84 is below 0.85"],
    })
  })

  it("fails a plate whose controls overlap at 3 SD (Z' below 0)", () => {
    // positive 50, 60, 40: mean 50, SD 10; negative 20, 30, 10: mean 20, SD 10.
    // Z' = 1 - 3 · 20 / 30 = -1.
    const wells = [50, 60, 40, 20, 30, 10].map((value, index) => ({
      row: index + 1,
      column: 1,
      value,
      controlState: index < 3 ? '+' : '-',
    }))
    const quality = plateQuality(wells)
    expect(quality.zPrime.value).toBeCloseTo(-1, 12)
    expect(quality.flag).toEqual({ level: 'failure', reasons: ["Z' -1.00 is below 0"] })
    // (50 - 20 - 3 · 20) / 10 = -3: no window at all.
    expect(quality.signalWindow.value).toBeCloseTo(-3, 12)
  })

  it('warns about a control well more than three standard deviations from its group', () => {
    // 15 positive wells at 100 and one at 140: mean 102.5, squares 15 · 6.25 + 37.5² = 1500,
    // SD = √(1500 / 15) = 10, so the odd well lies 37.5 / 10 = 3.75 SD out.
    // Negative: 8 wells at 9 and 8 at 11: mean 10, SD √(16 / 15) = 1.0328.
    // Z' = 1 - 3 (10 + 1.0328) / 92.5 = 0.6422, above 0.5.
    const wells: PlateWellInput[] = [
      ...Array.from({ length: 16 }, (_, index) => ({
        row: index + 1,
        column: 1,
        value: index === 15 ? 140 : 100,
        controlState: '+',
      })),
      ...Array.from({ length: 16 }, (_, index) => ({
        row: index + 1,
        column: 2,
        value: index % 2 === 0 ? 9 : 11,
        controlState: '-',
      })),
    ]
    const quality = plateQuality(wells)
    expect(quality.zPrime.value).toBeCloseTo(0.642181, 5)
    expect(quality.deviations[15]).toMatchObject({ deviation: 3.75, level: 3 })
    expect(quality.controlWellsBeyond).toEqual([1, 1, 1])
    expect(quality.flag).toEqual({
      level: 'warning',
      reasons: ["1 control well lies more than 3 standard deviations from its group's mean"],
    })
    // 16 rows: a 384-well grid.
    expect(quality.rows).toHaveLength(16)
    expect(quality.columns).toHaveLength(24)
  })
})

describe('missing and bad wells', () => {
  it('does not assess a plate without negative controls, and says why', () => {
    const quality = plateQuality(fixture.filter((well) => well.controlState !== '-'))
    expect(quality.zPrime).toEqual({
      value: null,
      reason:
        "Z' needs at least two positive control and two negative control wells with values; the plate has 0 negative control wells",
    })
    expect(quality.flag).toEqual({ level: 'not assessed', reasons: [quality.zPrime.reason] })
    expect(quality.signalToBackground.value).toBeNull()
    expect(quality.signalWindow.value).toBeNull()
  })

  it('needs two wells of a control for its standard deviation', () => {
    const quality = plateQuality([
      { position: 'A01', value: 100, controlState: '+' },
      ...fixture.filter((well) => well.controlState !== '+'),
    ])
    expect(quality.groups.positive).toEqual({
      n: 1,
      mean: 100,
      standardDeviation: null,
      cvPercent: null,
    })
    expect(quality.zPrime.reason).toBe(
      "Z' needs at least two positive control and two negative control wells with values; the plate has 1 positive control well",
    )
    expect(quality.z.value).toBeNull()
    expect(quality.deviations[0]).toMatchObject({ deviation: null, level: 0 })
  })

  it('leaves out outliers and values that are not numbers, each with its reason', () => {
    const quality = plateQuality([
      ...fixture,
      { position: 'E01', value: 500, controlState: '+', outlier: true, key: 'outlier' },
      { position: 'E02', value: 'n.d.', key: 'text' },
      { position: 'E03', value: '>30', key: 'qualified' },
      { position: 'E04', value: null, key: 'missing' },
      { position: 'E05', value: Number.NaN, key: 'nan' },
      { position: 'E06', value: 5, controlState: 'x', key: 'state' },
      { position: 'not a well', value: 10, key: 'unplaced' },
    ])
    expect(quality.wells.excluded.map((well) => [well.key, well.reason])).toEqual([
      ['outlier', 'outlier'],
      ['text', 'text value'],
      ['qualified', 'qualified value'],
      ['missing', 'missing value'],
      ['nan', 'non-finite value'],
      ['state', 'unknown control state'],
    ])
    expect(quality.wells).toMatchObject({ total: 23, used: 17, unplaced: 1 })
    // The outlier at 500 changed nothing.
    expect(quality.zPrime.value).toBeCloseTo(0.8367007, 6)
  })

  it('gives empty statistics for no wells', () => {
    const quality = plateQuality([])
    expect(quality.flag.level).toBe('not assessed')
    expect(quality.rows).toEqual([])
    expect(JSON.stringify(quality)).not.toContain('NaN')
  })
})

describe("a Z' against the flag thresholds", () => {
  it('is yellow below 0.5 and red below 0 by default, each threshold itself passing', () => {
    const flags = [0.9, 0.5, 0.4999, 0, -0.0001, -3].map((value) =>
      zPrimeFlag(value, DEFAULT_PLATE_THRESHOLDS),
    )
    expect(flags).toEqual(['ok', 'ok', 'warning', 'warning', 'failure', 'failure'])
  })

  it('follows thresholds the person sets, and assesses no missing or non-finite Z′', () => {
    const thresholds = { zPrimeWarningBelow: 0.7, zPrimeFailureBelow: 0.3, deviationLevels: [3] }
    expect([0.75, 0.6, 0.2].map((value) => zPrimeFlag(value, thresholds))).toEqual([
      'ok',
      'warning',
      'failure',
    ])
    for (const missing of [null, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(zPrimeFlag(missing, thresholds)).toBe('not assessed')
    }
  })
})
