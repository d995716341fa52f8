import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import { anything, mapOf } from '../shape.ts'
import type { CallOptions } from '../transport.ts'

export interface BioisostereRequest {
  /** SMILES or a molfile. */
  structure: string
  /** Per fragment; default 5, at most 200. */
  number_suggestions?: number
  return_known_identifiers?: boolean
  lookup_internal_identifiers?: boolean
  filter_structure_alerts?: boolean
  filter_by_atom_indices?: number[]
}

/** The spec does not show this body; a structure and how many of the closest to return. */
export interface SimilarityRequest {
  structure: string
  number_results?: number
  /** Least Tanimoto similarity, 0 to 1. */
  threshold?: number
}

/** The spec shows none of the four answers: each is given as the JSON object sent. */
export type DeepLearningAnswer = Record<string, unknown>

/** Deep-learning operations of vaults with the feature enabled (401 otherwise; 400 bad input). */
export class DeepLearningApi {
  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  /** Suggestions grouped by fragment. */
  bioisosteres(
    vaultId: number,
    body: BioisostereRequest,
    options: CallOptions = {},
  ): Promise<DeepLearningAnswer> {
    return this.#post('deepLearning.bioisosteres', vaultId, ['bioisosteres'], body, options)
  }

  /** Suggestions as one flat list. */
  flatBioisosteres(
    vaultId: number,
    body: BioisostereRequest,
    options: CallOptions = {},
  ): Promise<DeepLearningAnswer> {
    return this.#post(
      'deepLearning.flatBioisosteres',
      vaultId,
      ['bioisosteres', 'flat'],
      body,
      options,
    )
  }

  fragmentation(
    vaultId: number,
    body: Pick<BioisostereRequest, 'structure' | 'filter_by_atom_indices'>,
    options: CallOptions = {},
  ): Promise<DeepLearningAnswer> {
    return this.#post(
      'deepLearning.fragmentation',
      vaultId,
      ['bioisosteres', 'get_fragmentation'],
      body,
      options,
    )
  }

  /** Structures ranked by Tanimoto similarity. */
  similarity(
    vaultId: number,
    body: SimilarityRequest,
    options: CallOptions = {},
  ): Promise<DeepLearningAnswer> {
    return this.#post('deepLearning.similarity', vaultId, ['similarity'], body, options)
  }

  /** These POSTs compute and store nothing, so they are retried like reads. */
  #post(
    operation: string,
    vaultId: number,
    segments: string[],
    body: object,
    options: CallOptions,
  ) {
    return call(this.#context.transport, mapOf(anything), {
      ...options,
      operation,
      method: 'POST',
      path: vaultPath(operation, vaultId, 'ai', ...segments),
      json: body,
      retry: 'idempotent',
    })
  }
}
