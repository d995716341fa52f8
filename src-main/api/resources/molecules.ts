import { modifiedAfter, allOf, type KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import type { Page } from '../envelope.ts'
import type { ExportOptions, FinishedExport } from '../export-runner.ts'
import type { Paginated, PageWindow } from '../paginated.ts'
import { fetchPage, paginate, queryRequest, runExport, type ListOptions } from '../resource-kit.ts'
import { anything, integer } from '../shape.ts'
import type { CallOptions } from '../transport.ts'
import type { ChemistryQueryFilters } from './chemistry-queries.ts'
import { molecule, type Molecule } from './chemistry-records.ts'
import type { ExportFormat, ProjectRef } from './common.ts'

export type { Molecule } from './chemistry-records.ts'

/** Molecule query body: the batch query's members plus structure and identity searches. */
export interface MoleculeQuery extends ChemistryQueryFilters {
  names?: string[]
  inchikey?: string
  /** SMILES, CXSMILES or a molfile. */
  structure?: string
  structure_search_type?: 'exact' | 'similarity' | 'substructure'
  /** 0 to 1, for similarity searches. */
  structure_similarity_threshold?: number
  only_batch_ids?: boolean
}

/** The alternative body: only these molecules, with no other member. */
export interface MoleculeIdsQuery {
  molecules: number[]
}

export interface MoleculeCreate {
  name?: string
  smiles?: string
  cxsmiles?: string
  molfile?: string
  structure?: string
  description?: string
  synonyms?: string[]
  /** User-defined field values by field name (`molecule_fields` is the same member). */
  udfs?: Record<string, unknown>
  projects?: ProjectRef[]
  collections?: number[]
}

/** Only supplied members change; synonyms, projects and collections replace the old values. */
export interface MoleculeUpdate {
  name?: string
  description?: string
  synonyms?: string[]
  udfs?: Record<string, unknown>
  projects?: ProjectRef[]
  collections?: number[]
}

export interface MoleculeReadParams {
  data_sets?: number[]
  include_original_structures?: boolean
  no_structures?: boolean
  only_batch_ids?: boolean
  owner_id?: boolean
  projects?: number[]
}

export interface MoleculeImageParams {
  width?: number
  height?: number
  format?: string
}

export interface MoleculeExportOptions extends ExportOptions {
  format?: ExportFormat
}

type Query = MoleculeQuery | MoleculeIdsQuery

export class MoleculesApi {
  /** How sync reads molecules (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    molecules: {
      page: (vaultId, window, since, call) =>
        this.query(vaultId, { ...window, ...modifiedAfter(since) }, call),
      ids: (vaultId, call) => allOf(this.queryIds(vaultId, {}, call)),
      exportAll: (vaultId, call) => this.export(vaultId, {}, call),
    },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  /** Registers a molecule (only in vaults without a registration system; 422 otherwise). */
  create(vaultId: number, body: MoleculeCreate, options: CallOptions = {}): Promise<Molecule> {
    const operation = 'molecules.create'
    return call(this.#context.transport, molecule, {
      ...options,
      operation,
      method: 'POST',
      path: vaultPath(operation, vaultId, 'molecules'),
      json: body,
    })
  }

  /** One page of a molecule query. */
  query(
    vaultId: number,
    body: Query & Partial<PageWindow>,
    options: CallOptions = {},
  ): Promise<Page<Molecule>> {
    const operation = 'molecules.query'
    return fetchPage(this.#context, molecule, {
      ...options,
      ...this.#querySpec(operation, vaultId, body),
    })
  }

  /** Every molecule a query matches, a page at a time as the caller iterates. */
  queryAll(vaultId: number, body: Query, options: ListOptions = {}): Paginated<Molecule> {
    const operation = 'molecules.query'
    return paginate(
      this.#context,
      molecule,
      operation,
      (window) => this.#querySpec(operation, vaultId, { ...body, ...window }),
      options,
    )
  }

  /** The ids of every molecule a query matches (the server sends them all at once). */
  queryIds(vaultId: number, body: MoleculeQuery, options: ListOptions = {}): Paginated<number> {
    const operation = 'molecules.queryIds'
    return paginate(
      this.#context,
      integer,
      operation,
      (window) => this.#querySpec(operation, vaultId, { ...body, ...window, only_ids: true }),
      options,
    )
  }

  /** Runs the query as an async export; read it with `records()` or `saveTo()`. */
  export(
    vaultId: number,
    body: Query,
    options: MoleculeExportOptions = {},
  ): Promise<FinishedExport<Molecule>> {
    const operation = 'molecules.export'
    const { format, ...exportOptions } = options
    return runExport(
      this.#context,
      molecule,
      vaultId,
      this.#querySpec(operation, vaultId, { ...body, async: true, ...(format ? { format } : {}) }),
      exportOptions,
    )
  }

  get(
    vaultId: number,
    id: number,
    params: MoleculeReadParams = {},
    options: CallOptions = {},
  ): Promise<Molecule> {
    const operation = 'molecules.get'
    return call(this.#context.transport, molecule, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'molecules', id),
      query: { ...params },
    })
  }

  update(
    vaultId: number,
    id: number,
    body: MoleculeUpdate,
    options: CallOptions = {},
  ): Promise<Molecule> {
    const operation = 'molecules.update'
    return call(this.#context.transport, molecule, {
      ...options,
      operation,
      method: 'PUT',
      path: vaultPath(operation, vaultId, 'molecules', id),
      json: body,
    })
  }

  /** A depiction of the molecule: the service renders it as an export to poll and download. */
  image(
    vaultId: number,
    id: number,
    params: MoleculeImageParams = {},
    options: ExportOptions = {},
  ): Promise<FinishedExport<unknown>> {
    const operation = 'molecules.image'
    return runExport(
      this.#context,
      anything,
      vaultId,
      {
        operation,
        method: 'GET',
        path: vaultPath(operation, vaultId, 'molecules', id, 'image'),
        query: { ...params },
      },
      options,
    )
  }

  #querySpec(operation: string, vaultId: number, body: object) {
    return queryRequest(operation, vaultPath(operation, vaultId, 'molecules'), body)
  }
}
