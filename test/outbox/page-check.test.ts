import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { createDispatcher } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import { createServices, type Services } from '../../src-main/services/index.ts'
import type { AppNotice } from '../../src-main/shared/app-notices.ts'
import { silentLogger, type Logger } from '../../src-main/shared/logger.ts'
import type { Outbox } from '../../src-main/sync/outbox/outbox.ts'
import { checkOutboxPagesInWorker } from '../../src-main/sync/outbox/outbox-page-check.ts'
import { collectionNames, writeDamagedOutbox } from './support/damaged-outbox.ts'
import { connectionId, settled, useOutboxHarness, waitUntil } from './support/outbox-harness.ts'

/**
 * The check of every page of the outbox at a start runs in a worker thread in the app: the
 * outbox opens at once, reads answer meanwhile, writes wait for `ready()`; a damaged file is
 * rebuilt in the worker and the outbox goes on over the rebuilt one, with what was queued
 * meanwhile. Real files damaged as a disk would damage them, a real worker, the simulator over
 * HTTP.
 */

const harness = useOutboxHarness()
const dataDirs: string[] = []
const services: Services[] = []
afterEach(async () => {
  for (const opened of services.splice(0)) await opened.close()
  for (const dir of dataDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-page-check-'))
  dataDirs.push(dir)
  return dir
}

const sha256 = (file: string) =>
  crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')

/**
 * Whether `ready()` had settled when the event loop next ran a timer: a check made on this
 * thread before the constructor returned has, one in a worker (tens of milliseconds to start)
 * has not.
 */
function readyBeforeATimer(outbox: Outbox): Promise<boolean> {
  let settledYet = false
  outbox.ready().then(
    () => (settledYet = true),
    () => (settledYet = true),
  )
  return new Promise((resolve) => setTimeout(() => resolve(settledYet), 0))
}

/** The payload names in the items table of an outbox file, read apart from any outbox. */
function namesIn(file: string): string[] {
  const db = new Database(file, { readonly: true })
  try {
    return db
      .prepare("SELECT payload ->> '$.name' FROM items ORDER BY id")
      .pluck()
      .all() as string[]
  } finally {
    db.close()
  }
}

/** An item's state in an outbox file, read apart from any outbox. */
function stateIn(file: string, id: number): string {
  const db = new Database(file, { readonly: true })
  try {
    return db.prepare('SELECT state FROM items WHERE id = ?').pluck().get(id) as string
  } finally {
    db.close()
  }
}

function soundFile(file: string): boolean {
  const db = new Database(file, { readonly: true })
  try {
    return db.pragma('quick_check', { simple: true }) === 'ok'
  } finally {
    db.close()
  }
}

const target = () => ({ connectionId, vaultId: harness.vaultId })

/** Outbox options that check in the worker, with a log whose warnings and errors are kept. */
function inWorker(): { tuning: { pageCheck: 'worker'; log: Logger }; logged: string[] } {
  const logged: string[] = []
  const log: Logger = {
    ...silentLogger,
    warn: (message) => logged.push(message),
    error: (message) => logged.push(message),
    child: () => log,
  }
  return { tuning: { pageCheck: 'worker', log }, logged }
}

describe('the outbox page check in a worker', () => {
  it('opens a damaged outbox at once, rebuilds it aside, and keeps what was queued meanwhile', async () => {
    const dir = dataDir()
    const names = collectionNames(240)
    const damagedHash = await writeDamagedOutbox(dir, names, target())
    const file = path.join(dir, 'outbox.db')

    const { tuning, logged } = inWorker()
    const { outbox, events } = harness.open({ dataDir: dir, tuning })
    // Open, and not checked yet: the check runs beside this thread.
    expect(outbox.recovery).toBeNull()
    // Reads meet the damage: records show without pending changes, the outbox's own view says
    // why it cannot show its items yet.
    expect(outbox.pendingList(connectionId, harness.vaultId, 'collections')).toEqual([])
    expect(() => outbox.list()).toThrow(
      expect.objectContaining({
        code: 'storage',
        message: expect.stringMatching(/damaged \(.*\); it is being rebuilt/),
      }) as Error,
    )
    // Asked to send while the check runs: it starts once the check is over.
    expect(outbox.start()).toBe(false)
    const queuedMeanwhile = outbox.queue({
      ...target(),
      operation: 'collection.create',
      payload: { name: 'Queued while the pages were checked' },
    })
    expect(await readyBeforeATimer(outbox)).toBe(false)

    await outbox.ready()
    const recovery = outbox.recovery
    expect(recovery).not.toBeNull()
    expect(path.basename(recovery!.movedTo)).toMatch(/^outbox\.damaged-[0-9TZ-]+\.db$/)
    expect(sha256(recovery!.movedTo)).toBe(damagedHash)
    expect(recovery!.unreadable).toBeGreaterThan(0)
    expect(recovery!.recovered).toBeGreaterThan(names.length / 2)
    expect(recovery!.recovered + recovery!.unreadable).toBe(names.length)
    expect(fs.existsSync(`${file}.recovering`)).toBe(false)

    // The item queued during the check went to the rebuilt file, after every recovered one.
    const [added] = await queuedMeanwhile
    expect(added!.id).toBeGreaterThan(names.length)
    const listed = outbox.list()
    expect(listed).toHaveLength(recovery!.recovered + 1)
    const recoveredNames = listed.slice(0, -1).map((item) => item.payload.name as string)
    for (const name of recoveredNames) expect(names).toContain(name)
    expect(listed.at(-1)!.id).toBe(added!.id)
    expect(soundFile(file)).toBe(true)
    expect(namesIn(file)).toEqual([...recoveredNames, 'Queued while the pages were checked'])
    expect(outbox.repairs()).toEqual([
      { ...recovery, id: expect.any(Number), repairedAt: expect.any(String) },
    ])
    // Windows that read the damaged file are told to read again.
    await waitUntil('the rebuilt outbox is told', () =>
      events.some(
        ({ name, payload }) =>
          name === 'outbox.changed' &&
          (payload as { itemIds: number[] }).itemIds.includes(listed[0]!.id),
      ),
    )
    expect(events.filter(({ name }) => name === 'storage.failed')).toEqual([])
    // The worker made the check and the rebuild: this thread did not take them over.
    expect(logged).toEqual(['the outbox was damaged and has been rebuilt'])

    // Sending started by itself once the check was over, over the rebuilt file.
    await settled(outbox)
    const sent = [...recoveredNames, 'Queued while the pages were checked']
    const onServer = harness.sim.core.db
      .prepare('SELECT name FROM collections WHERE name IN (SELECT value FROM json_each(?))')
      .pluck()
      .all(JSON.stringify(sent)) as string[]
    expect(onServer.sort()).toEqual([...sent].sort())

    await outbox.close()
    const again = harness.open({ dataDir: dir, tuning: { pageCheck: 'worker' } }).outbox
    await again.ready()
    expect(again.recovery).toBeNull()
    expect(again.list({ states: ['sent'] })).toHaveLength(sent.length)
  }, 120_000)

  it('waits with a decision made during the check of a damaged outbox, then makes it in the rebuilt file', async () => {
    const dir = dataDir()
    const names = collectionNames(240)
    const damagedHash = await writeDamagedOutbox(dir, names, target())
    const file = path.join(dir, 'outbox.db')

    const { outbox } = harness.open({ dataDir: dir, tuning: inWorker().tuning })
    // A click in the first second: the first item (on the first page, never the damaged one).
    const discarded = outbox.discard(1)
    expect(await readyBeforeATimer(outbox)).toBe(false)
    expect(await discarded).toEqual({ discarded: [1] })

    const recovery = outbox.recovery!
    expect(recovery.unreadable).toBeGreaterThan(0)
    expect(outbox.item(1)).toMatchObject({ state: 'cancelled', payload: { name: names[0] } })
    expect(stateIn(file, 1)).toBe('cancelled')
    // The damaged copy set aside is as found: the decision went to the rebuilt file only.
    expect(sha256(recovery.movedTo)).toBe(damagedHash)
    // Dismissing the repair during a later start's check waits for it too.
    await outbox.close()
    const again = harness.open({ dataDir: dir, tuning: inWorker().tuning }).outbox
    const dismissed = again.dismissRepair(recovery.id)
    expect(await readyBeforeATimer(again)).toBe(false)
    await dismissed
    expect(again.repairs()).toEqual([])
    await again.close()
  }, 120_000)

  it('leaves a sound outbox as it is, readable during the check and writable after', async () => {
    const dir = dataDir()
    const first = harness.open({ dataDir: dir }).outbox
    const [queued] = await first.queue({
      ...target(),
      operation: 'collection.create',
      payload: { name: 'Queued before the restart' },
    })
    await first.close()
    const file = path.join(dir, 'outbox.db')
    const before = sha256(file)

    const { tuning, logged } = inWorker()
    const { outbox } = harness.open({ dataDir: dir, tuning })
    // Read as the check ends, before the write that waited for it.
    const hashWhenChecked = outbox.ready().then(() => sha256(file))
    expect(outbox.list().map((item) => item.id)).toEqual([queued!.id])
    expect(outbox.counts().queued).toBe(1)
    // A decision made during the check takes effect once the check is over.
    const discardedMeanwhile = outbox.discard(queued!.id)
    const queuedMeanwhile = outbox.queue({
      ...target(),
      operation: 'collection.create',
      payload: { name: 'Queued during the check' },
    })
    expect(await readyBeforeATimer(outbox)).toBe(false)
    await outbox.ready()
    await queuedMeanwhile
    expect(await discardedMeanwhile).toEqual({ discarded: [queued!.id] })

    expect(await hashWhenChecked).toBe(before)
    expect(logged).toEqual([])
    expect(outbox.recovery).toBeNull()
    expect(outbox.repairs()).toEqual([])
    expect(fs.readdirSync(dir).filter((name) => /damaged|recovering/.test(name))).toEqual([])
    expect(outbox.list().map((item) => item.payload.name)).toEqual(['Queued during the check'])
    expect(outbox.item(queued!.id).state).toBe('cancelled')
    await outbox.close()
    expect(namesIn(file)).toEqual(['Queued before the restart', 'Queued during the check'])
  }, 60_000)

  it('refuses to queue, with the reason, when the damaged outbox cannot be rebuilt', async () => {
    const dir = dataDir()
    const damagedHash = await writeDamagedOutbox(dir, collectionNames(240), target())
    const file = path.join(dir, 'outbox.db')
    // Where the fresh file would be written is taken by a folder: the rebuild fails.
    fs.mkdirSync(`${file}.recovering`)

    const { tuning, logged } = inWorker()
    const { outbox, events } = harness.open({ dataDir: dir, tuning })
    const queued = outbox.queue({
      ...target(),
      operation: 'collection.create',
      payload: { name: 'Never silently dropped' },
    })
    const discarded = outbox.discard(1)
    const reason = expect.objectContaining({
      code: 'storage',
      message: expect.stringMatching(
        /^The outbox at .*outbox\.db is damaged \(.+\) and could not be repaired: /,
      ),
    }) as Error
    await expect(outbox.ready()).rejects.toThrow(reason)
    await expect(queued).rejects.toThrow(reason)
    await expect(discarded).rejects.toThrow(reason)
    expect(outbox.start()).toBe(false)
    await expect(outbox.retry(1)).rejects.toThrow(reason)
    expect(events).toContainEqual({
      name: 'storage.failed',
      payload: {
        message: 'The outbox is damaged and could not be repaired; nothing can be queued',
        details: expect.stringContaining('could not be repaired') as string,
      },
    })
    expect(outbox.recovery).toBeNull()
    expect(logged).toEqual(['the outbox cannot be written'])
    await outbox.close()
    // The damaged file is as found: nothing was written to it.
    expect(sha256(file)).toBe(damagedHash)
    expect(fs.existsSync(`${file}-wal`)).toBe(false)
  }, 60_000)

  it('closed during the check, lets the rebuild finish: the next start finds it sound', async () => {
    const dir = dataDir()
    await writeDamagedOutbox(dir, collectionNames(240), target())
    const { tuning } = inWorker()
    const { outbox } = harness.open({ dataDir: dir, tuning })
    await outbox.close()
    const file = path.join(dir, 'outbox.db')
    expect(soundFile(file)).toBe(true)
    expect(fs.existsSync(`${file}.recovering`)).toBe(false)
    const [copy, ...others] = fs
      .readdirSync(dir)
      .filter((name) => /^outbox\.damaged-.*\.db$/.test(name))
    expect(others).toEqual([])
    const again = harness.open({ dataDir: dir }).outbox
    expect(again.recovery).toBeNull()
    expect(again.repairs()).toEqual([expect.objectContaining({ movedTo: path.join(dir, copy!) })])
  }, 60_000)

  it('runs on the calling thread when its worker cannot, saying why', async () => {
    const missing = path.join(dataDir(), 'gone', 'outbox.db')
    const reasons: string[] = []
    await expect(
      checkOutboxPagesInWorker(missing, new Date(), {
        onFallback: (reason) => reasons.push(reason),
      }),
    ).rejects.toThrow(/directory does not exist|unable to open/)
    expect(reasons).toHaveLength(1)
    expect(reasons[0]).toMatch(/directory does not exist|unable to open/)
  })
})

describe('a window started on a damaged outbox', () => {
  it('is told of the repair once the check in the worker has made it', async () => {
    const dir = dataDir()
    const names = collectionNames(240)
    await writeDamagedOutbox(dir, names, { connectionId: 'lab', vaultId: 1 })

    const app = createServices({ host: 'web', dataDir: dir, chemWorkers: 1, background: false })
    services.push(app)
    const told: AppNotice[][] = []
    app.events.on('notices.changed', ({ notices }) => told.push(notices))
    // The window asks at once; the repair is not known yet.
    expect(app.notices.list().filter((notice) => notice.kind === 'outbox-repaired')).toEqual([])
    await app.outbox.ready()
    const recovery = app.outbox.recovery!
    expect(recovery.unreadable).toBeGreaterThan(0)
    await waitUntil('the window is told', () =>
      told.some((notices) => notices.some((notice) => notice.path === recovery.movedTo)),
    )
    expect(app.outbox.list()).toHaveLength(recovery.recovered)
  }, 120_000)

  it('has a click made during the check take effect once it is over, through IPC', async () => {
    const dir = dataDir()
    const names = collectionNames(240)
    await writeDamagedOutbox(dir, names, { connectionId: 'lab', vaultId: 1 })

    const app = createServices({ host: 'web', dataDir: dir, chemWorkers: 1, background: false })
    services.push(app)
    const dispatch = createDispatcher(createHandlers(app), app.log)
    const discarded = dispatch('outbox.discard', { id: 1 })
    const unknown = dispatch('outbox.retry', { id: 1_000_000 })
    expect(await readyBeforeATimer(app.outbox)).toBe(false)
    expect(await discarded).toEqual({ ok: true, value: { discarded: [1] } })
    // Errors stay values over IPC, as before the check.
    expect(await unknown).toMatchObject({ ok: false, error: { code: 'not_found' } })
    expect(app.outbox.recovery!.unreadable).toBeGreaterThan(0)
    expect(app.outbox.item(1).state).toBe('cancelled')
  }, 120_000)
})
