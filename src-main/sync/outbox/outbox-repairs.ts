import type Database from 'better-sqlite3'
import { AppError } from '../../shared/app-error.ts'

/** What was done with a damaged outbox (`outbox-recovery.ts`): told to the person, logged. */
export interface OutboxRecovery {
  /** The damaged file as it was found (its WAL beside it, when it had one), private. */
  movedTo: string
  /** What SQLite found wrong. */
  details: string
  /** Items read back into the fresh outbox... */
  recovered: number
  /** ...of which not yet sent nor discarded. */
  unresolved: number
  /** Items (by id) that could not be read: lost from the fresh outbox, still in the copy. */
  unreadable: number
}

/** A repair of a damaged outbox, as kept in the outbox until the person has read of it. */
export interface OutboxRepair extends OutboxRecovery {
  id: number
  /** When the damaged file was found and rebuilt (ISO). */
  repairedAt: string
}

interface RepairRow {
  id: number
  repaired_at: number
  moved_to: string
  details: string
  recovered: number
  unresolved: number
  unreadable: number
}

/**
 * Repairs are written into the rebuilt outbox itself, in the transaction after the rebuild: the
 * record of a repair is durable once the repair is, whichever process (the app, the CLI) made it.
 */
export class OutboxRepairs {
  readonly #db: Database.Database

  constructor(db: Database.Database) {
    this.#db = db
  }

  record(recovery: OutboxRecovery, at: number): OutboxRepair {
    const id = Number(
      this.#db
        .prepare(
          `INSERT INTO repairs (repaired_at, moved_to, details, recovered, unresolved, unreadable)
           VALUES (?, ?, ?, ?, ?, ?)`,
        )
        .run(
          at,
          recovery.movedTo,
          recovery.details,
          recovery.recovered,
          recovery.unresolved,
          recovery.unreadable,
        ).lastInsertRowid,
    )
    return { ...recovery, id, repairedAt: new Date(at).toISOString() }
  }

  /** Repairs the person has not dismissed yet, oldest first. */
  unseen(): OutboxRepair[] {
    const rows = this.#db
      .prepare('SELECT * FROM repairs WHERE seen_at IS NULL ORDER BY id')
      .all() as RepairRow[]
    return rows.map((row) => ({
      id: row.id,
      repairedAt: new Date(row.repaired_at).toISOString(),
      movedTo: row.moved_to,
      details: row.details,
      recovered: row.recovered,
      unresolved: row.unresolved,
      unreadable: row.unreadable,
    }))
  }

  /** The person has read of repair `id`; a repair already dismissed stays so. */
  markSeen(id: number, at: number): void {
    const found = this.#db.prepare('SELECT seen_at FROM repairs WHERE id = ?').get(id)
    if (found === undefined) throw new AppError('not_found', `No outbox repair ${id} is recorded.`)
    this.#db.prepare('UPDATE repairs SET seen_at = ? WHERE id = ? AND seen_at IS NULL').run(at, id)
  }
}

/** What the person is told of a damaged outbox rebuilt at a start (the window, the CLI). */
export function describeRecovery(recovery: OutboxRecovery): { message: string; details: string } {
  return {
    message: 'The outbox was damaged and has been repaired',
    details: `${recoveredCounts(recovery)} The damaged file is kept at ${recovery.movedTo}.`,
  }
}

/** How many items came back, and how many could not be read, in words. */
export function recoveredCounts(recovery: OutboxRecovery): string {
  const lost =
    recovery.unreadable > 0
      ? ` ${recovery.unreadable} could not be read: what they held may need to be done again.`
      : ''
  return `${recovery.recovered} items were recovered (${recovery.unresolved} still to send or decide).${lost}`
}
