import { describe, expect, it } from 'vitest'
import { isNewStructure, newBatch, newMolecule, structureOf } from './registry-records.ts'

const issuesOf = (result: { success: boolean; error?: { issues: unknown[] } }) =>
  JSON.stringify(result.error?.issues ?? [])

describe('registration payloads', () => {
  it('take a new molecule with exactly one structure, a name and a project', () => {
    const molecule = { name: 'VD-1', smiles: 'CCO', projects: [1] }
    expect(newMolecule.safeParse(molecule).success).toBe(true)
    expect(
      structureOf(newMolecule.parse({ ...molecule, smiles: undefined, molfile: 'M' })),
    ).toEqual({ member: 'molfile', text: 'M' })
    const molfile = '\n     RDKit          2D\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n'
    expect(newMolecule.parse({ name: 'VD-2', molfile, projects: [1] }).molfile).toBe(molfile)
    expect(newMolecule.safeParse({ ...molecule, smiles: ' \n ' }).success).toBe(false)
    const twice = newMolecule.safeParse({ ...molecule, cxsmiles: 'CCO |$;;$|' })
    expect(issuesOf(twice)).toContain('exactly one of smiles, cxsmiles or molfile')
    const none = newMolecule.safeParse({ name: 'VD-1', projects: [1] })
    expect(issuesOf(none)).toContain('exactly one of smiles, cxsmiles or molfile')
    expect(issuesOf(newMolecule.safeParse({ ...molecule, projects: [] }))).toContain(
      'at least one project',
    )
    expect(newMolecule.safeParse({ ...molecule, name: '  ' }).success).toBe(false)
    expect(newMolecule.safeParse({ ...molecule, colour: 'blue' }).success).toBe(false)
  })

  it('take a new batch of a molecule by id, by the item creating it, or of a new structure', () => {
    const batch = { projects: [1], batch_fields: { 'Purity (%)': 98 } }
    for (const molecule of [{ id: 4 }, { item: 7 }]) {
      const parsed = newBatch.parse({ ...batch, molecule })
      expect(isNewStructure(parsed.molecule)).toBe(false)
    }
    const structure = newBatch.parse({
      ...batch,
      molecule: { smiles: 'CCO', duplicate_resolution: 'prompt' },
    })
    expect(isNewStructure(structure.molecule)).toBe(true)
    expect(
      newBatch.safeParse({ ...batch, molecule: { smiles: 'CCO', duplicate_resolution: 'maybe' } })
        .success,
    ).toBe(false)
    expect(
      newBatch.safeParse({ ...batch, molecule: { duplicate_resolution: 'new' } }).success,
    ).toBe(false)
    expect(newBatch.safeParse({ ...batch, molecule: { id: 4, item: 7 } }).success).toBe(false)
    expect(newBatch.safeParse({ projects: [1] }).success).toBe(false)
  })
})
