/**
 * The structure query box as plain data: what the person typed and chose, the criterion and the
 * property ranges `records.list` is asked with, and the words that describe them. No Svelte, no
 * bridge: the state class (`structure-search.svelte.ts`) and the tests use these.
 */
import type {
  PropertyName,
  PropertyRangesArgs,
  QueryDepiction,
  StructureCriterionArgs,
} from '../bridge.ts'
import { molecularProperties } from '../../../../src-common/chem/molecular-properties.ts'

export type SearchKind = StructureCriterionArgs['kind']
/** How a substructure query is read; exact and similarity queries are always SMILES. */
export type QueryLanguage = 'auto' | 'smiles' | 'smarts'
/** A similarity search keeps the molecules above a threshold, or the best few. */
export type SimilarityCutoff = 'threshold' | 'top'

export interface StructureDraft {
  text: string
  kind: SearchKind
  language: QueryLanguage
  cutoff: SimilarityCutoff
  /** 0 to 1. */
  threshold: number
  /** 1 to 1000. */
  top: number
}

export const searchKinds: readonly { kind: SearchKind; label: string; hint: string }[] = [
  {
    kind: 'substructure',
    label: 'Substructure',
    hint: 'Molecules that contain this structure or SMARTS pattern',
  },
  { kind: 'exact', label: 'Exact', hint: 'The same molecule, by SMILES or InChIKey' },
  { kind: 'similarity', label: 'Similarity', hint: 'Molecules alike by Morgan fingerprint' },
]

export const defaultDraft: StructureDraft = {
  text: '',
  kind: 'substructure',
  language: 'auto',
  cutoff: 'threshold',
  threshold: 0.7,
  top: 50,
}

const inchiKeyPattern = /^[A-Z]{14}-[A-Z]{10}-[A-Z]$/

export function isInchiKey(text: string): boolean {
  return inchiKeyPattern.test(text.trim())
}

/** The language `chem.depictQuery` reads the draft's text in. */
export function previewLanguage(draft: StructureDraft): QueryLanguage {
  return draft.kind === 'substructure' ? draft.language : 'smiles'
}

/** What checking the typed text found: drawn (valid), an InChIKey (exact only), or invalid. */
export type QueryCheck =
  | { kind: 'drawn'; language: Extract<QueryDepiction, { kind: 'svg' }>['language'] }
  | { kind: 'inchikey' }
  | { kind: 'invalid'; message: string }

/**
 * Why a checked query cannot be searched for with the chosen kind, in words for the person, or
 * null. An InChIKey is never drawn (it names a molecule without describing it): it is checked here.
 */
export function kindProblem(draft: StructureDraft, check: QueryCheck): string | null {
  if (check.kind === 'invalid') return check.message
  if (check.kind === 'inchikey') {
    if (draft.kind === 'exact') return null
    return draft.kind === 'similarity'
      ? 'An InChIKey names a molecule but does not describe it: similarity needs a SMILES.'
      : 'An InChIKey names a whole molecule: choose Exact to find it.'
  }
  if (check.language === 'smarts' && draft.kind !== 'substructure') {
    return draft.kind === 'similarity'
      ? 'Similarity compares whole molecules: type a SMILES, not a SMARTS pattern.'
      : 'An exact search needs a whole molecule: type a SMILES or an InChIKey, not a pattern.'
  }
  return null
}

/** The criterion to search with, or null when the text is empty or cannot be searched for. */
export function criterionOf(
  draft: StructureDraft,
  check: QueryCheck | null,
): StructureCriterionArgs | null {
  const query = draft.text.trim()
  if (query === '' || check === null || kindProblem(draft, check) !== null) return null
  if (draft.kind === 'exact') return { kind: 'exact', query }
  if (draft.kind === 'similarity') {
    return draft.cutoff === 'top'
      ? { kind: 'similarity', smiles: query, top: clampTop(draft.top) }
      : { kind: 'similarity', smiles: query, threshold: clampThreshold(draft.threshold) }
  }
  return {
    kind: 'substructure',
    query,
    ...(draft.language === 'auto' ? {} : { language: draft.language }),
  }
}

export function clampThreshold(value: number): number {
  if (!Number.isFinite(value)) return defaultDraft.threshold
  return Math.round(Math.min(1, Math.max(0, value)) * 100) / 100
}

