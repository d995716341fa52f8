import { describe, expect, it } from 'vitest'
import {
  closestFirst,
  editDistance,
  listNames,
  lookUpName,
  protocolEntryOf,
  readoutDefinitionEntryOf,
} from './catalogue.ts'

describe('reading catalogue entries from protocol records', () => {
  it('reads readout definitions as the vault sends them, tolerating strings and gaps', () => {
    expect(
      readoutDefinitionEntryOf({
        id: '14',
        name: ' IC50 ',
        data_type: 'Number',
        unit_label: 'uM',
        precision: 3,
        aggregation: 'geometric mean',
      }),
    ).toEqual({
      id: 14,
      name: 'IC50',
      valueType: 'number',
      unit: 'uM',
      aggregation: 'geometric mean',
    })
    expect(readoutDefinitionEntryOf({ id: 15, data_type: 'Text', unit_label: '' })).toEqual({
      id: 15,
      name: 'Readout 15',
      valueType: 'text',
      unit: null,
      aggregation: null,
    })
    expect(readoutDefinitionEntryOf({ name: 'no id' })).toBeNull()
    expect(readoutDefinitionEntryOf('IC50')).toBeNull()
  })

  it('reads a protocol with its definitions, skipping those without an id', () => {
    expect(
      protocolEntryOf({
        id: 3,
        name: 'Kinetic Solubility (PBS pH 7.4)',
        readout_definitions: [{ id: 30, name: 'Solubility', data_type: 'Number' }, { name: 'x' }],
      }),
    ).toEqual({
      id: 3,
      name: 'Kinetic Solubility (PBS pH 7.4)',
      readouts: [
        { id: 30, name: 'Solubility', valueType: 'number', unit: null, aggregation: null },
      ],
    })
    expect(protocolEntryOf({ id: 4 })).toEqual({ id: 4, name: 'Protocol 4', readouts: [] })
    expect(protocolEntryOf(null)).toBeNull()
  })
})

describe('finding names', () => {
  const entries = [
    { name: 'Kinase IC50 (ADP-Glo)' },
    { name: 'GPCR Radioligand Displacement' },
    { name: 'μ-opioid binding' },
    { name: 'Tox' },
    { name: 'TOX' },
  ]

  it('counts edits, swaps of neighbours as one', () => {
    expect(editDistance('IC05', 'IC50')).toBe(1)
    expect(editDistance('ADP Glo', 'ADP-Glo')).toBe(1)
    expect(editDistance('kitten', 'sitting')).toBe(3)
    expect(editDistance('', 'abc')).toBe(3)
    expect(editDistance('abc', 'abc')).toBe(0)
  })

  it('finds exactly, then ignoring case, compatibility forms and spaces', () => {
    expect(lookUpName('Tox', entries)).toEqual({ found: entries[3] })
    expect(lookUpName('kinase  ic50 (adp-glo) ', entries)).toEqual({ found: entries[0] })
    expect(lookUpName('µ-Opioid Binding', entries)).toEqual({ found: entries[2] })
    expect(lookUpName('tox', entries)).toEqual({ ambiguous: [entries[3], entries[4]] })
  })

  it('orders unknown names by closeness, names that contain what was typed first', () => {
    const lookup = lookUpName('gpcr', entries)
    expect('unknown' in lookup && lookup.closest.map((entry) => entry.name)[0]).toBe(
      'GPCR Radioligand Displacement',
    )
    expect(closestFirst('Kinase IC50 (ADP Glo)', entries)[0]?.name).toBe('Kinase IC50 (ADP-Glo)')
    // Both spellings of Tox are inside "Toxx" (kept in catalogue order); then 16 letters of
    // μ-opioid binding take fewer edits from "toxx" than the 21 of the kinase assay.
    expect(closestFirst('Toxx', entries).map((entry) => entry.name)).toEqual([
      'Tox',
      'TOX',
      'μ-opioid binding',
      'Kinase IC50 (ADP-Glo)',
      'GPCR Radioligand Displacement',
    ])
  })

  it('lists at most eight names in a message', () => {
    expect(listNames(['a', 'b'])).toBe('"a", "b"')
    expect(listNames(Array.from({ length: 11 }, (_, index) => `P${index}`))).toBe(
      '"P0", "P1", "P2", "P3", "P4", "P5", "P6", "P7" and 3 more',
    )
  })
})
