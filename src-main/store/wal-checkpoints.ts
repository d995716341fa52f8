import fs from 'node:fs'
import type Database from 'better-sqlite3'

/**
 * Checkpoints of a cache (copying what the WAL holds into the database file, then syncing it) are
 * the cache writer's, in its idle time. In WAL mode with synchronous NORMAL they are the only
 * moments SQLite waits for the disk, and the writer is what a sync waits for: left to its idle
 * time, the checkpoint comes after the sync instead of inside it (bench/README.md). The cache
 * stays as sound without them: each commit is whole in the WAL, and a power cut loses at most the
 * commits since the last checkpoint, cursors and rows together, which the next sync reads again.
 *
 * The WAL meanwhile grows by what the sync writes (about 270 MB for 100k molecules) and is given
 * back once checkpointed. Past `walBoundBytes` the writer checkpoints as it goes, so that a sync
 * larger still never makes it grow without end.
 */
export const walBoundBytes = 512 * 1024 * 1024

/** What a WAL file keeps of its size when it starts over (SQLite's journal_size_limit). */
export const walKeptBytes = 16 * 1024 * 1024

/** The writer's connection: checkpoints only past walBoundBytes until checkpointIdle. */
export function deferCheckpoints(db: Database.Database): void {
  const pageSize = db.pragma('page_size', { simple: true }) as number
  db.pragma(`wal_autocheckpoint = ${Math.ceil(walBoundBytes / pageSize)}`)
}

/**
 * The main thread's connection never checkpoints: a commit of its own after a sync would
 * otherwise copy the writer's whole WAL while the window waits.
 */
export function neverCheckpoint(db: Database.Database): void {
  db.pragma('wal_autocheckpoint = 0')
}

/** Every connection to a cache: a WAL file that starts over gives back what it grew by. */
export function limitWalFile(db: Database.Database): void {
  db.pragma(`journal_size_limit = ${walKeptBytes}`)
}

/**
 * Copies what the WAL holds into the database file, without holding up readers or the main
 * thread's writes (a checkpoint that also empties the WAL file waits for every reader, the check
 * of a whole cache among them). The file is cut back to walKeptBytes when the WAL next starts
 * over, at the next commit.
 */
export function checkpointIdle(db: Database.Database): void {
  db.pragma('wal_checkpoint(PASSIVE)')
}

/**
 * Keeps the WAL of a connection that checkpoints on no schedule of its own within `boundBytes`
 * during a long run of commits that holds its thread (the CLI completing the readout index on
 * the main connection, whose watch by timer cannot run meanwhile): it grew to 17.9 GB on a
 * 2.5M-row index.
 */
export function checkpointPastBound(db: Database.Database, boundBytes = walBoundBytes): void {
  let size: number
  try {
    size = fs.statSync(`${db.name}-wal`).size
  } catch {
    return
  }
  if (size > boundBytes) checkpointIdle(db)
}

/** How often the main thread looks whether its own writes have grown the WAL. */
const mainWritesCheckMs = 2000

/**
 * Calls `tidy` (CacheWriter.tidy: a checkpoint by the writer's worker, started if need be) while
 * the main thread's own writes have grown the WAL, which its connection never checkpoints: the
 * structure index of a vault, say, is written there. Answers the function that stops it.
 */
export function watchMainWrites(file: string, tidy: () => void): () => void {
  const timer = setInterval(() => {
    if (grownSinceCheckpoint(file)) tidy()
  }, mainWritesCheckMs)
  timer.unref()
  return () => clearInterval(timer)
}

/**
 * Whether the WAL holds more than it keeps, written after the database file was: only a
 * checkpoint writes the database file, so that WAL holds frames none has copied yet.
 */
export function grownSinceCheckpoint(file: string): boolean {
  try {
    const wal = fs.statSync(`${file}-wal`)
    return wal.size > walKeptBytes && wal.mtimeMs > fs.statSync(file).mtimeMs
  } catch {
    // No WAL (or no file) to look at: nothing to checkpoint.
    return false
  }
}
