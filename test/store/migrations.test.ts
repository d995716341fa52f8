import path from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { appMigrations, openAppDatabase } from '../../src-main/store/app-database.ts'
import { cacheMigrations } from '../../src-main/store/cache-migrations.ts'
import { migrate, type Migration } from '../../src-main/store/migrations.ts'
import { recordKinds } from '../../src-main/store/record-kinds.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { moleculeRecords } from './fixtures/molecule-records.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const tables = (db: Database.Database) =>
  db
    .prepare("SELECT name FROM sqlite_schema WHERE type IN ('table', 'view')")
    .pluck()
    .all() as string[]

describe('cache schema migrations', () => {
  const temporaryDirectory = useTemporaryDirectory()

  it('creates a table for every record kind, the search index and the sync state', () => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    VaultCache.open(file).cache.close()
    const db = new Database(file, { readonly: true })
    expect(db.pragma('user_version', { simple: true })).toBe(cacheMigrations.length)
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    const names = tables(db)
    for (const kind of recordKinds.values()) expect(names, kind.table).toContain(kind.table)
    expect(names).toEqual(
      expect.arrayContaining(['search_index', 'record_projects', 'sync_cursors', 'vault_syncs']),
    )
    db.close()
  })

  it('upgrades a cache written by an earlier schema in place, keeping its rows and cursors', () => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    const { cache } = VaultCache.open(file)
    cache.applyPage('molecules', 1, moleculeRecords(5), { cursor: 'before upgrade' })
    cache.close()

    // A later step appended to the list (as the structure index will be) runs once, on open.
    const db = new Database(file)
    const nextStep: Migration = (database) =>
      database.exec('CREATE TABLE structure_probe (molecule_row INTEGER PRIMARY KEY, bits BLOB)')
    migrate(db, [...cacheMigrations, nextStep], 'the cache')
    migrate(db, [...cacheMigrations, nextStep], 'the cache')
    expect(db.pragma('user_version', { simple: true })).toBe(cacheMigrations.length + 1)
    expect(tables(db)).toContain('structure_probe')
    expect(db.prepare('SELECT count(*) FROM molecules').pluck().get()).toBe(5)
    expect(db.prepare('SELECT cursor FROM sync_cursors').pluck().get()).toBe('"before upgrade"')
    db.close()
  })

  it('leaves merging search segments to crisis merges, in a fresh cache and an upgraded one', () => {
    const automerge = (file: string) => {
      const db = new Database(file, { readonly: true })
      try {
        return db.prepare("SELECT v FROM search_index_config WHERE k = 'automerge'").pluck().get()
      } finally {
        db.close()
      }
    }
    const fresh = path.join(temporaryDirectory(), 'fresh.db')
    VaultCache.open(fresh).cache.close()
    expect(automerge(fresh)).toBe(0)

    const earlier = path.join(temporaryDirectory(), 'earlier.db')
    const db = new Database(earlier)
    migrate(db, cacheMigrations.slice(0, 4), 'the cache')
    db.close()
    expect(automerge(earlier)).toBeUndefined()
    const { cache } = VaultCache.open(earlier)
    cache.applyPage('molecules', 1, moleculeRecords(3))
    expect(cache.search('VD-0000002').hits.map((hit) => hit.id)).toEqual([2])
    cache.close()
    expect(automerge(earlier)).toBe(0)
  })

  it('notes, in an upgraded cache too, only molecules rewritten with other content under their stamp', () => {
    const earlier = path.join(temporaryDirectory(), 'earlier.db')
    const db = new Database(earlier)
    migrate(db, cacheMigrations.slice(0, 5), 'the cache')
    db.close()
    const { cache } = VaultCache.open(earlier)
    const [first, second, third, fourth] = moleculeRecords(4)
    cache.applyPage('molecules', 1, [first, second, third, fourth])
    cache.applyPage('molecules', 1, [
      first,
      { ...second, smiles: 'CCN' },
      { ...third, smiles: 'CCS', modified_at: '2030-01-01T00:00:00Z' },
      { ...fourth, modified_at: '2030-01-01T00:00:00Z' },
    ])
    cache.close()
    const upgraded = new Database(earlier, { readonly: true })
    const noted = upgraded
      .prepare('SELECT vault_id, molecule_id FROM structure_unstamped_changes')
      .all()
    upgraded.close()
    expect(noted).toEqual([{ vault_id: 1, molecule_id: second!.id }])
  })

  it('empties a cache of the first layout, which the next sync then pulls again', () => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    const old = new Database(file)
    old.exec(`
      CREATE TABLE molecules (row_id INTEGER PRIMARY KEY, vault_id INTEGER, id INTEGER, json TEXT);
      INSERT INTO molecules (vault_id, id, json) VALUES (1, 1, '{"id":1}');
      CREATE TABLE sync_cursors (vault_id INTEGER, kind TEXT, scope TEXT, cursor TEXT, saved_at TEXT);
      INSERT INTO sync_cursors VALUES (1, 'molecules', '', '{}', '2024-01-01');
      PRAGMA user_version = 1;
    `)
    old.close()

    const { cache, recovery } = VaultCache.open(file)
    expect(recovery).toBeNull()
    expect(cache.counts()).toEqual({})
    expect(cache.cursor('molecules', 1)).toBeNull()
    cache.applyPage('molecules', 1, moleculeRecords(2))
    expect(cache.list('molecules', 1, { sort: 'log_p' }).total).toBe(2)
    cache.close()
  })
})

describe('app database migrations', () => {
  const temporaryDirectory = useTemporaryDirectory()

  it('creates connections with the storage of their token (never the token) on a fresh file', () => {
    const db = openAppDatabase(path.join(temporaryDirectory(), 'app.db'))
    expect(db.pragma('user_version', { simple: true })).toBe(appMigrations.length)
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('connections')
    expect(columns).toEqual(['id', 'name', 'base_url', 'created_at', 'token_storage'])
    db.close()
  })

  it('upgrades a database of the first step, keeping its connections', () => {
    const file = path.join(temporaryDirectory(), 'app.db')
    const old = new Database(file)
    migrate(old, appMigrations.slice(0, 1), 'the app database')
    old
      .prepare('INSERT INTO connections (id, name, base_url, created_at) VALUES (?, ?, ?, ?)')
      .run('c-1', 'Production', 'https://vault.example/api/v1', '2024-01-01T00:00:00.000Z')
    old.close()

    const db = openAppDatabase(file)
    expect(db.prepare('SELECT id, name, token_storage FROM connections').all()).toEqual([
      { id: 'c-1', name: 'Production', token_storage: 'keychain' },
    ])
    expect(() =>
      db
        .prepare('INSERT INTO connections (id, name, base_url, created_at) VALUES (?, ?, ?, ?)')
        .run('c-2', 'PRODUCTION', 'https://other.example/api/v1', '2024-01-02T00:00:00.000Z'),
    ).toThrow(/UNIQUE/)
    db.close()
  })

  it('refuses a database written by a newer Vault Desk rather than damaging it', () => {
    const file = path.join(temporaryDirectory(), 'app.db')
    openAppDatabase(file).close()
    const db = new Database(file)
    db.pragma('user_version = 99')
    db.close()
    expect(() => openAppDatabase(file)).toThrow(/newer Vault Desk/)
  })
})
