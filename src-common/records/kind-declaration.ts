/**
 * The shape of a record kind's declaration: everything the app knows about one kind of server
 * record, in one place. The cache's table and search text, the links a record page follows, what
 * a list may sort and filter on, and the words, list columns and preview the window shows all
 * derive from it (see `kinds/` for the declarations and `record-kinds.ts` for the registry).
 *
 * Kinds refer to each other by name as plain strings here (a link's kind, a column's `linksTo`):
 * the names are only known once every declaration is, and the registry checks each reference
 * when it loads.
 */
import type { JsonObject, SqlValue } from '../values.ts'
import type { RecordRow } from './record-row.ts'

export type SqlType = 'TEXT' | 'INTEGER' | 'REAL'

/** A column of a kind's table besides the frame every table has (see `frameColumns`). */
export interface ColumnDeclaration {
  readonly name: string
  readonly type: SqlType
  readonly read: (record: JsonObject) => SqlValue
  /** Identifiers compare without case (`VD-0001-001` and `vd-0001-001` are one batch). */
  readonly collate?: 'NOCASE'
  /** Flags are never NULL: a record without the member reads as 0. */
  readonly flag?: true
  /** Lists may be sorted by it. */
  readonly sortable?: true
  /** Lists may be filtered on it by equality, and its distinct values offered as choices. */
  readonly filterable?: true
  /** The kind whose id it holds: a link, which filter menus name by the linked record's name. */
  readonly linksTo?: string
}

/** Every table's frame: the local key, the server's key, and what nearly every kind has. */
export const frameColumns = ['row_id', 'vault_id', 'id', 'name', 'created_at', 'modified_at']

/** The text of a record that search matches, by search-index column. */
export interface SearchDocument {
  name?: string | null
  identifiers?: readonly (string | null)[]
  synonyms?: readonly (string | null)[]
  content?: readonly (string | null)[]
}

/**
 * Where the values a link looks up come from: a column of the record itself, ids read from its
 * JSON, or a column of the records an earlier link of the same page found.
 */
export type LinkSource =
  | { readonly own: string }
  | { readonly json: (record: JsonObject) => readonly (number | null)[] }
  | { readonly linked: string; readonly column: string }

/**
 * Records of `kind` whose `column` holds one of the values the sources give (and whose `where`
 * columns hold the values given), for a record page. A kind may be linked twice; the pages show
 * the union. `ancestors` follows a parent column upwards from the first value instead.
 */
export interface LinkDeclaration {
  readonly kind: string
  readonly column: string
  readonly from: LinkSource | readonly LinkSource[]
  readonly where?: Readonly<Record<string, SqlValue>>
  /** Many-sided links (readout rows of a batch) are capped per page. */
  readonly many?: true
  readonly ancestors?: string
}

/** The sidebar sections records belong to. */
export const sectionIds = [
  'molecules',
  'batches',
  'assays',
  'plates',
  'inventory',
  'notebook',
  'outbox',
] as const

export type SectionId = (typeof sectionIds)[number]

/** Icons a kind may show (the renderer's icon set has each). */
export type KindIcon = 'molecule' | 'vial' | 'flask' | 'plate' | 'box' | 'notebook' | 'file'

export type CellValue = string | number | null | undefined

/** A column of a record list (the renderer's table takes it as it is). */
export interface ListColumn {
  readonly id: string
  readonly label: string
  readonly value: (row: RecordRow) => CellValue
  readonly format?: (value: CellValue, row: RecordRow) => string
  readonly width?: number
  readonly grow?: number
  readonly align?: 'start' | 'end'
  /** Columns whose id is a sortable column of the kind sort in the cache; others cannot sort. */
  readonly sortable?: boolean
}

export type FilterValue = string | number | null

export interface FilterChoice {
  readonly label: string
  /** The column filters this choice sets; choosing "all" clears every column of the filter. */
  readonly set: Readonly<Record<string, FilterValue>>
}

export interface ListFilter {
  readonly id: string
  readonly label: string
  /** The first choice: no filtering. */
  readonly anyLabel: string
  /**
   * Fixed choices, or the distinct values of one of the kind's filterable columns, read from the
   * cache (a link column's values are named by the records they link to).
   */
  readonly choices: readonly FilterChoice[] | { readonly distinct: string }
}

export interface ListDeclaration {
  readonly columns: readonly ListColumn[]
  readonly sort?: { readonly columnId: string; readonly direction: 'ascending' | 'descending' }
  /** How the project switcher narrows the list: by the record's projects, its project, or not. */
  readonly projectFilter: 'projects' | 'project_id' | null
  readonly filters: readonly ListFilter[]
  readonly searchPlaceholder: string
}

