import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { EventBus } from '../../src-main/shared/events.ts'
import { silentLogger, type Logger } from '../../src-main/shared/logger.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { AttachmentFolder } from '../../src-main/sync/outbox/attachment-folder.ts'
import { ImportFollower } from '../../src-main/sync/outbox/import-follower.ts'
import { Outbox } from '../../src-main/sync/outbox/outbox.ts'
import type { OutboxConnection } from '../../src-main/sync/outbox/outbox-connection.ts'
import { openOutboxDatabase } from '../../src-main/sync/outbox/outbox-database.ts'
import { OutboxSender } from '../../src-main/sync/outbox/outbox-sender.ts'
import { OutboxStore } from '../../src-main/sync/outbox/outbox-store.ts'
import { SenderLease } from '../../src-main/sync/outbox/sender-lease.ts'
import { connectionId, useOutboxHarness, waitUntil } from './support/outbox-harness.ts'

/**
 * The outbox's own database refuses to save while the sender works: a read-only data folder
 * (SQLite's query_only, which refuses every write with SQLITE_READONLY as a read-only file does)
 * or a full disk (a real SQLITE_FULL: the write that marks an item as sending must grow a
 * database held at its size). The sender runs on its own connection to the outbox file, which
 * the test holds to inject the fault.
 */

const harness = useOutboxHarness()
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

interface SenderUnderTest {
  sender: OutboxSender
  store: OutboxStore
  db: Database.Database
  /** What `onStorage` was told, in order: a problem's message, or null (saving again). */
  told: (string | null)[]
  /** Messages the sender logged as errors. */
  errors: string[]
}

/** Collections queued through a real outbox (not started), in a fresh data folder. */
async function queuedCollections(names: readonly string[]): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-storage-'))
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }))
  const { outbox } = harness.open({ dataDir })
  for (const name of names) {
    await outbox.queue({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'collection.create',
      payload: { name },
    })
  }
  await outbox.close()
  return dataDir
}

function senderOver(dataDir: string, options: { leaseRenewalMs?: number } = {}): SenderUnderTest {
  const db = openOutboxDatabase(path.join(dataDir, 'outbox.db'))
  const store = new OutboxStore(db)
  const { cache } = VaultCache.open(path.join(dataDir, 'caches', `${connectionId}-own.db`))
  const connection: OutboxConnection = { client: harness.client(), cache }
  const told: (string | null)[] = []
  const errors: string[] = []
  const log: Logger = {
    ...silentLogger,
    error: (message) => errors.push(message),
    child: () => log,
  }
  const follower = new ImportFollower({
    store,
    connection: () => connection,
    log,
    onItems() {},
    onRecords() {},
  })
  const sender = new OutboxSender({
    store,
    lease: new SenderLease(store),
    attachments: new AttachmentFolder(path.join(dataDir, 'outbox', 'attachments')),
    follower,
    connection: () => connection,
    log,
    onItems() {},
    onProgress() {},
    onRecords() {},
    onTokenRefused() {},
    onStorage: (problem) => told.push(problem?.message ?? null),
    retry: { baseDelayMs: 5, maxDelayMs: 40 },
    storageRetry: { baseDelayMs: 20, maxDelayMs: 160 },
    pollMs: 50,
    ...options,
  })
  cleanups.push(async () => {
    await sender.stop()
    await store.close()
    db.close()
    await cache.close()
  })
  return { sender, store, db, told, errors }
}

/**
 * From now on, marking an item as sending needs more room than the database may take: SQLite
 * answers SQLITE_FULL, as on a full disk. Returns the way to free the disk again.
 */
function fillDiskOnSending(db: Database.Database, also: 'sender_lease' | null = null): () => void {
  db.exec(`
    CREATE TEMP TABLE ballast (b BLOB);
    CREATE TEMP TRIGGER full_on_sending BEFORE UPDATE OF state ON main.items
      WHEN NEW.state = 'sending' BEGIN INSERT INTO temp.ballast VALUES (zeroblob(65536)); END;
  `)
  if (also) {
    db.exec(`CREATE TEMP TRIGGER full_on_lease BEFORE UPDATE ON main.${also}
      BEGIN INSERT INTO temp.ballast VALUES (zeroblob(65536)); END;`)
  }
  db.pragma(`temp.max_page_count = ${db.pragma('temp.page_count', { simple: true }) as number}`)
  return () => {
    db.exec('DROP TRIGGER temp.full_on_sending; DROP TRIGGER IF EXISTS temp.full_on_lease')
  }
}

/** Resolves after `ms` on a timer: never, while microtasks starve the event loop. */
const timerFires = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const collectionsOnServer = (names: readonly string[]) =>
  (
    harness.sim.core.db
      .prepare(
        `SELECT name FROM collections WHERE name IN (SELECT value FROM json_each(?)) ORDER BY name`,
      )
      .all(JSON.stringify(names)) as { name: string }[]
  ).map((row) => row.name)

