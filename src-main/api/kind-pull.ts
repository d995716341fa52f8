/**
 * How sync reads one kind of record from the vault: the calls of the API resource that serves
 * it, as its pull plan needs them (what a plan does with them is declared with the kind, in
 * `src-common/records/kinds/`, and assembled in `src-main/sync/kind-plans.ts`). A resource lists
 * the kinds it serves in its `pulls`.
 */
import type { RecordKindName } from '../../src-common/records/record-kinds.ts'
import type { Page } from './envelope.ts'
import type { FinishedExport } from './export-runner.ts'
import type { PageWindow } from './paginated.ts'
import type { ListForm } from './resource-kit.ts'
import type { CallOptions } from './transport.ts'

export interface KindPull {
  /**
   * The list is served in its GET form too (`page` and `ids` take the form): sync falls back to
   * it where the POST form answers 404 or 405, and remembers that per vault.
   */
  getForm?: true
  /** A whole list (small kinds, unpaged on the server). */
  fetch?(vaultId: number, call: CallOptions): Promise<readonly unknown[]>
  /** A page; `since` (a kind the server filters by `modified_after`) narrows it to changes. */
  page?(
    vaultId: number,
    window: PageWindow,
    since: string | null,
    call: CallOptions,
    form?: ListForm,
  ): Promise<Page<unknown>>
  /** The complete id list, to find deletions. */
  ids?(vaultId: number, call: CallOptions, form?: ListForm): Promise<number[]>
  /** Every record as one export, for a large first pass. */
  exportAll?(vaultId: number, call: CallOptions): Promise<FinishedExport<unknown>>
}

export type KindPulls = Partial<Record<RecordKindName, KindPull>>

/** The `modified_after` parameter of a pass since `since`, or none for a whole pass. */
export function modifiedAfter(since: string | null): { modified_after?: string } {
  return since === null ? {} : { modified_after: since }
}

export async function allOf(ids: AsyncIterable<number>): Promise<number[]> {
  const out: number[] = []
  for await (const id of ids) out.push(id)
  return out
}
