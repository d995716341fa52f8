import type { FinishedExport, Page, PageWindow } from '../api/index.ts'
import type { RecordKindName } from '../store/record-kinds.ts'
import type { PullContext } from './pull-context.ts'

/**
 * How a kind keeps up. Reference data (fields, projects, users, templates, protocols, plates...)
 * changes rarely and the server cannot filter it by time, so it is read whole only when the
 * reference refresh is due (an hour by default), on demand and on a first sync; so are the
 * deletion checks of the kinds read by changes. A pass in between asks each changes kind only what
 * changed since the last pass: one request per kind when little did.
 */
interface PlanBase {
  kind: RecordKindName
  /**
   * Also read whole in a pass in which readout rows changed: an import brings runs and protocol
   * changes together with its rows.
   */
  followsReadouts?: true
}

/** A kind read whole when reference data is refreshed (small lists, unpaged on the server). */
export interface ListedKind extends PlanBase {
  mode: 'listed'
  /** Only vault administrators may read it; others are refused with 401. */
  adminOnly?: boolean
  fetch(context: PullContext): Promise<readonly unknown[]>
}

/** A paged kind the server cannot filter by time: every page when reference data is refreshed. */
export interface PagedKind extends PlanBase {
  mode: 'paged'
  page(context: PullContext, window: PageWindow): Promise<Page<unknown>>
  /**
   * Members its records keep from the cached ones when a page lacks them: a run's plate
   * statistics come only with the single run.
   */
  keep?: readonly string[]
}

/**
 * A paged kind the server filters by `modified_after`: at every pass (or, with `onRefresh`, only
 * when reference data is refreshed) what changed since the last one, and when the refresh is due
 * the deletions: ids the server no longer lists are removed.
 */
export interface IncrementalKind extends PlanBase {
  mode: 'incremental'
  page(context: PullContext, window: PageWindow, since: string | null): Promise<Page<unknown>>
  /**
   * The complete id list (`only_ids`). A kind without one finds its deletions by reading every
   * page instead, when the refresh is due.
   */
  ids?(context: PullContext): Promise<number[]>
  /** A first pass of a large kind reads one export instead of pages. */
  exportAll?(context: PullContext): Promise<FinishedExport<unknown>>
  /**
   * A kind whose records this one carries whole (a molecule's batches): a complete pass of this
   * kind is a complete pass of that one too.
   */
  carries?: RecordKindName
  /** Changes too are asked only when reference data is refreshed (kinds that change rarely). */
  onRefresh?: true
}

/**
 * Dose-response calculations of each protocol, then the data series of each calculation: listings
 * nested under a parent, stored with `parentId`; all of them when reference data is refreshed,
 * else those of protocols whose readout rows changed.
 */
export interface DoseResponseKinds extends PlanBase {
  kind: 'dose_response_calculations'
  mode: 'dose_response'
}

export type KindPlan = ListedKind | PagedKind | IncrementalKind | DoseResponseKinds

async function allOf(ids: AsyncIterable<number>): Promise<number[]> {
  const out: number[] = []
  for await (const id of ids) out.push(id)
  return out
}

/**
 * Every kind a person can reach in a vault, in the order they are pulled: reference data first,
 * then the registry, assays (readout rows first: they decide whether protocols, runs and dose
 * response are read in a pass between refreshes; protocols before their dose-response
 * calculations, which are found through them), inventory and the notebook.
 */
