/**
 * Files written by a newer Vault Desk (a second install, a rollback): each store records its
 * schema step in SQLite's `user_version` (cache, outbox, app database alike, one step per entry of
 * its migrations list). "Newer" is simulated by setting it above this build's newest step on a
 * real file. Such a file is refused by name and version before any repair path runs, and left
 * byte for byte as it was: nothing set aside, rebuilt or written.
 */
import { spawnSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { appMigrations, openAppDatabase } from '../../src-main/store/app-database.ts'
import { openCacheDatabase } from '../../src-main/store/cache-database.ts'
import { cacheMigrations } from '../../src-main/store/cache-migrations.ts'
import { ConnectionCaches } from '../../src-main/store/connection-caches.ts'
import {
  NewerSchemaError,
  storedSchemaVersion,
  type Migration,
} from '../../src-main/store/migrations.ts'
import { outboxMigrations, openOutboxDatabase } from '../../src-main/sync/outbox/outbox-database.ts'
import {
  checkOutboxPages,
  openOutbox,
  openOutboxFile,
} from '../../src-main/sync/outbox/outbox-recovery.ts'
import { damagePage, leafPagesOfItems } from '../outbox/support/damaged-outbox.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')

/** Every file of a folder (recursively) with the SHA-256 of its bytes. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {}
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const file = path.join(entry.parentPath, entry.name)
    files[path.relative(dir, file)] = crypto
      .createHash('sha256')
      .update(fs.readFileSync(file))
      .digest('hex')
  }
  return files
}

/** Sets the file's schema step `ahead` beyond `migrations`, as a newer build leaves it. */
function makeNewer(file: string, migrations: readonly Migration[], ahead = 3): number {
  const db = new Database(file)
  db.pragma(`user_version = ${migrations.length + ahead}`)
  db.close()
  return migrations.length + ahead
}

/** Runs `attempt` and returns what it threw, which must be a NewerSchemaError. */
function refusal(attempt: () => unknown): NewerSchemaError {
  try {
    attempt()
  } catch (error) {
    expect(error).toBeInstanceOf(NewerSchemaError)
    return error as NewerSchemaError
  }
  throw new Error('expected the newer file to be refused')
}

function expectNamed(error: NewerSchemaError, file: string, version: number, known: number) {
  expect(error.message).toContain(file)
  expect(error.message).toContain(`schema ${version}`)
  expect(error.message).toContain(`knows schema ${known}`)
  expect(error.message).toMatch(/newer Vault Desk/)
  expect(error).toMatchObject({ file, version, known })
}

function expectNothingSetAside(dir: string): void {
  const names = fs.readdirSync(dir, { recursive: true }).map(String)
  expect(names.filter((name) => /damaged|recovering/.test(name))).toEqual([])
}

