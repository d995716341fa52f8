import { randomUUID } from 'node:crypto'
import os from 'node:os'
import type Database from 'better-sqlite3'

/** A holder on another machine (a shared data folder) that stopped renewing for this long is gone. */
const leaseExpiryMs = 30_000
/**
 * A holder on this machine whose process still runs keeps the lease this long without renewing
 * (a laptop asleep); past that, its process id is taken to belong to another program now.
 */
const localLeaseExpiryMs = 3_600_000

/** The outbox's store as the lease uses it: write transactions (BEGIN IMMEDIATE) on its file. */
interface LeaseStore {
  readonly database: Database.Database
  transaction<T>(work: () => T): T
}

/**
 * Only one process sends the outbox at a time (the app and a `vault-desk` command may share a
 * data directory): two senders would reconcile each other's items as interrupted and send them
 * twice. The lease is a row of the outbox database, taken in a write transaction; a holder whose
 * process is gone (or that stopped renewing, see above) loses it.
 */
export class SenderLease {
  readonly holder = randomUUID()
  readonly #store: LeaseStore
  readonly #now: () => number

  /**
   * `store`'s database is read inside each of its write transactions: the outbox may have been
   * rebuilt after damage meanwhile, and the store gone over to the rebuilt file.
   */
  constructor(store: LeaseStore, now: () => number = Date.now) {
    this.#store = store
    this.#now = now
  }

  /** Takes (or keeps) the lease; false while another live process holds it. */
  acquire(): boolean {
    return this.#store.transaction(() => {
      const db = this.#store.database
      const now = this.#now()
      const row = db.prepare('SELECT * FROM sender_lease WHERE id = 1').get() as
        { holder: string; pid: number; host: string; renewed_at: number } | undefined
      const heldByOther =
        row !== undefined &&
        row.holder !== this.holder &&
        (row.host === os.hostname()
          ? isAlive(row.pid) && now - row.renewed_at < localLeaseExpiryMs
          : now - row.renewed_at < leaseExpiryMs)
      if (heldByOther) return false
      db.prepare(
        `INSERT INTO sender_lease (id, holder, pid, host, renewed_at) VALUES (1, ?, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, pid = excluded.pid,
               host = excluded.host, renewed_at = excluded.renewed_at`,
      ).run(this.holder, process.pid, os.hostname(), now)
      return true
    })
  }

  release(): void {
    this.#store.transaction(() =>
      this.#store.database
        .prepare('DELETE FROM sender_lease WHERE id = 1 AND holder = ?')
        .run(this.holder),
    )
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
