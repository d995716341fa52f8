import { AppError } from '../shared/app-error.ts'
import type { ApplyPageOptions, AppliedPage, CacheWrites } from './cache-writes.ts'
import type { PageRecord } from './record-writer.ts'

/**
 * One write of a batch, as plain data that crosses to the cache writer's worker. Records travel
 * as JSON text: serializing a page costs the sender a few milliseconds (far less than cloning
 * its objects), and the text parsed on the other side is the very text stored.
 */
export type CacheWrite =
  | {
      type: 'page'
      kind: string
      vaultId: number | string
      records: (string | null)[]
      options: ApplyPageOptions
    }
  | {
      type: 'retain'
      kind: string
      vaultId: number | string
      ids: readonly unknown[]
      parentId?: number | string
    }
  | { type: 'vaults'; records: (string | null)[] }
  | { type: 'cursor'; kind: string; vaultId: number | string; cursor: unknown; scope: string }
  | { type: 'synced'; vaultId: number | string; at: string }
  | { type: 'optimize' }

/** What each write answers, in order: pages their AppliedPage, prunes how many they deleted. */
export type CacheWriteResult = AppliedPage | number | null

type PageWrite = Extract<CacheWrite, { type: 'page' }>
type VaultsWrite = Extract<CacheWrite, { type: 'vaults' }>

/** A write as a batch holds it: records stay objects until the writer sends the batch. */
export type BatchWrite =
  | (Omit<PageWrite, 'records'> & { records: readonly unknown[] })
  | (Omit<VaultsWrite, 'records'> & { records: readonly unknown[] })
  | Exclude<CacheWrite, PageWrite | VaultsWrite>

/**
 * Records serialized between two yields to the event loop: about a millisecond of work, so that
 * handing a page of a thousand molecules to the writer never holds the main thread for a frame.
 */
const recordsPerSlice = 250

/** Writes that commit together, in one transaction, or not at all. */
export class WriteBatch {
  readonly writes: BatchWrite[] = []

  applyPage(
    kind: string,
    vaultId: number | string,
    records: readonly unknown[],
    options: ApplyPageOptions = {},
  ): this {
    if (!Array.isArray(records)) {
      throw new AppError('validation', `A page of ${kind} must be an array of records.`)
    }
    this.writes.push({ type: 'page', kind, vaultId, records, options })
    return this
  }

  retainOnly(
    kind: string,
    vaultId: number | string,
    ids: readonly unknown[],
    options: { parentId?: number | string } = {},
  ): this {
    this.writes.push({ type: 'retain', kind, vaultId, ids, ...options })
    return this
  }

  /** The vault list; vaults no longer in it are forgotten with everything cached of them. */
  replaceVaults(records: readonly unknown[]): this {
    this.writes.push({ type: 'vaults', records })
    return this
  }

  saveCursor(kind: string, vaultId: number | string, cursor: unknown, scope = ''): this {
    this.writes.push({ type: 'cursor', kind, vaultId, cursor, scope })
    return this
  }

  recordSync(vaultId: number | string, at: string = new Date().toISOString()): this {
    this.writes.push({ type: 'synced', vaultId, at })
    return this
  }

  optimizeSearch(): this {
    this.writes.push({ type: 'optimize' })
    return this
  }
}

/** The writes as they cross to the worker, records as JSON text, yielding between slices. */
export async function serialized(writes: readonly BatchWrite[]): Promise<CacheWrite[]> {
  const crossing: CacheWrite[] = []
  for (const write of writes) {
    if (write.type !== 'page' && write.type !== 'vaults') {
      crossing.push(write)
      continue
    }
    const texts: (string | null)[] = []
    for (let start = 0; start < write.records.length; start += recordsPerSlice) {
      if (start > 0) await new Promise((resolve) => setImmediate(resolve))
      for (const record of write.records.slice(start, start + recordsPerSlice)) {
        texts.push(jsonText(record))
      }
    }
    crossing.push({ ...write, records: texts })
  }
  return crossing
}

/** Runs a batch's writes in order (the caller holds the transaction). */
export function runWrites(cache: CacheWrites, writes: readonly CacheWrite[]): CacheWriteResult[] {
  return writes.map((write) => {
    switch (write.type) {
      case 'page':
        return cache.applyPage(write.kind, write.vaultId, pageRecords(write.records), write.options)
      case 'retain':
        return cache.retainOnly(write.kind, write.vaultId, write.ids, {
          ...(write.parentId === undefined ? {} : { parentId: write.parentId }),
        })
      case 'vaults':
        return cache.replaceVaults(pageRecords(write.records))
      case 'cursor':
        cache.saveCursor(write.kind, write.vaultId, write.cursor, write.scope)
        return null
      case 'synced':
        cache.recordSync(write.vaultId, write.at)
        return null
      case 'optimize':
        cache.optimizeSearch()
        return null
    }
  })
}

/** A record as JSON text; null for what JSON cannot hold, which the store then rejects. */
function jsonText(record: unknown): string | null {
  try {
    return JSON.stringify(record) ?? null
  } catch {
    return null
  }
}

function pageRecords(texts: readonly (string | null)[]): PageRecord[] {
  return texts.map((json) =>
    json === null ? { record: undefined } : { record: JSON.parse(json) as unknown, json },
  )
}
