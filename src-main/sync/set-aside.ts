import type { SetAside } from '../api/index.ts'
import type { RecordKindName } from '../store/record-kinds.ts'
import type { VaultCache } from '../store/vault-cache.ts'
import { WriteBatch } from '../store/write-batch.ts'

/**
 * Records sync could not keep: the API's readers set aside a record that cannot be read (no id,
 * say: `setAsideIn`), and the cache refuses one it cannot store (`AppliedPage.rejected`); the rest
 * of their kind syncs. How many, and why, is in the pull's result and in the cache's sync state,
 * where `vault-desk status` finds it.
 */
export interface SetAsideReport {
  kind: RecordKindName
  count: number
  /** The first few reasons, each once. */
  reasons: string[]
}

/** The scope of a kind's sync state that holds its report. */
const setAsideScope = 'set-aside'
const reasonsKept = 3

/** What one vault's pull set aside, kind by kind. */
export class SetAsideTally {
  readonly #byKind = new Map<RecordKindName, { count: number; reasons: string[] }>()

  note(kind: RecordKindName, records: readonly Pick<SetAside, 'reason'>[]): void {
    if (records.length === 0) return
    let entry = this.#byKind.get(kind)
    if (!entry) this.#byKind.set(kind, (entry = { count: 0, reasons: [] }))
    entry.count += records.length
    for (const { reason } of records) {
      if (entry.reasons.length < reasonsKept && !entry.reasons.includes(reason)) {
        entry.reasons.push(reason)
      }
    }
  }

  /** Every kind with records set aside, in the order given. */
  reports(order: readonly RecordKindName[]): SetAsideReport[] {
    return order.flatMap((kind) => {
      const entry = this.#byKind.get(kind)
      return entry ? [{ kind, count: entry.count, reasons: [...entry.reasons] }] : []
    })
  }

  /**
   * Saves the kind's report once its pass is done: a pass that read the whole kind replaces what
   * was saved (records fixed since are no longer counted); one that read only changes adds to it.
   */
  async save(cache: VaultCache, vaultId: number, kind: RecordKindName, whole: boolean) {
    const entry = this.#byKind.get(kind) ?? { count: 0, reasons: [] }
    const saved = whole ? null : readReport(kind, cache.cursor(kind, vaultId, setAsideScope))
    if (!whole && entry.count === 0) return
    const count = entry.count + (saved?.count ?? 0)
    const reasons = [...new Set([...(saved?.reasons ?? []), ...entry.reasons])].slice(
      0,
      reasonsKept,
    )
    await cache.writer.commit(
      new WriteBatch().saveCursor(
        kind,
        vaultId,
        { count, reasons, at: new Date().toISOString() },
        setAsideScope,
      ),
    )
  }
}

/** What the cache's sync state says the last passes of each kind set aside in a vault. */
export function savedSetAside(
  cache: VaultCache,
  vaultId: number,
  kinds: readonly RecordKindName[],
): SetAsideReport[] {
  return kinds.flatMap((kind) => {
    const report = readReport(kind, cache.cursor(kind, vaultId, setAsideScope))
    return report && report.count > 0 ? [report] : []
  })
}

function readReport(kind: RecordKindName, saved: unknown): SetAsideReport | null {
  if (typeof saved !== 'object' || saved === null) return null
  const { count, reasons } = saved as Record<string, unknown>
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) return null
  return {
    kind,
    count,
    reasons: Array.isArray(reasons)
      ? reasons.filter((reason): reason is string => typeof reason === 'string')
      : [],
  }
}
