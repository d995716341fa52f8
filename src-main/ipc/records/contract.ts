import { z } from 'zod'
import type { ColumnValue, RecordRow } from '../../../src-common/records/record-row.ts'
import type { RecordKindName } from '../../../src-common/records/record-kinds.ts'
import type { RecordChannel } from './channels.ts'
import type { StructureSearchInfo } from '../../services/chem-results.ts'

export type { StructureSearchInfo } from '../../services/chem-results.ts'
import { connectionIdSchema, recordIdSchema, recordKindSchema, vaultIdSchema } from './arguments.ts'
import { molecularPropertyNames } from '../../../src-common/chem/molecular-properties.ts'
import {
  structureQueryLanguageSchema,
  structureTextSchema,
  type PropertyName,
} from '../chem/contract.ts'

/**
 * A structure criterion of `records.list` (molecules only). Substructure: SMILES, SMARTS or a
 * molfile; exact: a structure (canonical SMILES, stereo included) or an InChIKey; similarity:
 * Tanimoto on Morgan radius 2, 2048 bits, above `threshold` (0.7 by default, 0 with only `top`),
 * at most the `top` best.
 */
export const structureCriterionSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('substructure'),
      query: structureTextSchema,
      language: structureQueryLanguageSchema.optional(),
    })
    .strict(),
  z.object({ kind: z.literal('exact'), query: structureTextSchema }).strict(),
  z
    .object({
      kind: z.literal('similarity'),
      smiles: structureTextSchema,
      threshold: z.number().min(0).max(1).optional(),
      top: z.number().int().min(1).max(1000).optional(),
    })
    .strict(),
])
export type StructureCriterionArgs = z.infer<typeof structureCriterionSchema>

const propertyRangeSchema = z
  .object({ min: z.number().finite().optional(), max: z.number().finite().optional() })
  .strict()

/** Ranges on computed (or vault-given) properties, by the names of `PropertyName`. */
export const propertyRangesSchema = z.partialRecord(
  z.enum(molecularPropertyNames),
  propertyRangeSchema,
)
export type PropertyRangesArgs = Partial<Record<PropertyName, { min?: number; max?: number }>>

/** What narrows a list: its kind, text, filters, fields and project. */
const listCriteria = {
  connectionId: connectionIdSchema,
  vaultId: vaultIdSchema,
  kind: recordKindSchema,
  /** Search-as-you-type within the kind: every word is a prefix. */
  text: z.string().max(500).optional(),
  /** Equality on the kind's `filterable` columns (see records.kinds), e.g. {protocol_id: 12}. */
  filters: z.record(z.string(), z.union([z.string(), z.number(), z.null()])).optional(),
  /** Equality on a vault-defined field (molecule_fields, batch_fields...) by name. */
  fields: z.record(z.string(), z.string()).optional(),
  projectId: z.number().int().optional(),
  /**
   * Molecules and batches: results criteria in the text form `vault-desk find --readout` takes
   * (`Kinase IC50 (ADP-Glo): IC50 < 1 uM`), all of which a record must meet.
   */
  results: z.array(z.string().max(500)).max(20).optional(),
}

export const recordSchemas = {
  'records.kinds': z.object({}).strict(),
  'records.list': z
    .object({
      ...listCriteria,
      /** One of the kind's `sortable` columns; `name` by default. */
      sort: z.string().max(100).optional(),
      direction: z.enum(['asc', 'desc']).optional(),
      /** 50 by default, at most 1000. */
      limit: z.number().int().min(0).max(1000).optional(),
      offset: z.number().int().min(0).optional(),
      /**
       * Molecules only: a structure search from the local index, combinable with everything
       * above. A similarity search without `sort` lists the best score first.
       */
      structure: structureCriterionSchema.optional(),
      /** Molecules only: property ranges (inclusive), e.g. {molecularWeight: {max: 500}}. */
      properties: propertyRangesSchema.optional(),
    })
    .strict(),
  'records.distinct': z
    .object({
      ...listCriteria,
      /** One of the kind's `filterable` columns, e.g. `category` or `protocol_id`. */
      column: z.string().max(100),
    })
    .strict(),
  'records.get': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      kind: recordKindSchema,
      id: recordIdSchema,
    })
    .strict(),
  'records.search': z
    .object({
      connectionId: connectionIdSchema,
      text: z.string().max(500),
      vaultId: vaultIdSchema.optional(),
      kinds: z.array(recordKindSchema).optional(),
      /** 50 by default, at most 200. */
      limit: z.number().int().min(1).max(200).optional(),
      /** Best matches first instead of index order. */
      ranked: z.boolean().optional(),
    })
    .strict(),
} satisfies Record<RecordChannel, z.ZodType>

/**
 * A cached record as a typed row: its column values as the cache computed them, the record as the
 * API gave it (with the changes waiting in the outbox applied), and `pending` when it has some.
 */
export type CachedRecord = RecordRow<RecordKindName>

/** What can be asked of a kind's lists. */
export interface RecordKindInfo {
  name: RecordKindName
  /** Columns `records.list` may sort by. */
  sortable: string[]
  /** Columns `records.list` may filter on (`filters`). */
  filterable: string[]
  /** Whether `text` and `records.search` find records of this kind. */
  searchable: boolean
}

export interface CachedRecordPage {
  kind: RecordKindName
  /** Matching records in all pages (while `structure.complete` is false: those found so far). */
  total: number
  rows: CachedRecord[]
  /** Present when the list asked for `structure` or `properties`. */
  structure?: StructureSearchInfo
}

/** A record and the records its detail page links to, by kind. */
export interface LinkedCachedRecord {
  kind: RecordKindName
  record: CachedRecord
  links: Partial<Record<RecordKindName, CachedRecord[]>>
}

/** A value of a column among a list's records, with its count and, for a link, its name. */
export interface DistinctColumnValue {
  value: ColumnValue
  count: number
  label?: string | null
}

export interface RecordSearchHit {
  kind: RecordKindName
  vaultId: number
  id: number
  name: string | null
  /** Present for ranked searches: lower is better. */
  score?: number
}

export interface RecordSearchResult {
  hits: RecordSearchHit[]
  /** A prefix matched more terms than were expanded: type more to see every match. */
  broad: boolean
}

export interface RecordResults {
  'records.kinds': RecordKindInfo[]
  /** A page of cached records of one kind of one vault (never the network). */
  'records.list': CachedRecordPage
  /** The distinct values of a column among a list's records, most frequent first (filter menus). */
  'records.distinct': DistinctColumnValue[]
  /** One cached record with its links (molecule -> batches -> readout rows...), or null. */
  'records.get': LinkedCachedRecord | null
  /** Search as you type across kinds (and vaults, unless `vaultId` is given). */
  'records.search': RecordSearchResult
}
