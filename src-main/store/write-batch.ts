import { AppError } from '../shared/app-error.ts'
import {
  connectionVaultId,
  pageBuilder,
  type ApplyPageOptions,
  type AppliedPage,
  type CacheWrites,
} from './cache-writes.ts'
import { addInParts, PageDraft, type PartSink } from './page-draft.ts'
import { joinParts, type PreparedPage } from './record-rows.ts'

/**
 * One write of a batch, as plain data that crosses to the cache writer's worker. Pages travel
 * made ready for their tables (record-rows.ts) by the sender, from the records it holds anyway:
 * their JSON text, column values, search columns and project links in flat arrays. Cloning those
 * costs less than parsing the JSON again would, and the worker neither parses JSON nor reads
 * records: it only writes. A page crosses in parts of a hundred records or so (each its own
 * message, so that no clone holds the sender long), joined again into the page they make and
 * written in the batch's transaction; `continues` marks every part but the last, which alone
 * carries the cursor.
 */
export type CacheWrite =
  | {
      type: 'page'
      page: PreparedPage
      options: Omit<ApplyPageOptions, 'parentId'>
      continues?: true
    }
  | {
      type: 'retain'
      kind: string
      vaultId: number | string
      ids: readonly unknown[]
      parentId?: number | string
    }
  | { type: 'vaults'; page: PreparedPage }
  | { type: 'cursor'; kind: string; vaultId: number | string; cursor: unknown; scope: string }
  | { type: 'synced'; vaultId: number | string; at: string }

/** What each write answers, in order: pages their AppliedPage, prunes how many they deleted. */
export type CacheWriteResult = AppliedPage | number | null

type PageWrite = Extract<CacheWrite, { type: 'page' }>
type VaultsWrite = Extract<CacheWrite, { type: 'vaults' }>

/** A write as a batch holds it: records stay objects until the writer sends the batch. */
export type BatchWrite =
  | {
      type: 'page'
      kind: string
      vaultId: number | string
      records: readonly unknown[]
      options: ApplyPageOptions
    }
  | {
      type: 'draft'
      parts: readonly PreparedPage[]
      options: Omit<ApplyPageOptions, 'parentId' | 'texts'>
      /** Where its other parts went ahead of it (PageDraft's sink), if anywhere. */
      sentAhead?: PartSink
    }
  | { type: 'vaults'; records: readonly unknown[] }
  | Exclude<CacheWrite, PageWrite | VaultsWrite>

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
    if (options.texts && options.texts.length !== records.length) {
      throw new AppError(
        'validation',
        `A page of ${kind} has ${records.length} records but ${options.texts.length} texts.`,
      )
    }
    this.writes.push({ type: 'page', kind, vaultId, records, options })
    return this
  }

  /**
   * A page made ready as its records came (PageDraft); it can be handed over once. A page whose
   * parts went ahead (its sink) must be the batch's first write, since they reached the writer
   * before anything else of the batch.
   */
  applyDraft(draft: PageDraft, options: Omit<ApplyPageOptions, 'parentId' | 'texts'> = {}): this {
    if (draft.sink && this.writes.length > 0) {
      throw new AppError(
        'internal',
        `A page of ${draft.kind} whose parts went ahead must be the first write of its batch.`,
      )
    }
    const parts = draft.finish()
    this.writes.push({
      type: 'draft',
      parts,
      options,
      ...(draft.sink && { sentAhead: draft.sink }),
    })
    return this
  }

  /** Where the parts of the batch's first page went ahead of it, if anywhere (see applyDraft). */
  get sentAhead(): PartSink | undefined {
    const [first] = this.writes
    return first?.type === 'draft' ? first.sentAhead : undefined
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
}

/**
 * The writes as they cross to the worker, in parts: pages made ready a part at a time, yielding
 * to the event loop between parts. Throws, before any part, for an unknown kind, a bad vault id
 * or a parent where none applies.
 */
export async function* serializedParts(
  writes: readonly BatchWrite[],
): AsyncGenerator<CacheWrite[]> {
  // Checked first, so that a batch fails before any of it is sent.
  for (const write of writes) {
    if (write.type === 'page') pageBuilder(write.kind, write.vaultId, write.options)
  }
  let others: CacheWrite[] = []
  for (const write of writes) {
    if (write.type === 'page') {
      if (others.length > 0) yield others
      others = []
      yield* pageParts(write)
    } else if (write.type === 'draft') {
      if (others.length > 0) yield others
      others = []
      yield* draftParts(write)
    } else if (write.type === 'vaults') {
      const builder = pageBuilder('vaults', connectionVaultId)
      for (const record of write.records) builder.add(record)
      others.push({ type: 'vaults', page: builder.finish() })
    } else {
      others.push(write)
    }
  }
  if (others.length > 0) yield others
}

/**
 * A page in parts, made ready a part at a time (PageDraft). Written one after the other in one
 * transaction, they store what the page would: a record in two parts is replaced by its later
 * occurrence, as within a part.
 */
async function* pageParts(
  write: Extract<BatchWrite, { type: 'page' }>,
): AsyncGenerator<CacheWrite[]> {
  const { kind, vaultId, records, options } = write
  const { parentId: _parentId, texts, ...rest } = options
  const draft = await addInParts(new PageDraft(kind, vaultId, options), records, texts)
  yield* draftParts({ type: 'draft', parts: draft.finish(), options: rest })
}

/** The parts of a page made ready already, each crossing on its own, the last with the cursor. */
async function* draftParts(
  write: Extract<BatchWrite, { type: 'draft' }>,
): AsyncGenerator<CacheWrite[]> {
  const { parts, options } = write
  const { cursor: _cursor, ...withoutCursor } = options
  for (let index = 0; index < parts.length; index++) {
    if (index > 0) await new Promise((resolve) => setImmediate(resolve))
    const page = parts[index]!
    if (index === parts.length - 1) yield [{ type: 'page', page, options }]
    else yield [{ type: 'page', page, options: withoutCursor, continues: true }]
  }
}

/**
 * Runs a batch's writes in order (the caller holds the transaction); answers one result per
 * write as the batch held it. The parts of a page are written as the one page they make.
 */
export function runWrites(cache: CacheWrites, writes: readonly CacheWrite[]): CacheWriteResult[] {
  const results: CacheWriteResult[] = []
  /** The parts of a page that came so far, written with its last. */
  let parts: PreparedPage[] = []
  for (const write of writes) {
    if (write.type !== 'page') {
      results.push(runWrite(cache, write))
      continue
    }
    parts.push(write.page)
    if (write.continues) continue
    results.push(cache.applyPrepared(joinParts(parts), write.options))
    parts = []
  }
  if (parts.length > 0) throw new AppError('internal', 'The last part of a page never came.')
  return results
}

function runWrite(
  cache: CacheWrites,
  write: Exclude<CacheWrite, { type: 'page' }>,
): CacheWriteResult {
  switch (write.type) {
    case 'retain':
      return cache.retainOnly(write.kind, write.vaultId, write.ids, {
        ...(write.parentId === undefined ? {} : { parentId: write.parentId }),
      })
    case 'vaults':
      return cache.replacePreparedVaults(write.page)
    case 'cursor':
      cache.saveCursor(write.kind, write.vaultId, write.cursor, write.scope)
      return null
    case 'synced':
      cache.recordSync(write.vaultId, write.at)
      return null
  }
}
