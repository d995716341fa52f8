import type Database from 'better-sqlite3'

/**
 * What answers read from the readout value index are kept by: cache steps 13 and 14's counters,
 * which any connection's write that can change such an answer raises (readout rows, batches moved
 * to another molecule, protocols, plates), and the index's backlog (indexing a queued row changes
 * its cells, and a queued group its aggregates, without a write to the row).
 */
export interface ReadoutChanges {
  readoutRows: number
  batches: number
  protocols: number
  plates: number
  queuedRows: number
  queuedGroups: number
}

/**
 * Reads `ReadoutChanges` on one connection, again only once the file has changed (`PRAGMA
 * data_version` for other connections' commits, `total_changes()` for this one's writes): until
 * then the same object is returned.
 */
export class ReadoutChangeReader {
  readonly #db: Database.Database
  #statements: ReturnType<typeof prepareReads> | null = null
  #version = ''
  #changes: Readonly<ReadoutChanges> | null = null

  constructor(db: Database.Database) {
    this.#db = db
  }

  current(): Readonly<ReadoutChanges> {
    const statements = (this.#statements ??= prepareReads(this.#db))
    const version = `${statements.dataVersion.get() as number}:${statements.ownChanges.get() as number}`
    if (this.#changes && this.#version === version) return this.#changes
    const counters = new Map(statements.counters.all() as [string, number][])
    const [queuedRows, queuedGroups] = statements.backlog.get() as [number, number]
    this.#version = version
    this.#changes = Object.freeze({
      readoutRows: counters.get('readout_rows') ?? 0,
      batches: counters.get('batches') ?? 0,
      protocols: counters.get('protocols') ?? 0,
      plates: counters.get('plates') ?? 0,
      queuedRows,
      queuedGroups,
    })
    return this.#changes
  }
}

function prepareReads(db: Database.Database) {
  return {
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
    ownChanges: db.prepare('SELECT total_changes()').pluck(),
    counters: db.prepare('SELECT topic, changes FROM readout_change_counters').raw(),
    backlog: db
      .prepare(
        `SELECT (SELECT count(*) FROM readout_index_queue), (SELECT count(*) FROM readout_group_queue)`,
      )
      .raw(),
  }
}
