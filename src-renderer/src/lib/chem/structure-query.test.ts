import { describe, expect, it } from 'vitest'
import {
  clampThreshold,
  clampTop,
  criterionOf,
  defaultDraft,
  describeCriterion,
  describeRanges,
  isInchiKey,
  kindProblem,
  previewLanguage,
  rangesOf,
  type StructureDraft,
} from './structure-query.ts'

const draft = (changes: Partial<StructureDraft>): StructureDraft => ({
  ...defaultDraft,
  ...changes,
})
const smiles = { kind: 'drawn', language: 'smiles' } as const
const smarts = { kind: 'drawn', language: 'smarts' } as const

describe('structure queries', () => {
  it('reads substructure queries as typed, and exact and similarity queries as SMILES', () => {
    expect(previewLanguage(draft({ language: 'smarts' }))).toBe('smarts')
    expect(previewLanguage(draft({ kind: 'exact', language: 'smarts' }))).toBe('smiles')
    expect(previewLanguage(draft({ kind: 'similarity' }))).toBe('smiles')
  })

  it('makes the criterion records.list is asked with', () => {
    expect(criterionOf(draft({ text: ' c1ccccc1 ' }), smiles)).toEqual({
      kind: 'substructure',
      query: 'c1ccccc1',
    })
    expect(criterionOf(draft({ text: '[#6]~[#7]', language: 'smarts' }), smarts)).toEqual({
      kind: 'substructure',
      query: '[#6]~[#7]',
      language: 'smarts',
    })
    expect(criterionOf(draft({ kind: 'exact', text: 'CCO' }), smiles)).toEqual({
      kind: 'exact',
      query: 'CCO',
    })
    const key = 'LFQSCWFLJHTTHZ-UHFFFAOYSA-N'
    expect(isInchiKey(key)).toBe(true)
    expect(isInchiKey('CCO')).toBe(false)
    expect(criterionOf(draft({ kind: 'exact', text: key }), { kind: 'inchikey' })).toEqual({
      kind: 'exact',
      query: key,
    })
    expect(
      criterionOf(draft({ kind: 'similarity', text: 'CCO', threshold: 0.456 }), smiles),
    ).toEqual({ kind: 'similarity', smiles: 'CCO', threshold: 0.46 })
    expect(
      criterionOf(draft({ kind: 'similarity', text: 'CCO', cutoff: 'top', top: 5000 }), smiles),
    ).toEqual({ kind: 'similarity', smiles: 'CCO', top: 1000 })
  })

  it('asks nothing for empty, unchecked or invalid text, and says what is wrong', () => {
    expect(criterionOf(draft({ text: '  ' }), smiles)).toBeNull()
    expect(criterionOf(draft({ text: 'CCO' }), null)).toBeNull()
    const invalid = { kind: 'invalid', message: 'SMILES Parse Error: unclosed ring' } as const
    expect(criterionOf(draft({ text: 'c1cc' }), invalid)).toBeNull()
    expect(kindProblem(draft({ text: 'c1cc' }), invalid)).toBe('SMILES Parse Error: unclosed ring')
    expect(kindProblem(draft({ kind: 'similarity', text: '[#6]' }), smarts)).toMatch(/not a SMARTS/)
    expect(kindProblem(draft({ kind: 'exact', text: '[#6]' }), smarts)).toMatch(/not a pattern/)
    expect(kindProblem(draft({ text: 'X' }), { kind: 'inchikey' })).toMatch(/choose Exact/)
    expect(kindProblem(draft({ kind: 'similarity' }), { kind: 'inchikey' })).toMatch(/SMILES/)
    expect(kindProblem(draft({ text: 'CCO' }), smiles)).toBeNull()
  })

  it('keeps the similarity cut-offs in their ranges', () => {
    expect(clampThreshold(1.4)).toBe(1)
    expect(clampThreshold(-1)).toBe(0)
    expect(clampThreshold(Number.NaN)).toBe(0.7)
    expect(clampTop(0)).toBe(1)
    expect(clampTop(12.6)).toBe(13)
    expect(clampTop(Number.NaN)).toBe(50)
  })

  it('describes the question in words', () => {
    expect(describeCriterion({ kind: 'substructure', query: 'c1ccccc1' })).toBe(
      'Substructure c1ccccc1',
    )
    expect(describeCriterion({ kind: 'similarity', smiles: 'CCO', threshold: 0.8 })).toBe(
      'Similar to CCO, similarity 0.80 or more',
    )
    expect(describeCriterion({ kind: 'similarity', smiles: 'CCO', top: 20 })).toBe(
      'Similar to CCO, the 20 most similar',
    )
    expect(describeCriterion({ kind: 'exact', query: 'C'.repeat(60) })).toMatch(/^Exactly C{39}…$/)
  })

  it('reads property ranges as typed, and names the fields that are wrong', () => {
    const checked = rangesOf({
      molecularWeight: { min: '', max: '500' },
      logP: { min: '1,5', max: ' 3 ' },
      heavyAtomCount: { min: '', max: '' },
      hBondDonorCount: { min: 'five', max: '' },
      aromaticRingCount: { min: '3', max: '1' },
    })
    expect(checked.ranges).toEqual({ molecularWeight: { max: 500 }, logP: { min: 1.5, max: 3 } })
    expect(checked.problems).toEqual({
      hBondDonorCount: 'H-bond donors: type a number.',
      aromaticRingCount: 'Aromatic rings: the minimum is above the maximum.',
    })
    expect(describeRanges(checked.ranges)).toBe('Molecular weight ≤ 500, cLogP 1.5–3')
  })
})