describe('an outbox that cannot save', () => {
  it('waits, growing its wait, while the disk is full, tells once, loses nothing, and sends after', async () => {
    const names = ['Full disk A', 'Full disk B', 'Full disk C']
    const dataDir = await queuedCollections(names)
    const { sender, store, db, told, errors } = senderOver(dataDir)
    const freeDisk = fillDiskOnSending(db)

    sender.start()
    await waitUntil('the outbox says it cannot save', () => told.length > 0)
    // Timers keep firing: the event loop is not held by a loop of attempts.
    let ticks = 0
    const ticker = setInterval(() => ticks++, 5)
    await timerFires(400)
    clearInterval(ticker)
    expect(ticks).toBeGreaterThan(0)

    expect(told).toHaveLength(1)
    expect(told[0]).toMatch(/cannot save changes to .*outbox\.db: the disk is full/)
    expect(sender.unwritable?.code).toBe('storage')
    // Each try is one attempt that fails to save; they come after a growing wait, not at once
    // (a loop of them made 200,000 in 5.7 s).
    expect(errors.filter((message) => /cannot save/.test(message))).toHaveLength(1)
    expect(store.list().map((item) => [item.state, item.attempts])).toEqual(
      names.map(() => ['queued', 0]),
    )
    expect(collectionsOnServer(names)).toEqual([])

    freeDisk()
    await waitUntil('everything is sent', () => store.list().every((item) => item.state === 'sent'))
    expect(told.at(-1)).toBeNull()
    expect(sender.unwritable).toBeNull()
    expect(collectionsOnServer(names)).toEqual(names)
  })

  it('keeps renewing its lease through a full disk without an uncaught error', async () => {
    const names = ['Renewal through a full disk']
    const dataDir = await queuedCollections(names)
    const { sender, store, db, told } = senderOver(dataDir, { leaseRenewalMs: 10 })
    sender.start()
    await waitUntil('the item is sent', () => store.list()[0]?.state === 'sent')
    const freeDisk = fillDiskOnSending(db, 'sender_lease')
    // Renewals fail many times over: each is handled (an uncaught one fails the test run).
    await timerFires(200)
    expect(told).toHaveLength(1)
    expect(told[0]).toMatch(/the disk is full/)
    expect(sender.sending).toBe(true)
    freeDisk()
    await waitUntil('the outbox saves again', () => told.at(-1) === null)
  })

  it('waits while the data folder is read-only, and a pass over it ends with the reason', async () => {
    const names = ['Read-only A', 'Read-only B']
    const dataDir = await queuedCollections(names)
    const { sender, store, db, told } = senderOver(dataDir)
    db.pragma('query_only = ON')

    expect(sender.start()).toBe(false)
    expect(sender.unwritable?.message).toMatch(/read-only/)
    // A pass waiting for the sender (`vault-desk outbox send`) ends at once rather than hang.
    await sender.idle()
    await timerFires(200)
    expect(told).toHaveLength(1)
    expect(store.list().map((item) => item.state)).toEqual(['queued', 'queued'])

    db.pragma('query_only = OFF')
    await waitUntil('everything is sent', () => store.list().every((item) => item.state === 'sent'))
    expect(collectionsOnServer(names)).toEqual(names)
  })

  it('refuses a change the person makes with the reason, as a storage error', async () => {
    const dataDir = await queuedCollections(['Refused while full'])
    const bus = new EventBus()
    const outbox = new Outbox({
      dataDir,
      connection: () => {
        throw new Error('not needed')
      },
      connectionName: () => 'Lab vault',
      events: bus,
      log: silentLogger,
    })
    cleanups.push(() => outbox.close())
    // A second connection holds the write lock, as another program would: the outbox gives up
    // after its busy timeout (5 s) with SQLITE_BUSY.
    const other = openOutboxDatabase(path.join(dataDir, 'outbox.db'))
    cleanups.push(() => {
      other.close()
    })
    other.exec('BEGIN IMMEDIATE')
    const [item] = outbox.list()
    expect(outbox.start()).toBe(false)
    expect(outbox.unwritable?.message).toMatch(/another program holds the outbox/)
    let refusal: unknown
    try {
      await outbox.discard(item!.id)
    } catch (error) {
      refusal = error
    }
    expect(refusal).toMatchObject({
      code: 'storage',
      message: expect.stringMatching(/another program holds the outbox.*Nothing queued is lost/),
    })
    other.exec('ROLLBACK')
    expect(outbox.list().map(({ state }) => state)).toEqual(['queued'])
  }, 30_000)
})