describe('a cache written by a newer Vault Desk', () => {
  const temporaryDirectory = useTemporaryDirectory()

  it('is refused by name and versions and left byte for byte as it was', () => {
    const dir = temporaryDirectory()
    const file = path.join(dir, 'caches', 'c-1.db')
    openCacheDatabase(file).db.close()
    const version = makeNewer(file, cacheMigrations)
    const before = snapshot(dir)

    expectNamed(
      refusal(() => openCacheDatabase(file)),
      file,
      version,
      cacheMigrations.length,
    )
    const caches = new ConnectionCaches(dir)
    expectNamed(
      refusal(() => caches.open('c-1')),
      file,
      version,
      cacheMigrations.length,
    )

    expect(snapshot(dir)).toEqual(before)
    expectNothingSetAside(dir)
  })

  it('is never set aside by the check of every page, damaged or not', async () => {
    const dir = temporaryDirectory()
    const file = path.join(dir, 'caches', 'c-1.db')
    const { db } = openCacheDatabase(file)
    db.exec('CREATE TABLE filler (text TEXT)')
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
       INSERT INTO filler SELECT hex(randomblob(400)) FROM n`,
    ).run()
    db.pragma('wal_checkpoint(TRUNCATE)')
    db.close()
    makeNewer(file, cacheMigrations)
    const pages = fs.statSync(file).size / 8192
    damagePage(file, pages - 1)
    const before = snapshot(dir)

    await expect(new ConnectionCaches(dir).verify('c-1')).rejects.toThrow(NewerSchemaError)

    expect(snapshot(dir)).toEqual(before)
    expectNothingSetAside(dir)
  })

  it('is recognised when its newer step is still in the WAL (a newer build still running)', () => {
    const dir = temporaryDirectory()
    const file = path.join(dir, 'caches', 'c-1.db')
    openCacheDatabase(file).db.close()
    const newer = new Database(file)
    newer.pragma('wal_autocheckpoint = 0')
    newer.pragma(`user_version = ${cacheMigrations.length + 1}`)
    // The shared-memory file is SQLite's index of the WAL, rewritten by every reader: not data.
    const data = () => {
      const { [path.join('caches', 'c-1.db-shm')]: _index, ...files } = snapshot(dir)
      return files
    }
    try {
      const before = data()
      expect(Object.keys(before)).toContain(path.join('caches', 'c-1.db-wal'))
      expect(fs.readFileSync(file).readInt32BE(60)).toBe(cacheMigrations.length)
      expect(storedSchemaVersion(file)).toBe(cacheMigrations.length + 1)
      expectNamed(
        refusal(() => openCacheDatabase(file)),
        file,
        cacheMigrations.length + 1,
        cacheMigrations.length,
      )
      expect(data()).toEqual(before)
    } finally {
      newer.close()
    }
  })

  it('leaves a genuinely damaged cache of this build to be set aside as before', () => {
    const dir = temporaryDirectory()
    const file = path.join(dir, 'caches', 'c-1.db')
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, crypto.randomBytes(8192))
    const { db, recovery } = openCacheDatabase(file)
    db.close()
    expect(recovery).toMatchObject({ reason: 'damaged' })
    expect(fs.existsSync(recovery!.movedTo)).toBe(true)
  })
})

describe('an outbox written by a newer Vault Desk', () => {
  const temporaryDirectory = useTemporaryDirectory()

  /** A real outbox holding queued items, then made newer. */
  function newerOutbox(dir: string): { file: string; version: number } {
    const file = path.join(dir, 'outbox.db')
    const db = openOutboxDatabase(file)
    const insert = db.prepare(
      `INSERT INTO items (connection_id, vault_id, operation, payload, record_kind, order_key,
         overlay, state, next_attempt_at, created_at, updated_at)
       VALUES ('c-1', 1, 'molecule.update', ?, 'molecules', ?, '{}', 'queued', 0, 0, 0)`,
    )
    for (let index = 0; index < 300; index++) insert.run('x'.repeat(200), String(index))
    db.close()
    return { file, version: makeNewer(file, outboxMigrations) }
  }

  it('is refused before anything opens it to write, by name and versions', () => {
    const dir = temporaryDirectory()
    const { file, version } = newerOutbox(dir)
    const before = snapshot(dir)

    for (const open of [() => openOutbox(file), () => openOutboxFile(file, new Date())]) {
      expectNamed(refusal(open), file, version, outboxMigrations.length)
    }

    expect(snapshot(dir)).toEqual(before)
    expectNothingSetAside(dir)
  })

  it('is never copied aside or rebuilt when its pages are damaged', () => {
    const dir = temporaryDirectory()
    const { file, version } = newerOutbox(dir)
    damagePage(file, leafPagesOfItems(file)[1]!)
    const before = snapshot(dir)

    expectNamed(
      refusal(() => checkOutboxPages(file, new Date())),
      file,
      version,
      outboxMigrations.length,
    )
    expectNamed(
      refusal(() => openOutbox(file)),
      file,
      version,
      outboxMigrations.length,
    )

    expect(snapshot(dir)).toEqual(before)
    expectNothingSetAside(dir)
  })
})

describe('an app database written by a newer Vault Desk', () => {
  const temporaryDirectory = useTemporaryDirectory()

  it('is refused by name and versions and left byte for byte as it was', () => {
    const dir = temporaryDirectory()
    const file = path.join(dir, 'app.db')
    openAppDatabase(file).close()
    const version = makeNewer(file, appMigrations)
    fs.chmodSync(file, 0o644)
    const before = snapshot(dir)

    expectNamed(
      refusal(() => openAppDatabase(file)),
      file,
      version,
      appMigrations.length,
    )

    expect(snapshot(dir)).toEqual(before)
    expect(fs.statSync(file).mode & 0o777).toBe(0o644)
  })
})

describe('vault-desk and a newer Vault Desk’s files', { timeout: 180_000 }, () => {
  const temporaryDirectory = useTemporaryDirectory()

  /** Runs the real executable on `dir`, headless against a server that is not there. */
  function vaultDesk(dir: string, args: string[]) {
    const headless = ['--base-url', 'http://127.0.0.1:9', '--token-env', 'VAULT_TOKEN']
    return spawnSync(process.execPath, [bin, ...args, '--data-dir', dir, ...headless], {
      encoding: 'utf8',
      env: { ...process.env, VAULT_TOKEN: 'token-1' },
    })
  }

  function expectRefusal(run: ReturnType<typeof vaultDesk>, file: string, version: number) {
    expect(run.stderr).toContain(file)
    expect(run.stderr).toContain(`schema ${version}`)
    expect(run.stderr).toMatch(/newer Vault Desk/)
    expect(run.status).toBe(6)
  }

  it('exits with code 6 on a newer cache, naming it and both versions, touching nothing', () => {
    const dir = temporaryDirectory()
    vaultDesk(dir, ['status'])
    const [name] = fs.readdirSync(path.join(dir, 'caches')).filter((n) => n.endsWith('.db'))
    const cache = path.join(dir, 'caches', name!)
    const version = makeNewer(cache, cacheMigrations)
    const before = snapshot(path.join(dir, 'caches'))

    for (const command of [['status'], ['sync']]) {
      const run = vaultDesk(dir, command)
      expectRefusal(run, cache, version)
      expect(run.stderr).toContain(`knows schema ${cacheMigrations.length}`)
    }
    expect(snapshot(path.join(dir, 'caches'))).toEqual(before)
    expectNothingSetAside(dir)
  })

  it('exits with code 6 on a newer outbox, naming it and both versions, touching nothing', () => {
    const dir = temporaryDirectory()
    const outbox = path.join(dir, 'outbox.db')
    openOutboxDatabase(outbox).close()
    const version = makeNewer(outbox, outboxMigrations)
    const before = snapshot(dir)

    const run = vaultDesk(dir, ['outbox', 'list'])

    expectRefusal(run, outbox, version)
    expect(run.stderr).toContain(`knows schema ${outboxMigrations.length}`)
    expect(snapshot(dir)['outbox.db']).toBe(before['outbox.db'])
    expectNothingSetAside(dir)
  })
})