export const kindPlans: readonly KindPlan[] = [
  {
    kind: 'projects',
    mode: 'listed',
    fetch: ({ client, vaultId, call }) => client.projects.list(vaultId, call),
  },
  {
    kind: 'data_sets',
    mode: 'listed',
    fetch: ({ client, vaultId, call }) => client.dataSets.list(vaultId, call),
  },
  {
    kind: 'fields',
    mode: 'listed',
    fetch: async ({ client, vaultId, call }) =>
      Object.values(await client.vaults.fields(vaultId, call)).flat(),
  },
  {
    kind: 'users',
    mode: 'listed',
    adminOnly: true,
    fetch: ({ client, vaultId, call }) =>
      client.users.list(vaultId, { include_projects: true }, call),
  },
  {
    kind: 'molecules',
    mode: 'incremental',
    carries: 'batches',
    page: ({ client, vaultId, call }, window, since) =>
      client.molecules.query(vaultId, { ...window, ...modifiedAfter(since) }, call),
    ids: ({ client, vaultId, call }) => allOf(client.molecules.queryIds(vaultId, {}, call)),
    exportAll: ({ client, vaultId, call }) => client.molecules.export(vaultId, {}, call),
  },
  {
    // Batches arrive inside their molecules; this pass catches batches changed on their own.
    kind: 'batches',
    mode: 'incremental',
    page: ({ client, vaultId, call }, window, since) =>
      client.batches.query(
        vaultId,
        { ...window, ...modifiedAfter(since), only_molecule_ids: true },
        call,
      ),
    ids: ({ client, vaultId, call }) => allOf(client.batches.queryIds(vaultId, {}, call)),
  },
  {
    kind: 'collections',
    mode: 'incremental',
    page: ({ client, vaultId, call }, window, since) =>
      client.collections.query(
        vaultId,
        { ...window, ...modifiedAfter(since), include_molecule_ids: true },
        call,
      ),
    ids: ({ client, vaultId, call }) => allOf(client.collections.queryIds(vaultId, {}, call)),
  },
  {
    kind: 'readout_rows',
    mode: 'incremental',
    page: ({ client, vaultId, call }, window, since) =>
      client.readoutRows.query(vaultId, { ...window, ...modifiedAfter(since) }, call),
    ids: ({ client, vaultId, call }) => allOf(client.readoutRows.queryIds(vaultId, {}, call)),
    exportAll: ({ client, vaultId, call }) => client.readoutRows.export(vaultId, {}, call),
  },
  {
    kind: 'protocols',
    mode: 'paged',
    followsReadouts: true,
    page: ({ client, vaultId, call }, window) => client.protocols.list(vaultId, window, call),
  },
  { kind: 'dose_response_calculations', mode: 'dose_response' },
  {
    kind: 'runs',
    mode: 'paged',
    followsReadouts: true,
    keep: ['plate_statistics'],
    page: ({ client, vaultId, call }, window) => client.runs.list(vaultId, window, call),
  },
  {
    kind: 'plates',
    mode: 'paged',
    page: ({ client, vaultId, call }, window) => client.plates.query(vaultId, window, call),
  },
  {
    kind: 'control_layouts',
    mode: 'incremental',
    onRefresh: true,
    page: ({ client, vaultId, call }, window, since) =>
      client.controlLayouts.list(vaultId, { ...window, ...modifiedAfter(since) }, call),
    ids: ({ client, vaultId, call }) => allOf(client.controlLayouts.listIds(vaultId, {}, call)),
  },
  {
    kind: 'inventory_locations',
    mode: 'listed',
    fetch: ({ client, vaultId, call }) => client.inventory.locations(vaultId, call),
  },
  {
    // The server keeps no id listing of samples, so deletions are only seen in a whole listing.
    kind: 'inventory_samples',
    mode: 'incremental',
    page: ({ client, vaultId, call }, window, since) =>
      client.inventory.samples(vaultId, { ...window, ...modifiedAfter(since) }, call),
  },
  {
    // The entries query is for administrators and cannot be filtered by time: others' entries
    // arrive with the reference refresh; entries a person creates reach the cache through the
    // outbox, which stores the server's answer.
    kind: 'eln_entries',
    mode: 'listed',
    adminOnly: true,
    fetch: ({ client, vaultId, call }) => client.elnEntries.query(vaultId, {}, call),
  },
  {
    kind: 'saved_searches',
    mode: 'listed',
    fetch: ({ client, vaultId, call }) => client.searches.list(vaultId, call),
  },
  {
    kind: 'mapping_templates',
    mode: 'listed',
    fetch: ({ client, vaultId, call }) => client.mappingTemplates.list(vaultId, call),
  },
  {
    kind: 'import_parsers',
    mode: 'listed',
    fetch: ({ client, vaultId, call }) => client.importParsers.list(vaultId, call),
  },
  {
    kind: 'registration_forms',
    mode: 'listed',
    fetch: ({ client, vaultId, call }) => client.registration.forms(vaultId, call),
  },
  {
    kind: 'registration_systems',
    mode: 'listed',
    fetch: ({ client, vaultId, call }) => client.registration.systems(vaultId, call),
  },
  {
    kind: 'vault_status',
    mode: 'listed',
    adminOnly: true,
    fetch: async ({ client, vaultId, call }) => [await client.vaultStatus.get(vaultId, call)],
  },
]

function modifiedAfter(since: string | null): { modified_after?: string } {
  return since === null ? {} : { modified_after: since }
}
