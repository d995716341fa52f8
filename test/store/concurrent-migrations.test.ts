import { spawn } from 'node:child_process'
import path from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openCacheDatabase } from '../../src-main/store/cache-database.ts'
import { cacheMigrations } from '../../src-main/store/cache-migrations.ts'
import { kindDeclarations } from '../../src-common/records/record-kinds.ts'
import { outboxMigrations } from '../../src-main/sync/outbox/outbox-database.ts'
import { schemaOf } from './fixtures/schema-steps.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const childScript = path.resolve(import.meta.dirname, 'migrate-child.ts')

/** Starts `count` processes of the pinned node that open the same new database at one instant. */
async function openTogether(
  mode: 'steps' | 'real' | 'declared',
  folder: string,
  count: number,
): Promise<{ code: number | null; output: string }[]> {
  const startAt = Date.now() + 1_500
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<{ code: number | null; output: string }>((resolve) => {
          const child = spawn(process.execPath, [childScript, mode, folder, String(startAt)], {
            stdio: ['ignore', 'pipe', 'pipe'],
          })
          let output = ''
          child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
          child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
          child.on('exit', (code) => resolve({ code, output: output.trim() }))
        }),
    ),
  )
}

describe('migrations started by several processes at once', () => {
  const temporaryDirectory = useTemporaryDirectory()

  it('apply each step once and leave the database at the newest version', async () => {
    const folder = temporaryDirectory()
    const results = await openTogether('steps', folder, 6)
    expect(results).toEqual(Array.from({ length: 6 }, () => ({ code: 0, output: 'ok' })))
    const db = new Database(path.join(folder, 'steps.db'), { readonly: true })
    expect(db.pragma('user_version', { simple: true })).toBe(3)
    const steps = db.prepare('SELECT step FROM steps ORDER BY step').pluck().all()
    expect(steps).toEqual([1, 2, 3])
    db.close()
  }, 60_000)

  it('open a new outbox and cache with their real openers', async () => {
    const folder = temporaryDirectory()
    const results = await openTogether('real', folder, 4)
    expect(results).toEqual(Array.from({ length: 4 }, () => ({ code: 0, output: 'ok' })))
    const version = (file: string) => {
      const db = new Database(path.join(folder, file), { readonly: true })
      try {
        return db.pragma('user_version', { simple: true })
      } finally {
        db.close()
      }
    }
    expect(version('outbox.db')).toBe(outboxMigrations.length)
    expect(version('caches/cache.db')).toBe(cacheMigrations.length)
  }, 60_000)

  it('make the record tables of kinds declared since the last migration once', async () => {
    const folder = temporaryDirectory()
    openCacheDatabase(path.join(folder, 'caches', 'cache.db')).db.close()
    // As a cache left by a version that declared fewer kinds: the tables of some are missing.
    const db = new Database(path.join(folder, 'caches', 'cache.db'))
    const withTriggers = new Set(
      db.prepare("SELECT tbl_name FROM sqlite_schema WHERE type = 'trigger'").pluck().all(),
    )
    const missing = kindDeclarations
      .map((kind) => kind.name)
      .filter((name) => !withTriggers.has(name))
      .slice(0, 3)
    expect(missing).toHaveLength(3)
    for (const name of missing) db.exec(`DROP TABLE ${name}`)
    const schemaWithout = schemaOf(db)
    db.close()

    const results = await openTogether('declared', folder, 6)
    expect(results).toEqual(Array.from({ length: 6 }, () => ({ code: 0, output: 'ok' })))
    const after = new Database(path.join(folder, 'caches', 'cache.db'), { readonly: true })
    try {
      const tables = after
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
        .pluck()
        .all() as string[]
      for (const name of missing) expect(tables.filter((table) => table === name)).toEqual([name])
      expect(schemaOf(after).length).toBeGreaterThan(schemaWithout.length)
    } finally {
      after.close()
    }
  }, 60_000)
})
