import { describe, expect, it } from 'vitest'
import { readoutCorrection } from '../../../../src-common/outbox/payloads/readout-rows.ts'
import { outlierCorrection } from './outlier-marks.ts'

const calculation = {
  response: { definitionId: 12, name: '% Inhibition', unit: '%' },
  concentration: { definitionId: 11, name: 'Concentration', unit: 'uM' },
}

describe('an outlier mark from a curve panel', () => {
  it('flags the response readout of the row, as the correction dialog would', () => {
    const mark = outlierCorrection(
      { rowId: 301, response: 42, responseModifier: null },
      calculation,
      true,
    )
    expect(mark).toEqual({ ok: true, payload: { row: 301, readouts: { '12': { outlier: true } } } })
    // The queued payload is what the outbox accepts.
    expect(mark.ok && readoutCorrection.parse(mark.payload)).toEqual(mark.ok && mark.payload)
  })

  it('clears both flags when a mark is taken back', () => {
    const mark = outlierCorrection(
      { rowId: 301, response: 42, responseModifier: null },
      calculation,
      false,
    )
    expect(mark).toEqual({
      ok: true,
      payload: { row: 301, readouts: { '12': { outlier: false }, '11': { outlier: false } } },
    })
  })

  it('refuses what cannot be an outlier, saying why', () => {
    expect(
      outlierCorrection({ rowId: 1, response: null, responseModifier: null }, calculation, true),
    ).toMatchObject({ ok: false, message: expect.stringMatching(/only a measured number/i) })
    expect(
      outlierCorrection({ rowId: 1, response: 30, responseModifier: '>' }, calculation, true),
    ).toMatchObject({ ok: false, message: expect.stringMatching(/qualified/) })
    expect(
      outlierCorrection({ rowId: 1, response: 3, responseModifier: null }, null, true),
    ).toMatchObject({ ok: false, message: expect.stringMatching(/no response readout/) })
  })
})