/** One labelled fact of a record, as previews and record pages show it. */
export interface Property {
  label: string
  /** Empty values are left out, so that a sparse record does not show a wall of dashes. */
  value: string | null
  /** Identifiers, formulas and SMILES read better in a fixed-width face. */
  mono?: boolean
  /** Makes the value a link to another record. */
  href?: string
  /** A short mark after the value, saying where it comes from ("computed here"). */
  note?: string
}

/**
 * How sync keeps a kind up (the API resource that serves it gives the calls: its `pulls`):
 * - `listed`: read whole when reference data is refreshed (small lists, unpaged on the server);
 * - `paged`: every page when reference data is refreshed (the server cannot filter it by time);
 * - `incremental`: what changed since the last pass (`modified_after`) at every pass, and its
 *   deletions (ids the server no longer lists) when the refresh is due;
 * - `dose_response`: listed under each protocol and calculation.
 */
export interface PullDeclaration {
  /** When it is pulled in a vault's pass: lower first (readout rows decide whether protocols are). */
  readonly order: number
  readonly mode: 'listed' | 'paged' | 'incremental' | 'dose_response'
  /** Only vault administrators may read it; others are refused with 401. */
  readonly adminOnly?: true
  /** Also read whole in a pass in which readout rows changed (an import brings them together). */
  readonly followsReadouts?: true
  /** Members its records keep from the cached ones when a page lacks them. */
  readonly keep?: readonly string[]
  /** A kind whose records this one carries whole: a complete pass is one of that kind too. */
  readonly carries?: string
  /** Changes too are asked only when reference data is refreshed (kinds that change rarely). */
  readonly onRefresh?: true
}

/** How the window shows a kind that has pages of its own. */
export interface BrowseDeclaration {
  /** The word in addresses: `#/<slug>` lists, `#/<slug>/<id>` shows one record. */
  readonly slug: string
  readonly section: SectionId
  readonly icon: KindIcon
  /** Kinds browsed as lists; others are reached through the records they belong to. */
  readonly list?: ListDeclaration
  /** The few facts a list's preview panel shows about the selected record. */
  readonly preview?: (row: RecordRow) => Property[]
}

/**
 * An index on one column that also carries `covering` columns, so that a read along it needs no
 * lookup of the table's rows (and their JSON), and holds only the rows with a value in the column
 * (`withValueOnly`): such an index gives no order to a list of every row.
 */
export interface IndexDeclaration {
  readonly column: string
  readonly covering: readonly string[]
  readonly withValueOnly?: true
}

export interface KindDeclaration<Name extends string = string> {
  readonly name: Name
  /** Stored in search rowids and project links: never renumber. At most 63. */
  readonly code: number
  readonly singular: string
  readonly plural: string
  /** The server id; `id` unless a kind says otherwise (vault status has none: one per vault). */
  readonly idOf?: (record: JsonObject, vaultId: number) => unknown
  /** The `name` column; the record's `name` member unless a kind says otherwise. */
  readonly nameOf?: (record: JsonObject) => SqlValue
  readonly columns?: readonly ColumnDeclaration[]
  /** Indexes besides the name index, each `(vault_id, <column>)` or as an `IndexDeclaration` says. */
  readonly indexes?: readonly (string | IndexDeclaration)[]
  /** Kinds without useful names (or sorted by another column) skip the name index. */
  readonly unnamed?: true
  /**
   * Batches that came nested in their molecule have no JSON of their own: it is read from the
   * molecule's JSON at `position` in its `batches`, so that a molecule page is serialized once.
   */
  readonly nestedJson?: true
  /**
   * A column that sync gives as `parentId` because the listing is nested under that parent and
   * the records may not say it (a protocol's dose-response calculations, for example).
   */
  readonly parentColumn?: string
  readonly projectsOf?: (record: JsonObject) => readonly number[]
  readonly searchOf?: (record: JsonObject) => SearchDocument
  /** A kind found through another kind's search documents (batches through their molecule). */
  readonly searchedThrough?: { readonly kind: string; readonly column: string }
  /** Vault-defined field maps, searched by name and value by `fields` filters. */
  readonly fieldMaps?: readonly string[]
  /** What a scientist calls a record that has no name ("Run of 24 Jul 2026"). */
  readonly titleOf?: (record: JsonObject) => string | null
  readonly links?: readonly LinkDeclaration[]
  /** How sync reads it; a kind without one is never pulled (it is written by the outbox only). */
  readonly pull?: PullDeclaration
  readonly browse?: BrowseDeclaration
}

/**
 * A declaration that keeps its literal type, so that the registry can name every kind (and tell
 * the kinds with pages and lists from the others) at compile time.
 */
export function declareKind<const Declaration extends KindDeclaration>(
  declaration: Declaration,
): Declaration {
  return declaration
}
