import type Database from 'better-sqlite3'

/**
 * Segments of the search index past which it is merged into one. Every committed page adds one,
 * and FTS5 merges a level only once 16 gather there (cache-migrations.ts, step 5); a query reads
 * every segment of every term it expands to, so a dozen segments make typing several times slower
 * than one (bench/README.md).
 */
const segmentsWorthMerging = 8
/** How long the writer waits for more pages before it looks at the index. */
const idleBeforeMergingMs = 1000
/**
 * Pages of merged index written per step, each step its own transaction, so that a page of sync
 * or a write of the main thread waits at most one step (tens of milliseconds at 250k molecules:
 * bench/README.md).
 */
const pagesPerStep = 50

/**
 * Merges the search index into one segment, step by step, while the cache writer is idle (after
 * a first sync, say). A page that comes meanwhile goes first; merging goes on once the writer is
 * idle again.
 */
export class IdleSearchMerging {
  readonly #segments: () => number
  readonly #step: () => number
  readonly #settled: () => void
  #timer: NodeJS.Timeout | undefined
  #stepping: NodeJS.Immediate | undefined

  /** `settled` runs once the index needs no merging after the writer went idle. */
  constructor(db: Database.Database, settled: () => void) {
    this.#settled = settled
    // The index's table of segments (FTS5's %_idx shadow table): one row per segment and leaf.
    const segments = db
      .prepare<[], number>('SELECT count(DISTINCT segid) FROM search_index_idx')
      .pluck()
    this.#segments = () => segments.get()!
    const changes = db.prepare<[], number>('SELECT total_changes()').pluck()
    const merge = db.prepare(
      `INSERT INTO search_index (search_index, rank) VALUES ('merge', -${pagesPerStep})`,
    )
    const step = db.transaction(() => merge.run())
    this.#step = () => {
      const before = changes.get()!
      step.immediate()
      return changes.get()! - before
    }
  }

  /** The writer is about to commit: merging waits. */
  busy(): void {
    clearTimeout(this.#timer)
    if (this.#stepping) clearImmediate(this.#stepping)
    this.#timer = undefined
    this.#stepping = undefined
  }

  /** The writer has nothing to do: it looks at the index in a moment, unless work comes. */
  idle(): void {
    this.busy()
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      if (this.#segments() > segmentsWorthMerging) this.#next()
      else this.#settled()
    }, idleBeforeMergingMs)
  }

  /** As idle, unless a look is on its way already (which another call would only put off). */
  wake(): void {
    if (this.#timer === undefined && this.#stepping === undefined) this.idle()
  }

  #next(): void {
    this.#stepping = undefined
    // Fewer than two changes: nothing was left to merge (the FTS5 'merge' command's contract).
    if (this.#step() < 2) {
      this.#settled()
      return
    }
    this.#stepping = setImmediate(() => this.#next())
  }
}
