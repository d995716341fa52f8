import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { checkpointPastBound, limitWalFile, neverCheckpoint } from './wal-checkpoints.ts'

const folders: string[] = []
afterEach(() => folders.splice(0).forEach((folder) => fs.rmSync(folder, { recursive: true })))

/** A connection as the main thread's: WAL, never checkpointing by itself. */
function mainConnection(): Database.Database {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-wal-'))
  folders.push(folder)
  const db = new Database(path.join(folder, 'cache.db'))
  db.pragma('journal_mode = WAL')
  neverCheckpoint(db)
  limitWalFile(db)
  db.exec('CREATE TABLE filler (text TEXT)')
  return db
}

/** Commits 100 KB at a time, `after` called after each, and answers the WAL's largest size. */
function commitMany(db: Database.Database, after: () => void): number {
  const insert = db.prepare('INSERT INTO filler (text) VALUES (?)')
  let largest = 0
  for (let commit = 0; commit < 60; commit++) {
    insert.run('x'.repeat(100_000))
    after()
    largest = Math.max(largest, fs.statSync(`${db.name}-wal`).size)
  }
  return largest
}

describe('checkpointPastBound', () => {
  const bound = 1024 * 1024

  it('keeps the WAL of a connection that never checkpoints near the bound', () => {
    const db = mainConnection()
    try {
      expect(commitMany(db, () => checkpointPastBound(db, bound))).toBeLessThan(2 * bound)
      expect(db.prepare('SELECT count(*) FROM filler').pluck().get()).toBe(60)
    } finally {
      db.close()
    }
  })

  it('is what keeps it there: without it the WAL holds every commit', () => {
    const db = mainConnection()
    try {
      expect(commitMany(db, () => {})).toBeGreaterThan(5 * bound)
    } finally {
      db.close()
    }
  })
})
