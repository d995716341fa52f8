import { spawn } from 'node:child_process'
import path from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { cacheMigrations } from '../../src-main/store/cache-migrations.ts'
import { outboxMigrations } from '../../src-main/sync/outbox/outbox-database.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const childScript = path.resolve(import.meta.dirname, 'migrate-child.ts')

/** Starts `count` processes of the pinned node that open the same new database at one instant. */
async function openTogether(
  mode: 'steps' | 'real',
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
})
