import { describe, expect, it } from 'vitest'
import { settle } from '../testing/bridge-double.ts'
import { quietBridge, svgOf } from '../testing/quiet-bridge.ts'
import { rowOf } from '../testing/rows.ts'
import { shownProperty } from './molecule-properties.ts'
import { MoleculeStructure } from './molecule-structure.svelte.ts'

describe('molecule properties', () => {
  const computed = {
    computed: { molecularWeight: 180.159, logP: 1.31, heavyAtomCount: 13, exactMass: 180.0423 },
    fromServer: ['molecularWeight' as const],
  }

  it("shows the vault's value where it gave one, else the one computed here, marked", () => {
    const record = rowOf('molecules', { id: 4, molecular_weight: 180.16, log_p: null })
    expect(shownProperty('molecularWeight', record, computed)).toEqual({
      name: 'molecularWeight',
      label: 'Molecular weight',
      value: '180.16 g/mol',
      computedHere: false,
    })
    expect(shownProperty('logP', record, computed)).toEqual({
      name: 'logP',
      label: 'cLogP',
      value: '1.31',
      computedHere: true,
    })
    expect(shownProperty('heavyAtomCount', record, computed)).toMatchObject({
      value: '13',
      computedHere: true,
    })
    expect(shownProperty('topologicalPolarSurfaceArea', record, computed)).toMatchObject({
      value: null,
      computedHere: false,
    })
    expect(shownProperty('logP', record, null).value).toBeNull()
  })

  it('reads a property the cache keeps as a column from it, any other from the record', () => {
    const cached = rowOf('molecules', { id: 4, topological_polar_surface_area: '63.6' })
    const molecule = { ...cached, columns: { ...cached.columns, log_p: 2.5 } }
    expect(shownProperty('logP', molecule, null).value).toBe('2.5')
    expect(shownProperty('topologicalPolarSurfaceArea', molecule, null).value).toBe('63.6 Å²')
  })

  it('does not mark a value main says came from the vault', () => {
    expect(shownProperty('molecularWeight', rowOf('molecules', { id: 4 }), computed)).toMatchObject(
      {
        value: '180.159 g/mol',
        computedHere: false,
      },
    )
  })
})

describe('MoleculeStructure', () => {
  it('draws the molecule large, highlighting the query it was found by, and reads its properties', async () => {
    const bridge = quietBridge().answer('chem.depict', async () => ({
      ok: true,
      value: { kind: 'svg', svg: svgOf('aspirin'), highlighted: true },
    }))
    const target = { connectionId: 'c1', vaultId: 1, moleculeId: 4 }
    const structure = new MoleculeStructure(bridge, target, {
      query: 'c1ccccc1',
      language: 'smiles',
    })
    expect(structure.depiction).toEqual({ status: 'loading' })
    await structure.load()
    expect(bridge.calls.find((call) => call.channel === 'chem.depict')!.args).toEqual({
      ...target,
      size: 'detail',
      highlight: { query: 'c1ccccc1', language: 'smiles' },
    })
    expect(structure.depiction).toMatchObject({
      status: 'shown',
      depiction: { kind: 'image', highlighted: true },
    })
    expect(structure.properties).toEqual({ computed: {}, fromServer: [] })
  })

  it('flags a structure that cannot be parsed, and keeps going when properties fail', async () => {
    const bridge = quietBridge()
      .answer('chem.depict', async () => ({
        ok: true,
        value: {
          kind: 'unparseable',
          reason: "SMILES Parse Error: syntax error for input: 'C1CC'",
        },
      }))
      .answer('chem.properties', async () => ({
        ok: false,
        error: { code: 'invalid_argument', message: 'No structure' },
      }))
    const structure = new MoleculeStructure(
      bridge,
      { connectionId: 'c1', vaultId: 1, moleculeId: 5 },
      null,
    )
    await structure.load()
    await settle()
    expect(bridge.calls[0]!.args).not.toHaveProperty('highlight')
    expect(structure.depiction).toEqual({
      status: 'shown',
      depiction: {
        kind: 'unparseable',
        reason: "SMILES Parse Error: syntax error for input: 'C1CC'",
      },
    })
    expect(structure.properties).toBeNull()
  })
})
