import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { PageDraft, recordsPerPart } from '../../src-main/store/page-draft.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { walKeptBytes } from '../../src-main/store/wal-checkpoints.ts'
import { WriteBatch } from '../../src-main/store/write-batch.ts'
import { collected } from '../support/garbage.ts'
import { moleculeRecords } from './fixtures/molecule-records.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

describe('the cache writer: sync commits pages in a worker thread', () => {
  const temporaryDirectory = useTemporaryDirectory()
  let cache: VaultCache | undefined
  afterEach(() => cache?.close())

  let cacheFile = ''
  function openCache(): VaultCache {
    cacheFile = path.join(temporaryDirectory(), 'cache.db')
    cache = VaultCache.open(cacheFile).cache
    return cache
  }

  it('commits rows, search documents and cursor together; the main connection reads them', async () => {
    const store = openCache()
    const applied = await store.writer.applyPage('molecules', 1, moleculeRecords(3), {
      cursor: { offset: 3 },
    })
    expect(applied).toEqual({ kind: 'molecules', vaultId: 1, stored: 3, rejected: [] })
    expect(store.cursor('molecules', 1)).toEqual({ offset: 3 })
    expect(store.get('molecules', 1, 2)).toEqual(moleculeRecords(1, 2)[0])
    expect(store.counts()[1]).toEqual({ molecules: 3, batches: 2 + 3 + 1 })
    expect(store.search('VD-0000003').hits.map((hit) => hit.id)).toEqual([3])
    expect(store.list('molecules', 1, { projectId: 3 }).total).toBe(1)
  })

  it('answers each write of a batch in order, and commits none of them when one fails', async () => {
    const store = openCache()
    const results = await store.writer.commit(
      new WriteBatch()
        .applyPage('projects', 1, [{ id: 1, name: 'P' }, { id: 2 }])
        .retainOnly('projects', 1, [2])
        .saveCursor('projects', 1, { since: null })
        .recordSync(1, '2024-06-01T00:00:00.000Z'),
    )
    expect(results).toEqual([
      { kind: 'projects', vaultId: 1, stored: 2, rejected: [] },
      1,
      null,
      null,
    ])
    expect(store.lastSyncs()).toEqual([{ vaultId: 1, lastSyncAt: '2024-06-01T00:00:00.000Z' }])
    await expect(store.writer.commit(new WriteBatch())).resolves.toEqual([])

    const failing = store.writer.commit(
      new WriteBatch()
        .applyPage('molecules', 1, moleculeRecords(2), { cursor: 'page 1' })
        .retainOnly('molecules', 1, [1, 'two']),
    )
    await expect(failing).rejects.toMatchObject({
      code: 'validation',
      message: expect.stringMatching(/entry 1 of the id list/),
    })
    expect(store.counts()[1]?.molecules).toBeUndefined()
    expect(store.cursor('molecules', 1)).toBeNull()
  })

  it('sends a large page in parts that commit as one page', async () => {
    const store = openCache()
    const records: unknown[] = moleculeRecords(150)
    records[100] = 'junk'
    const [again] = moleculeRecords(1, 5)
    const batches = again!.batches as unknown[]
    records[140] = { ...again!, name: 'Renamed', batches: batches.slice(0, 1) }
    const applied = await store.writer.applyPage('molecules', 1, records, { cursor: 'page 1' })
    expect(applied).toMatchObject({ stored: 149, rejected: [{ index: 100 }] })
    expect(store.cursor('molecules', 1)).toBe('page 1')
    expect(store.counts()[1]?.molecules).toBe(148)
    expect(store.get('molecules', 1, 5)?.name).toBe('Renamed')
    const ofFive = store.list('batches', 1, { filters: { molecule_id: 5 } }).records
    expect(ofFive).toEqual(batches.slice(0, 1))
  })

  it('stores the text the server sent for a record as it is, in every part of a page', async () => {
    const store = openCache()
    const records = moleculeRecords(150)
    // Pretty-printed, so that a text stored as given differs from a record serialized again.
    const texts = records.map((record, index) =>
      index % 2 === 0 ? JSON.stringify(record, null, 1) : undefined,
    )
    await store.writer.applyPage('molecules', 1, records, { texts })
    const db = new Database(cacheFile)
    const stored = db.prepare<[], string>('SELECT json FROM molecules ORDER BY id').pluck().all()
    db.close()
    expect(stored).toEqual(records.map((record, index) => texts[index] ?? JSON.stringify(record)))
    // A batch is read from its molecule's text.
    const [first] = records
    expect(store.list('batches', 1, { filters: { molecule_id: 1 } }).records).toEqual(
      first!.batches,
    )
    expect(() =>
      store.writer.applyPage('molecules', 1, records, { texts: texts.slice(1) }),
    ).toThrow('A page of molecules has 150 records but 149 texts.')
  })

  it('stores records as sent and names those it cannot read', async () => {
    const store = openCache()
    const [good] = moleculeRecords(1)
    const withBigInt = { id: 9, size: 10n }
    const applied = await store.writer.applyPage('molecules', 1, [good, 'junk', withBigInt])
    expect(applied.stored).toBe(1)
    expect(applied.rejected.map((rejected) => rejected.index)).toEqual([1, 2])
    expect(store.get('molecules', 1, 1)).toEqual(good)
  })

  it("lets go of a page's records once sent, while the page waits for its turn to commit", async () => {
    const store = openCache()
    await store.writer.applyPage('molecules', 1, moleculeRecords(1))
    // Another connection holds the write lock: the worker waits for it with the page in hand.
    const other = new Database(cacheFile)
    other.exec('BEGIN IMMEDIATE')
    const refs: WeakRef<object>[] = []
    const committed = store.writer.applyPage(
      'molecules',
      1,
      moleculeRecords(300).map((record) => (refs.push(new WeakRef(record)), record)),
      { cursor: { offset: 300 } },
    )
    let collectedWhileWaiting: boolean
    try {
      collectedWhileWaiting = await collected(refs)
    } finally {
      other.exec('COMMIT')
      other.close()
    }
    await expect(committed).resolves.toMatchObject({ stored: 300 })
    expect(collectedWhileWaiting).toBe(true)
    expect(store.cursor('molecules', 1)).toEqual({ offset: 300 })
  })

  it('lets the main thread write single records while it commits pages', async () => {
    const store = openCache()
    await store.writer.applyPage('molecules', 1, moleculeRecords(10))
    const pages = Array.from({ length: 5 }, (_, page) => moleculeRecords(200, 11 + page * 200))
    let done = false
    const committing = Promise.all(
      pages.map((page) => store.writer.applyPage('molecules', 1, page)),
    ).finally(() => (done = true))
    let written = 0
    while (!done) {
      store.applyPage('projects', 1, [{ id: ++written, name: 'Written by the outbox' }])
      // Paced as the outbox writes: SQLite's busy handler polls for the lock rather than queueing,
      // so a writer that only yields between writes held it at most polls (87% of the time,
      // measured) and starved the worker past its busy timeout on a loaded machine.
      await delay(1)
    }
    await committing
    expect(store.counts()[1]).toMatchObject({ molecules: 1010, projects: written })
    expect(written).toBeGreaterThan(1)
  })

  it('writes a batch given while the one it follows commits only if that one committed', async () => {
    const store = openCache()
    const first = store.writer.applyPage('molecules', 1, moleculeRecords(2), { cursor: 'page 1' })
    const second = store.writer.applyPage(
      'molecules',
      1,
      moleculeRecords(2, 3),
      { cursor: 'page 2' },
      { after: first },
    )
    await expect(second).resolves.toMatchObject({ stored: 2 })
    expect(store.cursor('molecules', 1)).toBe('page 2')

    // The third fails in the worker; the fourth, handed over meanwhile, is not written.
    const third = store.writer.commit(
      new WriteBatch()
        .applyPage('molecules', 1, moleculeRecords(2, 5), { cursor: 'page 3' })
        .retainOnly('molecules', 1, ['x']),
      { after: second },
    )
    const fourth = store.writer.applyPage(
      'molecules',
      1,
      moleculeRecords(2, 7),
      { cursor: 'page 4' },
      { after: third },
    )
    const unrelated = store.writer.applyPage('projects', 1, [{ id: 1, name: 'P' }])
    await expect(third).rejects.toMatchObject({ code: 'validation' })
    await expect(fourth).rejects.toMatchObject({ code: 'cancelled' })
    await expect(unrelated).resolves.toMatchObject({ stored: 1 })
    expect(store.cursor('molecules', 1)).toBe('page 2')
    expect(store.counts()[1]).toMatchObject({ molecules: 4, projects: 1 })
    // Following a batch that already failed fails at once.
    await expect(
      store.writer.applyPage('molecules', 1, moleculeRecords(1, 9), {}, { after: fourth }),
    ).rejects.toMatchObject({ code: 'cancelled' })
  })

  it('merges the search index into one segment once it is idle, and search still finds all', async () => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    const store = (cache = VaultCache.open(file).cache)
    for (let page = 0; page < 250; page++) {
      await store.writer.applyPage('molecules', 1, moleculeRecords(2, 1 + page * 2))
    }
    const raw = new Database(file, { readonly: true })
    // A segment per committed page, less what FTS5 merges level by level on its own.
    const segments = () =>
      raw.prepare('SELECT count(DISTINCT segid) FROM search_index_idx').pluck().get() as number
    try {
      await vi.waitFor(() => expect(segments()).toBe(1), { timeout: 20_000, interval: 100 })
    } finally {
      raw.close()
    }
    expect(store.search('VD-0000499').hits.map((hit) => hit.id)).toEqual([499])
    expect(store.list('molecules', 1, { text: 'VD-00003' }).total).toBe(100)
  })

  it('leaves checkpoints to its idle time, and the main thread never checkpoints', async () => {
    const store = openCache()
    await store.writer.applyPage('molecules', 1, moleculeRecords(1))
    const fileSize = () => fs.statSync(cacheFile).size
    const walSize = () => fs.statSync(`${cacheFile}-wal`).size
    const sizeBefore = fileSize()
    // Well past SQLite's usual checkpoint every 1000 pages (8 MB here).
    for (let page = 0; page < 12; page++) {
      await store.writer.applyPage('molecules', 1, moleculeRecords(1000, 2 + page * 1000))
    }
    store.applyPage('projects', 1, [{ id: 1, name: 'Written by the outbox' }])
    expect(walSize()).toBeGreaterThan(2 * walKeptBytes)
    expect(fileSize()).toBe(sizeBefore)

    await vi.waitFor(() => expect(fileSize()).toBeGreaterThan(sizeBefore + walKeptBytes), {
      timeout: 15_000,
      interval: 100,
    })
    const copy = new Database(cacheFile, { readonly: true })
    try {
      const molecules = copy.prepare('SELECT count(*) FROM molecules').pluck().get()
      expect(molecules).toBe(12_001)
    } finally {
      copy.close()
    }
    // The WAL starts over at the next commit, and its file gives back what it grew by.
    await store.writer.applyPage('molecules', 1, moleculeRecords(1, 20_000))
    expect(walSize()).toBeLessThanOrEqual(walKeptBytes)
    expect(store.counts()[1]).toMatchObject({ molecules: 12_002, projects: 1 })
  }, 30_000)

  it('checkpoints what the main thread wrote once it has grown the WAL, then stops again', async () => {
    const store = openCache()
    const fileSize = () => fs.statSync(cacheFile).size
    const sizeBefore = fileSize()
    for (let page = 0; page < 12; page++) {
      store.applyPage('molecules', 1, moleculeRecords(1000, 1 + page * 1000))
    }
    expect(fileSize()).toBe(sizeBefore)
    expect(store.writer.running).toBe(false)
    await vi.waitFor(() => expect(fileSize()).toBeGreaterThan(sizeBefore + walKeptBytes), {
      timeout: 15_000,
      interval: 100,
    })
    await vi.waitFor(() => expect(store.writer.running).toBe(false), {
      timeout: 25_000,
      interval: 200,
    })
    expect(store.counts()[1]?.molecules).toBe(12_000)
  }, 45_000)

  it('opens a cache whose writer was killed midway without checkpointing on the main thread', async () => {
    cacheFile = path.join(temporaryDirectory(), 'cache.db')
    const child = spawn(
      process.execPath,
      [path.join(import.meta.dirname, 'write-then-crash-child.ts'), cacheFile, '12'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    let said = ''
    child.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()))
    await new Promise((resolve) => child.once('exit', resolve))
    expect(said).toBe('committed\n')
    const fileSize = () => fs.statSync(cacheFile).size
    const sizeBefore = fileSize()
    expect(fs.statSync(`${cacheFile}-wal`).size).toBeGreaterThan(2 * walKeptBytes)

    const store = (cache = VaultCache.open(cacheFile).cache)
    expect(fileSize()).toBe(sizeBefore)
    expect(store.counts()[1]?.molecules).toBe(12_000)
    // The writer's worker checkpoints it instead, once the main thread has seen the WAL.
    await vi.waitFor(() => expect(fileSize()).toBeGreaterThan(sizeBefore + walKeptBytes), {
      timeout: 15_000,
      interval: 100,
    })
  }, 45_000)

  it('starts its worker ahead of the batches about to come', async () => {
    const store = openCache()
    expect(store.writer.running).toBe(false)
    store.writer.warmUp()
    expect(store.writer.running).toBe(true)
    await store.writer.applyPage('molecules', 1, moleculeRecords(2))
    expect(store.counts()[1]?.molecules).toBe(2)
  })

  it('stops its worker a while after it settled, and starts it again for the next batch', async () => {
    const store = openCache()
    await store.writer.applyPage('molecules', 1, moleculeRecords(2))
    // Pages whose parts went ahead keep it running only until they are committed or discarded.
    const ahead = () => {
      const draft = new PageDraft('molecules', 1, {}, store.writer.partSink())
      for (const record of moleculeRecords(recordsPerPart + 1, 100)) draft.add(record)
      return draft
    }
    ahead().discard()
    await store.writer.applyDraft(ahead())
    expect(store.writer.running).toBe(true)
    await vi.waitFor(() => expect(store.writer.running).toBe(false), {
      timeout: 25_000,
      interval: 200,
    })
    await store.writer.applyPage('molecules', 1, moleculeRecords(2, 3))
    expect(store.counts()[1]?.molecules).toBe(recordsPerPart + 1 + 4)
  }, 30_000)

  it('fails what is waiting when the cache closes, and refuses writes after', async () => {
    const store = openCache()
    const waiting = store.writer.applyPage('molecules', 1, moleculeRecords(500))
    store.close()
    cache = undefined
    await expect(waiting).rejects.toMatchObject({ code: 'cancelled' })
    await expect(store.writer.applyPage('molecules', 1, [])).rejects.toMatchObject({
      code: 'cancelled',
    })
  })
})
