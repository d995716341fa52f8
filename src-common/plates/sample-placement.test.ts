import { describe, expect, it } from 'vitest'
import { checkSampleFields, type SampleFieldDefinition } from './sample-placement.ts'

const defined: SampleFieldDefinition[] = [
  { name: 'Solvent', dataType: 'Pick List', choices: ['DMSO', 'Water'], source: 'definition' },
  { name: 'Tare (mg)', dataType: 'Number', choices: [], source: 'definition' },
  { name: 'Prepared On', dataType: 'Date', choices: [], source: 'definition' },
  { name: 'Concentration', dataType: 'Text', choices: [], source: 'definition' },
  { name: 'Form', dataType: 'Pick List', choices: [], source: 'definition' },
]

describe('checkSampleFields', () => {
  it('types each value by its definition and leaves empty ones out', () => {
    expect(
      checkSampleFields(defined, {
        Solvent: ' dmso ',
        'Tare (mg)': '1,25',
        'Prepared On': '2024-02-29',
        Concentration: '10 mM',
        Form: 'needles',
        'Empty one': '  ',
      }),
    ).toEqual({
      ok: true,
      fields: {
        Solvent: 'DMSO',
        'Tare (mg)': 1.25,
        'Prepared On': '2024-02-29',
        Concentration: '10 mM',
        // A pick list whose values the cache lacks: the vault judges the text.
        Form: 'needles',
      },
    })
  })

  it('names every value it cannot take, and the fields it knows', () => {
    expect(
      checkSampleFields(defined, {
        Solvent: 'acetone',
        'Tare (mg)': 'heavy',
        'Prepared On': '2023-02-29',
        Colour: 'white',
      }),
    ).toEqual({
      ok: false,
      problems: [
        { name: 'Solvent', message: 'Solvent takes one of DMSO, Water; not "acetone".' },
        { name: 'Tare (mg)', message: 'Tare (mg) takes a number, not "heavy".' },
        {
          name: 'Prepared On',
          message: 'Prepared On takes a date as YYYY-MM-DD, not "2023-02-29".',
        },
        {
          name: 'Colour',
          message:
            'Colour is not a sample field of this vault (known: Solvent, Tare (mg), Prepared On, Concentration, Form).',
        },
      ],
    })
    expect(checkSampleFields(defined, { 'Prepared On': '02/11/2026' })).toMatchObject({
      ok: false,
    })
  })

  it('takes any name as text where the cache knows the fields only from its samples', () => {
    const seen: SampleFieldDefinition[] = [
      { name: 'Solvent', dataType: 'Text', choices: [], source: 'samples' },
    ]
    expect(checkSampleFields(seen, { Solvent: 'DMSO', Colour: '12' })).toEqual({
      ok: true,
      fields: { Solvent: 'DMSO', Colour: '12' },
    })
    expect(checkSampleFields([], { Colour: 'white' })).toEqual({
      ok: true,
      fields: { Colour: 'white' },
    })
  })
})
