import type {
  FinishedExport,
  KindPull,
  ListForm,
  Page,
  PageWindow,
  VaultClient,
} from '../api/index.ts'
import { kindDeclarations, type RecordKindName } from '../../src-common/records/record-kinds.ts'
import type { PullDeclaration } from '../../src-common/records/kind-declaration.ts'
import type { PullContext } from './pull-context.ts'

/**
 * How a kind keeps up. Reference data (fields, projects, users, templates, protocols, plates...)
 * changes rarely and the server cannot filter it by time, so it is read whole only when the
 * reference refresh is due (an hour by default), on demand and on a first sync; so are the
 * deletion checks of the kinds read by changes. A pass in between asks each changes kind only what
 * changed since the last pass: one request per kind when little did.
 *
 * Plans are assembled from what each kind declares (`pull` in `src-common/records/kinds/`) and
 * the calls of the API resource that serves it (its `pulls`).
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

/**
 * Every kind a person can reach in a vault, in the order they are pulled (each kind's declared
 * `pull.order`): reference data first, then the registry, assays (readout rows first: they decide
 * whether protocols, runs and dose response are read in a pass between refreshes; protocols
 * before their dose-response calculations, which are found through them), inventory and the
 * notebook. Each plan calls what the kind's API resource serves (`client.pullOf`).
 */
export function kindPlansOf(client: VaultClient): readonly KindPlan[] {
  let plans = plansByClient.get(client)
  if (!plans) {
    plans = kindDeclarations
      .flatMap((kind) => (kind.pull ? [{ kind: kind.name, pull: kind.pull }] : []))
      .sort((a, b) => a.pull.order - b.pull.order)
      .map(({ kind, pull }) => planOf(kind, pull, client.pullOf(kind)))
    plansByClient.set(client, plans)
  }
  return plans
}

const plansByClient = new WeakMap<VaultClient, readonly KindPlan[]>()

/** A kind's plan from its declaration and the calls its API resource serves. */
function planOf(
  kind: RecordKindName,
  pull: PullDeclaration,
  calls: KindPull | undefined,
): KindPlan {
  const needed = (name: keyof KindPull): never => {
    throw new Error(`No API resource gives ${kind} its ${name} call (a resource's \`pulls\`).`)
  }
  const base = { kind, ...(pull.followsReadouts ? { followsReadouts: true as const } : {}) }
  // A list served in both forms is asked in the one the vault answers (ListForms).
  const inForm = <T>(context: PullContext, ask: (form?: ListForm) => Promise<T>): Promise<T> =>
    calls?.getForm && context.listForms ? context.listForms.ask(kind, ask) : ask()
  switch (pull.mode) {
    case 'listed': {
      const fetch = calls?.fetch ?? needed('fetch')
      return {
        ...base,
        mode: 'listed',
        ...(pull.adminOnly ? { adminOnly: true } : {}),
        fetch: ({ vaultId, call }) => fetch(vaultId, call),
      }
    }
    case 'paged': {
      const page = calls?.page ?? needed('page')
      return {
        ...base,
        mode: 'paged',
        ...(pull.keep ? { keep: pull.keep } : {}),
        page: (context, window) =>
          inForm(context, (form) => page(context.vaultId, window, null, context.call, form)),
      }
    }
    case 'incremental': {
      const page = calls?.page ?? needed('page')
      const { ids, exportAll } = calls ?? {}
      return {
        ...base,
        mode: 'incremental',
        ...(pull.carries ? { carries: pull.carries as RecordKindName } : {}),
        ...(pull.onRefresh ? { onRefresh: true as const } : {}),
        page: (context, window, since) =>
          inForm(context, (form) => page(context.vaultId, window, since, context.call, form)),
        ...(ids
          ? {
              ids: (context: PullContext) =>
                inForm(context, (form) => ids(context.vaultId, context.call, form)),
            }
          : {}),
        ...(exportAll
          ? { exportAll: ({ vaultId, call }: PullContext) => exportAll(vaultId, call) }
          : {}),
      }
    }
    case 'dose_response':
      return { ...base, kind: 'dose_response_calculations', mode: 'dose_response' }
  }
}
