/**
 * What a structure search may ask, and its validation: a bad request is refused with a message
 * that names the member at fault, before any worker is involved.
 */
import { AppError } from '../shared/app-error.ts'
import {
  isMolecularPropertyName,
  molecularPropertyNames,
  type MolecularPropertyName,
} from '../../src-common/chem/molecular-properties.ts'
import { maximumStructureLength } from './structure-input.ts'
import { queryLanguages, type QueryLanguage, type SubstructureQuery } from './structure-query.ts'

export type StructureCriterion =
  | { kind: 'substructure'; query: string; language?: QueryLanguage; useChirality?: boolean }
  /** By canonical SMILES (stereo included) when given a structure, or by InChIKey. */
  | { kind: 'exact'; query: string }
  /** Tanimoto on Morgan radius 2, 2048 bits: above `threshold`, and at most the `top` best. */
  | { kind: 'similarity'; query: string; threshold?: number; top?: number }

export interface PropertyRange {
  min?: number
  max?: number
}

export type PropertyRanges = Partial<Record<MolecularPropertyName, PropertyRange>>

export interface StructureSearchRequest {
  structure?: StructureCriterion | null
  properties?: PropertyRanges
  /** The ids the search's other filters (text, fields) allow; absent means every molecule. */
  within?: Iterable<number> | null
  /** Hits streamed as the first page (substructure), before counting finishes. */
  firstPageSize?: number
}

export type NormalizedCriterion =
  | { kind: 'substructure'; query: SubstructureQuery }
  | { kind: 'exact'; query: string }
  | { kind: 'similarity'; query: string; threshold: number; top: number | null }

export interface NormalizedRange {
  name: MolecularPropertyName
  min: number
  max: number
}

export interface NormalizedSearch {
  structure: NormalizedCriterion | null
  ranges: NormalizedRange[]
  /** The molecules the search may return (duplicates and ids the index lacks do no harm). */
  within: readonly number[] | null
  firstPageSize: number
}

export const defaultSimilarityThreshold = 0.7
export const defaultFirstPageSize = 50
export const maximumTop = 100_000

export function normalizeSearchRequest(request: StructureSearchRequest): NormalizedSearch {
  const firstPageSize = request.firstPageSize ?? defaultFirstPageSize
  if (!Number.isInteger(firstPageSize) || firstPageSize < 1 || firstPageSize > 1000) {
    invalid(`firstPageSize must be a whole number from 1 to 1000, not ${firstPageSize}.`)
  }
  return {
    structure: request.structure ? normalizeCriterion(request.structure) : null,
    ranges: normalizeRanges(request.properties ?? {}),
    within: request.within ? normalizeWithin(request.within) : null,
    firstPageSize,
  }
}

function normalizeCriterion(criterion: StructureCriterion): NormalizedCriterion {
  const query = typeof criterion.query === 'string' ? criterion.query.trim() : ''
  if (query === '') invalid('The structure query is empty.')
  if (query.length > maximumStructureLength) {
    invalid(
      `The structure query is ${query.length} characters long; the limit is ${maximumStructureLength}.`,
    )
  }
  switch (criterion.kind) {
    case 'substructure': {
      const language = criterion.language ?? 'auto'
      if (!queryLanguages.includes(language)) {
        invalid(`Unknown query language "${language}"; use one of ${queryLanguages.join(', ')}.`)
      }
      return {
        kind: 'substructure',
        query: { text: query, language, useChirality: criterion.useChirality ?? true },
      }
    }
    case 'exact':
      return { kind: 'exact', query }
    case 'similarity': {
      const threshold =
        criterion.threshold ?? (criterion.top === undefined ? defaultSimilarityThreshold : 0)
      if (typeof threshold !== 'number' || !(threshold >= 0 && threshold <= 1)) {
        invalid(`The similarity threshold must be a number from 0 to 1, not ${String(threshold)}.`)
      }
      const top = criterion.top ?? null
      if (top !== null && (!Number.isInteger(top) || top < 1 || top > maximumTop)) {
        invalid(`top must be a whole number from 1 to ${maximumTop}, not ${String(top)}.`)
      }
      return { kind: 'similarity', query, threshold, top }
    }
    default:
      return invalid(
        `Unknown structure search kind "${String((criterion as { kind: unknown }).kind)}"; use substructure, exact or similarity.`,
      )
  }
}

function normalizeRanges(ranges: PropertyRanges): NormalizedRange[] {
  return Object.entries(ranges).map(([name, range]) => {
    if (!isMolecularPropertyName(name)) {
      invalid(`Unknown property "${name}"; known properties: ${molecularPropertyNames.join(', ')}.`)
    }
    const min = range?.min ?? -Infinity
    const max = range?.max ?? Infinity
    for (const [bound, value] of [
      ['min', min],
      ['max', max],
    ] as const) {
      if (typeof value !== 'number' || Number.isNaN(value)) {
        invalid(`The ${bound} of ${name} must be a number, not ${String(value)}.`)
      }
    }
    if (min > max) invalid(`The range of ${name} is empty: min ${min} is above max ${max}.`)
    return { name, min, max }
  })
}

/** Kept as given, not made a set: a search by results hands over tens of thousands of ids. */
function normalizeWithin(within: Iterable<number>): readonly number[] {
  const ids = Array.isArray(within) ? (within as readonly number[]) : Array.from(within)
  for (const id of ids) {
    if (typeof id !== 'number' || !Number.isFinite(id))
      invalid(`within holds a bad molecule id: ${String(id)}.`)
  }
  return ids
}

function invalid(message: string): never {
  throw new AppError('invalid_argument', message)
}