export function clampTop(value: number): number {
  if (!Number.isFinite(value)) return defaultDraft.top
  return Math.min(1000, Math.max(1, Math.round(value)))
}

/** Equal criteria ask the same question (so the list is not asked again for nothing). */
export function sameCriterion(
  left: StructureCriterionArgs | null,
  right: StructureCriterionArgs | null,
): boolean {
  return JSON.stringify(left) === JSON.stringify(right)
}

/** "Substructure c1ccccc1", "Similar to CCO, 0.70 or more": what the list is narrowed by. */
export function describeCriterion(criterion: StructureCriterionArgs): string {
  const shown = (text: string) => (text.length > 40 ? `${text.slice(0, 39)}…` : text)
  if (criterion.kind === 'substructure') return `Substructure ${shown(criterion.query)}`
  if (criterion.kind === 'exact') return `Exactly ${shown(criterion.query)}`
  const cutoff =
    criterion.top !== undefined
      ? `the ${criterion.top} most similar`
      : `similarity ${(criterion.threshold ?? 0.7).toFixed(2)} or more`
  return `Similar to ${shown(criterion.smiles)}, ${cutoff}`
}

/** A property the ranges and the molecule page know, under the name `records.list` uses. */
export interface PropertyInfo {
  name: PropertyName
  label: string
  /** The molecule record's own field for it (when the vault gave it). */
  field: string
  /** Decimals shown; 0 for counts. */
  decimals: number
  unit?: string
}

/** In the order the ranges offer them. */
const shownOrder: readonly PropertyName[] = [
  'molecularWeight',
  'exactMass',
  'logP',
  'topologicalPolarSurfaceArea',
  'hBondDonorCount',
  'hBondAcceptorCount',
  'rotatableBondCount',
  'aromaticRingCount',
  'heavyAtomCount',
  'ruleOf5Violations',
]

export const propertyInfos: readonly PropertyInfo[] = shownOrder.map((name) => {
  const { label, moleculeField, decimals, unit } = molecularProperties[name]
  return { name, label, field: moleculeField, decimals, ...(unit ? { unit } : {}) }
})

export function propertyInfo(name: PropertyName): PropertyInfo {
  return propertyInfos.find((info) => info.name === name)!
}

/** The range fields as typed: text, so that "1." or "-" while typing is not lost. */
export type RangeDraft = Partial<Record<PropertyName, { min: string; max: string }>>

export interface CheckedRanges {
  ranges: PropertyRangesArgs
  /** What is wrong with a property's fields, by property. */
  problems: Partial<Record<PropertyName, string>>
}

/** Reads the typed bounds: empty fields are no bound, a comma may be the decimal mark. */
export function rangesOf(draft: RangeDraft): CheckedRanges {
  const ranges: PropertyRangesArgs = {}
  const problems: CheckedRanges['problems'] = {}
  for (const info of propertyInfos) {
    const typed = draft[info.name]
    if (!typed) continue
    const min = boundOf(typed.min)
    const max = boundOf(typed.max)
    if (Number.isNaN(min) || Number.isNaN(max)) {
      problems[info.name] = `${info.label}: type a number.`
      continue
    }
    if (min !== null && max !== null && min > max) {
      problems[info.name] = `${info.label}: the minimum is above the maximum.`
      continue
    }
    if (min === null && max === null) continue
    ranges[info.name] = { ...(min !== null ? { min } : {}), ...(max !== null ? { max } : {}) }
  }
  return { ranges, problems }
}

/** null for an empty field, NaN for one that is not a number. */
function boundOf(text: string): number | null {
  const trimmed = text.trim().replace(',', '.')
  if (trimmed === '') return null
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(trimmed)) return Number.NaN
  return Number(trimmed)
}

/** "MW ≤ 500, cLogP 1–3": the ranges in force, briefly. */
export function describeRanges(ranges: PropertyRangesArgs): string {
  return propertyInfos
    .flatMap((info) => {
      const range = ranges[info.name]
      if (!range) return []
      const { min, max } = range
      if (min !== undefined && max !== undefined) return [`${info.label} ${min}–${max}`]
      if (min !== undefined) return [`${info.label} ≥ ${min}`]
      return max !== undefined ? [`${info.label} ≤ ${max}`] : []
    })
    .join(', ')
}
