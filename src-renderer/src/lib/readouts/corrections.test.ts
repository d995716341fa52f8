import { describe, expect, it } from 'vitest'
import { editOf, readoutChanges } from './corrections.ts'
import type { ReadoutCell } from './readout-cell.ts'
import type { ReadoutDefinition } from './readout-rows.ts'

const definition = (id: number, name: string, text = false): ReadoutDefinition => ({
  id,
  name,
  unit: null,
  precision: 1,
  calculated: false,
  text,
})
const inhibition = definition(2, '% Inhibition')
const comment = definition(4, 'Comment', true)
const cell = (value: number | string | null, outlier = false): ReadoutCell => ({
  value,
  qualifier: null,
  outlier,
  note: null,
})

describe('readoutChanges', () => {
  const cells = new Map([
    [2, cell(47.7)],
    [4, cell('ok')],
  ])

  it('keeps only what changed: a value, a flag, a cleared value', () => {
    expect(
      readoutChanges(
        [inhibition, comment],
        cells,
        new Map([
          [2, { value: '12.5', outlier: true }],
          [4, editOf(cells.get(4))],
        ]),
      ),
    ).toEqual({ ok: true, readouts: { '2': { value: 12.5, outlier: true } } })
    expect(readoutChanges([comment], cells, new Map([[4, { value: '', outlier: false }]]))).toEqual(
      { ok: true, readouts: { '4': { value: null } } },
    )
  })

  it('says what is wrong: words for a number, an outlier without a number, nothing changed', () => {
    expect(
      readoutChanges([inhibition], cells, new Map([[2, { value: 'high', outlier: false }]])),
    ).toEqual({ ok: false, message: '% Inhibition takes a number, not “high”.' })
    expect(
      readoutChanges([comment], cells, new Map([[4, { value: 'ok', outlier: true }]])),
    ).toEqual({ ok: false, message: 'Comment cannot be an outlier: only a numeric value can.' })
    expect(readoutChanges([inhibition], cells, new Map([[2, editOf(cells.get(2))]]))).toEqual({
      ok: false,
      message: 'Nothing was changed.',
    })
  })
})
