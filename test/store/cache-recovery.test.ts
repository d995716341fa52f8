import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { cacheFile } from '../../src-main/store/cache-files.ts'
import { ConnectionCaches } from '../../src-main/store/connection-caches.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { damagePages } from './fixtures/damaged-pages.ts'
import { moleculeRecords } from './fixtures/molecule-records.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const sha256 = (file: string) =>
  crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')

/** Queued work in its own database beside the caches, as the outbox keeps it. */
function writeOutbox(dataDir: string): string {
  const file = path.join(dataDir, 'outbox.db')
  const db = new Database(file)
  db.exec(
    "CREATE TABLE queued (id INTEGER PRIMARY KEY, operation TEXT); INSERT INTO queued (operation) VALUES ('upload plate.csv'), ('edit ELN 26')",
  )
  db.close()
  return file
}

function cacheWithMolecules(dataDir: string, connectionId: string): string {
  const caches = new ConnectionCaches(dataDir)
  const { cache } = caches.open(connectionId)
  cache.applyPage('molecules', 1, moleculeRecords(400), { cursor: 'page 1' })
  caches.closeAll()
  return cacheFile(dataDir, connectionId)
}

describe('a damaged cache is set aside and rebuilt, queued work untouched', () => {
  const temporaryDirectory = useTemporaryDirectory()

  it('finds damaged pages in the background check, moves the file aside, starts afresh, leaves outbox.db alone', async () => {
    const dataDir = temporaryDirectory()
    const file = cacheWithMolecules(dataDir, 'conn-1')
    const outbox = writeOutbox(dataDir)
    const outboxHash = sha256(outbox)
    const otherCache = cacheWithMolecules(dataDir, 'conn-2')
    const otherHash = sha256(otherCache)
    damagePages(file)

    const caches = new ConnectionCaches(dataDir)
    expect(caches.open('conn-1').recovery).toBeNull() // its first page is intact
    const recovery = await caches.verify('conn-1')
    const { cache } = caches.open('conn-1')

    expect(recovery).toMatchObject({ reason: 'damaged' })
    expect(recovery!.details).not.toBe('')
    expect(path.dirname(recovery!.movedTo)).toBe(path.dirname(file))
    expect(path.basename(recovery!.movedTo)).toMatch(/^conn-1\.damaged-[0-9TZ-]+\.db$/)
    expect(fs.existsSync(recovery!.movedTo)).toBe(true)
    // A fresh cache: nothing cached, no cursor, so sync pulls everything again.
    expect(cache.counts()).toEqual({})
    expect(cache.cursor('molecules', 1)).toBeNull()
    cache.applyPage('molecules', 1, moleculeRecords(2))
    expect(cache.list('molecules', 1).total).toBe(2)
    caches.closeAll()

    expect(sha256(outbox)).toBe(outboxHash)
    expect(sha256(otherCache)).toBe(otherHash)
    const reopened = new Database(outbox, { readonly: true })
    expect(reopened.prepare('SELECT operation FROM queued ORDER BY id').pluck().all()).toEqual([
      'upload plate.csv',
      'edit ELN 26',
    ])
    reopened.close()
  })

  it('treats a file that is not a database at all as damaged', () => {
    const dataDir = temporaryDirectory()
    const file = cacheWithMolecules(dataDir, 'conn-3')
    fs.writeFileSync(file, 'this is not SQLite '.repeat(500))
    const { cache, recovery } = VaultCache.open(file)
    expect(recovery).toMatchObject({ reason: 'damaged' })
    expect(fs.readFileSync(recovery!.movedTo, 'utf8')).toMatch(/^this is not SQLite/)
    expect(cache.counts()).toEqual({})
    cache.close()
  })

  it('opens and verifies a sound cache as it is, while it is in use', async () => {
    const dataDir = temporaryDirectory()
    const file = cacheWithMolecules(dataDir, 'conn-4')
    const caches = new ConnectionCaches(dataDir)
    const { cache, recovery } = caches.open('conn-4')
    expect(recovery).toBeNull()
    const verification = caches.verify('conn-4')
    cache.applyPage('molecules', 1, moleculeRecords(5, 1000))
    expect(await verification).toBeNull()
    expect(caches.open('conn-4').cache).toBe(cache)
    expect(cache.list('molecules', 1).total).toBe(405)
    expect(cache.cursor('molecules', 1)).toBe('page 1')
    expect(fs.readdirSync(path.dirname(file)).filter((name) => name.includes('damaged'))).toEqual(
      [],
    )
    await caches.closeAll()
  })

  it('does not set aside what it cannot open for other reasons (here a folder in its place)', () => {
    const dataDir = temporaryDirectory()
    const file = cacheFile(dataDir, 'conn-5')
    fs.mkdirSync(file, { recursive: true })
    expect(() => VaultCache.open(file)).toThrow(/Cannot (check|open) the cache/)
    expect(fs.statSync(file).isDirectory()).toBe(true)
    expect(
      fs.readdirSync(dataDir, { recursive: true }).some((name) => String(name).includes('damaged')),
    ).toBe(false)
  })
})
