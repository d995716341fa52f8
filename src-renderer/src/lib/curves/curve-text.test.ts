import { describe, expect, it } from 'vitest'
import { concentrationUnit } from './concentration-units.ts'
import {
  noCurveText,
  placeText,
  pointStatus,
  pointTooltip,
  potencyName,
  potencyText,
  rSquaredText,
  sourceText,
} from './curve-text.ts'
import { seriesOf } from './series-fixture.ts'

const micromolar = concentrationUnit('uM')

describe('a curve panel in words', () => {
  it('gives the potency with its interval, in readable units', () => {
    expect(potencyText(seriesOf(), micromolar)).toBe('350 nM (95% CI 200 nM–600 nM)')
    const beyond = seriesOf({
      drawn: {
        source: 'vault',
        equationType: 'Hill',
        parameters: { min: 0, max: 100, slope: 1, ic50: 0.000007 },
        stale: false,
      },
    })
    expect(potencyText(beyond, micromolar)).toBe(
      '7 pM (95% CI 200 nM–600 nM), below the tested range',
    )
    expect(potencyText(seriesOf({ drawn: null }), micromolar)).toBeNull()
  })

  it('names the potency as the result readout does', () => {
    const calculation = (name: string) =>
      ({ result: { definitionId: 1, name, unit: 'uM' }, name: 'Fit' }) as never
    expect(potencyName(calculation('EC50'))).toBe('EC50')
    expect(potencyName(calculation('pIC50 (M)'))).toBe('pIC50')
    expect(potencyName(calculation('Potency'))).toBe('IC50')
    expect(potencyName(null)).toBe('IC50')
  })

  it('says which fit is drawn and why', () => {
    expect(sourceText(seriesOf())).toBe('Local refit: corrections pending')
    const settled = seriesOf()
    settled.points = settled.points.map((point) => ({ ...point, pending: null }))
    expect(sourceText(settled)).toBe('Local fit: points changed since the vault fitted')
    expect(sourceText({ ...settled, drawn: { ...settled.drawn!, source: 'vault' } })).toBe(
      'Vault fit',
    )
    expect(sourceText({ ...settled, drawn: null })).toBe('No curve')
    expect(rSquaredText(seriesOf())).toBe('0.991')
  })

  it('says why there is no curve', () => {
    const failed = seriesOf({ drawn: null })
    failed.local = {
      ...failed.local,
      converged: false,
      outcome: 'not converged',
      reason: 'the slope ran away',
    }
    expect(noCurveText(failed)).toBe('No curve: the slope ran away')
    failed.local = { ...failed.local, outcome: 'inactive', reason: 'every response within 0–20' }
    expect(noCurveText(failed)).toBe('Inactive: every response within 0–20')
  })

  it('describes a point: its values, well, plate and what the fit made of it', () => {
    const points = seriesOf().points
    const pending = points.find((point) => point.rowId === 4)!
    expect(pointTooltip(pending, micromolar, '%')).toEqual([
      'Concentration 1 µM',
      'Response 90 %',
      'well A04, plate P-0040',
      'outlier, not fitted; correction pending',
    ])
    const qualified = points.find((point) => point.rowId === 5)!
    expect(pointStatus(qualified)).toBe('qualified value, not fitted')
    expect(placeText({ ...qualified, plateName: null })).toBe('well A05, plate #40')
  })
})
