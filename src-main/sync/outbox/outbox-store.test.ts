import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openOutboxDatabase } from './outbox-database.ts'
import { OutboxStore, type NewItem } from './outbox-store.ts'
import { SenderLease } from './sender-lease.ts'

let dir: string
let store: OutboxStore

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-outbox-store-'))
  store = new OutboxStore(openOutboxDatabase(path.join(dir, 'outbox.db')))
})
afterEach(() => {
  store.database.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const base: NewItem = {
  connectionId: 'lab',
  vaultId: 1,
  operation: 'readout.update',
  payload: {},
  recordKind: 'readout_rows',
  recordId: 7,
  recordItem: null,
  overlay: {},
  baseModifiedAt: null,
  attachment: null,
  dependsOn: [],
}

const ids = (items: { id: number }[]) => items.map((item) => item.id)

describe('the order in which items may go', () => {
  it('sends the items of one record one after another, and other records alongside', () => {
    const first = store.insert(base, 0)
    const second = store.insert(base, 0)
    const other = store.insert({ ...base, recordId: 8 }, 0)
    expect(ids(store.ready('lab', 0, 10))).toEqual([first.id, other.id])

    store.markSending(first.id, 1, { updatedAt: first.updatedAt })
    expect(ids(store.ready('lab', 1, 10))).toEqual([other.id])
    store.markSent(first.id, { serverId: 7, record: null }, 2)
    expect(ids(store.ready('lab', 2, 10))).toEqual([second.id, other.id])
  })

  it('holds a record’s later items behind one the server refused, and nothing else', () => {
    const refused = store.insert(base, 0)
    const after = store.insert(base, 0)
    const other = store.insert({ ...base, recordId: 8 }, 0)
    store.markStopped(refused.id, 'needs_attention', { message: '422', kind: 'validation' }, 1)
    expect(ids(store.ready('lab', 1, 10))).toEqual([other.id])
    store.cancel(refused.id, 2)
    expect(ids(store.ready('lab', 2, 10))).toEqual([after.id, other.id])
  })

  it('waits for dependencies, then names the created record by its server id everywhere', () => {
    const create = store.insert(
      {
        ...base,
        operation: 'eln.create',
        recordKind: 'eln_entries',
        recordId: null,
        recordItem: 'self',
      },
      0,
    )
    const upload = store.insert(
      {
        ...base,
        operation: 'file.attach',
        recordKind: 'files',
        recordId: null,
        recordItem: 'self',
        dependsOn: [create.id],
      },
      0,
    )
    const edit = store.insert(
      {
        ...base,
        operation: 'eln.update',
        recordKind: 'eln_entries',
        recordId: null,
        recordItem: create.id,
      },
      0,
    )
    expect(ids(store.ready('lab', 0, 10))).toEqual([create.id])
    store.markSending(create.id, 1, { updatedAt: create.updatedAt })
    store.markSent(create.id, { serverId: 99, record: null }, 2)
    expect(ids(store.ready('lab', 2, 10))).toEqual([upload.id, edit.id])
    expect(store.require(edit.id)).toMatchObject({ recordId: 99, recordItem: create.id })
    expect(store.require(edit.id).orderKey).toBe(store.require(create.id).orderKey)
  })

  it('puts items that may have arrived before the others, and leaves items not yet due', () => {
    const plain = store.insert({ ...base, recordId: 1 }, 0)
    const doubtful = store.insert({ ...base, recordId: 2 }, 0)
    const later = store.insert({ ...base, recordId: 3 }, 0)
    store.markRetry(
      doubtful.id,
      { message: 'reset', kind: 'network' },
      { nextAttemptAt: 0, inDoubt: true, countAttempt: true },
      0,
    )
    store.markRetry(
      later.id,
      { message: '503', kind: 'server' },
      { nextAttemptAt: 500, inDoubt: false, countAttempt: true },
      0,
    )
    expect(ids(store.ready('lab', 100, 10))).toEqual([doubtful.id, plain.id])
    expect(store.nextDueAt()).toBe(0)
  })
})

describe('what a crash leaves behind', () => {
  it('turns items left "sending" into items in doubt, due at once', () => {
    const item = store.insert(base, 0)
    store.markSending(item.id, 1, { updatedAt: item.updatedAt })
    expect(store.recoverInterrupted(5)).toEqual([item.id])
    expect(store.require(item.id)).toMatchObject({
      state: 'queued',
      inDoubt: true,
      nextAttemptAt: 5,
    })
  })

  it('refuses to mark as sending an item changed since it was read', () => {
    const item = store.insert(base, 0)
    store.requeue(item.id, 3, { payload: { changed: true } })
    expect(() => store.markSending(item.id, 4, { updatedAt: item.updatedAt })).toThrow(
      `Item ${item.id} changed meanwhile; it is queued.`,
    )
  })
})

describe('the person’s decisions', () => {
  it('discards an item with everything that depends on it, but never one being sent', () => {
    const create = store.insert(
      { ...base, recordKind: 'eln_entries', recordId: null, recordItem: 'self' },
      0,
    )
    const upload = store.insert(
      { ...base, recordKind: 'files', recordId: null, recordItem: 'self', dependsOn: [create.id] },
      0,
    )
    const append = store.insert(
      {
        ...base,
        recordKind: 'eln_entries',
        recordId: null,
        recordItem: create.id,
        dependsOn: [upload.id],
      },
      0,
    )
    const sending = store.insert({ ...base, recordId: 50 }, 0)
    store.markSending(sending.id, 1, { updatedAt: sending.updatedAt })

    expect(store.cancel(create.id, 2).sort()).toEqual([create.id, upload.id, append.id].sort())
    expect(() => store.cancel(sending.id, 2)).toThrow('is being sent')
    expect(store.counts()).toMatchObject({ cancelled: 3, sending: 1 })
  })

  it('rebases later edits of a record on the modified_at the server answered', () => {
    const first = store.insert({ ...base, baseModifiedAt: '2026-01-01T00:00:00Z' }, 0)
    const second = store.insert({ ...base, baseModifiedAt: '2026-01-01T00:00:00Z' }, 0)
    store.markSending(first.id, 1, { updatedAt: first.updatedAt })
    store.markSent(first.id, { serverId: 7, record: null, modifiedAt: '2026-01-02T00:00:00Z' }, 2)
    expect(store.require(second.id).baseModifiedAt).toBe('2026-01-02T00:00:00Z')
  })

  it('forgets old sent items unless an unresolved item still needs their server id', () => {
    const create = store.insert(
      { ...base, recordKind: 'eln_entries', recordId: null, recordItem: 'self' },
      0,
    )
    const waiting = store.insert(
      { ...base, recordKind: 'files', recordId: null, recordItem: 'self', dependsOn: [create.id] },
      0,
    )
    const done = store.insert({ ...base, recordId: 5 }, 0)
    for (const item of [create, done]) {
      store.markSending(item.id, 1, { updatedAt: item.updatedAt })
      store.markSent(item.id, { serverId: 1, record: null }, 1)
    }
    expect(store.prune(10)).toBe(1)
    expect(store.get(done.id)).toBeNull()
    expect(store.get(create.id)).not.toBeNull()
    expect(store.get(waiting.id)).not.toBeNull()
  })
})

describe('the sender lease', () => {
  it('lets one sender at a time hold the outbox; a holder asleep for an hour loses it', () => {
    let now = 0
    const first = new SenderLease(store.database, () => now)
    const second = new SenderLease(store.database, () => now)
    expect(first.acquire()).toBe(true)
    expect(second.acquire()).toBe(false)
    now = 2 * 3_600_000
    expect(second.acquire()).toBe(true)
    expect(first.acquire()).toBe(false)
    second.release()
    expect(first.acquire()).toBe(true)
  })

  it('takes at once a lease whose process has died', () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid!
    store.database
      .prepare(
        "INSERT INTO sender_lease (id, holder, pid, host, renewed_at) VALUES (1, 'dead', ?, ?, ?)",
      )
      .run(gone, os.hostname(), Date.now())
    expect(new SenderLease(store.database).acquire()).toBe(true)
  })
})
