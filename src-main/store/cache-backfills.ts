import Database from 'better-sqlite3'
import { cacheBackfills } from './cache-migrations.ts'

/**
 * Rows per transaction of a backfill: about 50 ms of work at 50 µs a row (steps 10 and 11 on a
 * 250k-molecule cache), short enough that a sync batch or a write of the main thread waiting for
 * the lock is barely held up.
 */
const rowsPerSlice = 1000

interface PendingBackfill {
  step: number
  next_row_id: number
  last_row_id: number
}

/**
 * The work that cache steps left to do on existing rows (`cache_backfills`, see
 * cache-migrations.ts), done by the cache writer's worker a slice at a time whenever it is idle,
 * so that an upgrade never holds the main thread for the whole cache. Each slice commits with
 * the cursor that says how far its step has got: a backfill stopped midway (the app quit, the
 * worker retired) goes on from there on the writer's next start.
 */
export class IdleBackfills {
  readonly #slice: () => boolean
  readonly #settled: () => void
  #stepping: NodeJS.Immediate | undefined
  #failed = false

  /** `settled` runs once nothing is left to fill after the writer went idle. */
  constructor(db: Database.Database, settled: () => void) {
    this.#settled = settled
    if (!hasBackfillTable(db)) {
      this.#slice = () => false
      return
    }
    const next = db.prepare<[], PendingBackfill>(
      'SELECT step, next_row_id, last_row_id FROM cache_backfills ORDER BY step LIMIT 1',
    )
    const advance = db.prepare('UPDATE cache_backfills SET next_row_id = ? WHERE step = ?')
    const finish = db.prepare('DELETE FROM cache_backfills WHERE step = ?')
    const prepared = new Map<number, ReturnType<typeof prepareBackfill>>()
    const slice = db.transaction((): boolean => {
      const pending = next.get()
      if (!pending) return false
      let backfill = prepared.get(pending.step)
      if (!backfill) prepared.set(pending.step, (backfill = prepareBackfill(db, pending.step)))
      const end = backfill.sliceEnd(pending.next_row_id)
      if (end === null || end >= pending.last_row_id) {
        backfill.fill(pending.next_row_id, pending.last_row_id)
        // Filled: a finish with more to do is called again in the next slice, which fills
        // nothing but the last row again (fills may be repeated).
        if (backfill.finish?.() === false) advance.run(pending.last_row_id, pending.step)
        else finish.run(pending.step)
      } else {
        backfill.fill(pending.next_row_id, end)
        advance.run(end + 1, pending.step)
      }
      return true
    })
    this.#slice = () => slice.immediate()
  }

  /** The writer is about to commit: backfilling waits. */
  busy(): void {
    if (this.#stepping) clearImmediate(this.#stepping)
    this.#stepping = undefined
  }

  /** The writer has nothing to do: it fills a slice at a time, letting other work in between. */
  idle(): void {
    this.busy()
    this.#stepping = setImmediate(() => this.#next())
  }

  #next(): void {
    this.#stepping = undefined
    let more: boolean
    try {
      more = !this.#failed && this.#slice()
    } catch (error) {
      // The rows keep their NULLs, which readers accept, and the writer its other work: the
      // slice is tried again by the next worker rather than failing every idle moment of this one.
      this.#failed = true
      process.emitWarning(`A cache backfill failed: ${(error as Error).message}`)
      more = false
    }
    if (!more) {
      this.#settled()
      return
    }
    this.#stepping = setImmediate(() => this.#next())
  }
}

function prepareBackfill(db: Database.Database, step: number) {
  const backfill = cacheBackfills[step]
  if (!backfill)
    throw new Error(`The cache holds work left by step ${step}, unknown to this build.`)
  const { table, fill, finish, sliceEnd } = backfill(db)
  if (sliceEnd) return { fill, finish, sliceEnd }
  // The rowid that ends a slice of rowsPerSlice rows from a given one: rowids may have gaps.
  const rowidSliceEnd = db
    .prepare<[number], number | null>(
      `SELECT max(rowid) FROM (SELECT rowid FROM ${table} WHERE rowid >= ? ORDER BY rowid LIMIT ${rowsPerSlice})`,
    )
    .pluck()
  return { fill, finish, sliceEnd: (from: number) => rowidSliceEnd.get(from) ?? null }
}

function hasBackfillTable(db: Database.Database): boolean {
  return (
    db
      .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'cache_backfills'")
      .get() !== undefined
  )
}

/**
 * Whether a cache file has work left by its steps, read on a connection of its own (read-only, so
 * closing it never checkpoints): a millisecond, so that whoever opens a cache can start its writer.
 */
export function hasPendingBackfills(file: string): boolean {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return (
      hasBackfillTable(db) &&
      db.prepare('SELECT 1 FROM cache_backfills LIMIT 1').get() !== undefined
    )
  } finally {
    db.close()
  }
}
