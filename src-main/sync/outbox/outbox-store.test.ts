import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  allows,
  endOf,
  outboxStates,
  outboxTransitions,
  type OutboxEvent,
  type OutboxState,
} from '../../../src-common/outbox/states.ts'
import { openDatabase } from '../../store/sqlite.ts'
import { openOutboxDatabase, outboxMigrations } from './outbox-database.ts'
import { MoveRefused, OutboxStore, type NewItem } from './outbox-store.ts'
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

describe('lanes: uploads of one name to one record', () => {
  const upload: NewItem = {
    ...base,
    operation: 'file.attach',
    recordKind: 'files',
    recordId: null,
    recordItem: 'self',
    lane: 'file/molecule/5/a.csv',
  }

  it('go one at a time, in order, while a stopped one does not hold the next', () => {
    const first = store.insert(upload, 0)
    const second = store.insert(upload, 0)
    const other = store.insert({ ...upload, lane: 'file/molecule/5/b.csv' }, 0)
    expect(first.lane).toBe('lab/1/file/molecule/5/a.csv')
    expect(ids(store.ready('lab', 0, 10))).toEqual([first.id, other.id])
    store.markSending(first.id, 1, { updatedAt: first.updatedAt })
    expect(ids(store.ready('lab', 1, 10))).toEqual([other.id])
    store.markStopped(first.id, 'uncertain', { message: '?', kind: 'uncertain' }, 2)
    expect(ids(store.ready('lab', 2, 10))).toEqual([second.id, other.id])
    expect(store.inDoubtInLane(store.require(second.id))).toEqual([
      expect.objectContaining({ id: first.id }),
    ])
  })

  it('name a record created offline by its server id once it is sent', () => {
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
    const before = store.insert(
      { ...upload, lane: `file/eln_entry/#${create.id}/a.csv`, dependsOn: [create.id] },
      0,
    )
    store.markSending(create.id, 1, { updatedAt: create.updatedAt })
    store.markSent(create.id, { serverId: 99, record: null }, 2)
    expect(store.require(before.id).lane).toBe('lab/1/file/eln_entry/99/a.csv')
    const after = store.insert({ ...upload, lane: 'file/eln_entry/99/a.csv' }, 3)
    expect(ids(store.ready('lab', 3, 10))).toEqual([before.id])
    expect(store.require(after.id).lane).toBe(store.require(before.id).lane)
  })

  it('keep what a sent upload accounts for while its lane has unresolved items', () => {
    const sent = store.insert(upload, 0)
    const waiting = store.insert(upload, 0)
    store.markSending(sent.id, 1, { updatedAt: sent.updatedAt })
    store.markSent(sent.id, { serverId: 40, record: null }, 1)
    expect(store.claimedByOthers(store.require(waiting.id), [40, 41], null)).toEqual(new Set([40]))
    expect(store.claimedByOthers(store.require(waiting.id), [40], 2)).toEqual(new Set())
    expect(store.claimedByOthers(store.require(sent.id), [40], null)).toEqual(new Set())
    expect(store.prune(10)).toBe(0)
    store.cancel(waiting.id, 5)
    expect(store.prune(10)).toBe(2)
  })

  it('refuse to let a second item account for a record another one does', () => {
    const first = store.insert(upload, 0)
    const second = store.insert(upload, 0)
    store.markSending(first.id, 1, { updatedAt: first.updatedAt })
    store.markSent(first.id, { serverId: 40, record: null }, 1)
    // The second was in doubt: its look-up found the same file.
    store.markRetry(
      second.id,
      { message: 'reset', kind: 'network' },
      { nextAttemptAt: 1, inDoubt: true, countAttempt: true },
      1,
    )
    expect(() =>
      store.markFoundArrived(second.id, { serverId: 40, record: null }, 2, { since: null }),
    ).toThrow(/already accounted for/)
    expect(store.require(second.id).state).toBe('queued')
    store.markFoundArrived(second.id, { serverId: 40, record: null }, 2, { since: 2 })
    expect(store.require(second.id).state).toBe('sent')
  })
})

describe('an outbox written before lanes', () => {
  it('puts its items in their lanes when opened', () => {
    const file = path.join(dir, 'old-outbox.db')
    const old = openDatabase(file, outboxMigrations.slice(0, 1), 'the outbox')
    const insert = old.prepare(
      `INSERT INTO items (id, connection_id, vault_id, operation, payload, record_kind, record_id,
         record_item, order_key, overlay, state, next_attempt_at, server_id, attachment_name,
         created_at, updated_at)
       VALUES (?, 'lab', 1, ?, ?, ?, ?, ?, '', '{}', ?, 0, ?, ?, 0, 0)`,
    )
    const toEntry = (ref: object) => JSON.stringify({ target: { kind: 'eln_entry', ref } })
    const entry = JSON.stringify({ title: ' Notes ', project: 1 })
    insert.run(1, 'eln.create', entry, 'eln_entries', 50, 1, 'sent', 50, null)
    insert.run(2, 'eln.create', entry, 'eln_entries', null, 2, 'queued', null, null)
    insert.run(3, 'file.attach', toEntry({ item: 1 }), 'files', null, 3, 'sending', null, 'a b.csv')
    insert.run(4, 'file.attach', toEntry({ item: 2 }), 'files', null, 4, 'queued', null, 'a.csv')
    insert.run(5, 'file.attach', toEntry({ id: 7 }), 'files', 70, 5, 'sent', 70, 'a.csv')
    old.close()
    const reopened = new OutboxStore(openOutboxDatabase(file))
    try {
      expect([1, 2, 3, 4, 5].map((id) => reopened.require(id).lane)).toEqual([
        'lab/1/new/eln_entry/notes',
        'lab/1/new/eln_entry/notes',
        'lab/1/file/eln_entry/50/a%20b.csv',
        'lab/1/file/eln_entry/#2/a.csv',
        'lab/1/file/eln_entry/7/a.csv',
      ])
    } finally {
      reopened.database.close()
    }
  })
})

describe('the moves the transition table allows', () => {
  const failure = { message: 'why', kind: 'test' }
  /** Each move of the store, made on an item: what the table calls it. */
  const moves: Record<Exclude<OutboxEvent, 'takeTheirs'>, (id: number) => unknown> = {
    attempt: (id) => store.markSending(id, 5, { updatedAt: store.require(id).updatedAt }),
    answered: (id) => store.markSent(id, { serverId: 70, record: null }, 5),
    foundArrived: (id) => store.markFoundArrived(id, { serverId: 70, record: null }, 5),
    retryLater: (id) =>
      store.markRetry(id, failure, { nextAttemptAt: 9, inDoubt: false, countAttempt: true }, 5),
    // Recovery moves every item left sending, and leaves the others as they are.
    interrupted: (id) => {
      if (!store.recoverInterrupted(5).includes(id)) {
        throw new MoveRefused(id, store.require(id).state)
      }
    },
    refused: (id) => store.markStopped(id, 'needs_attention', failure, 5),
    changedOnServer: (id) => store.markStopped(id, 'conflict', failure, 5),
    cannotTell: (id) => store.markStopped(id, 'uncertain', failure, 5),
    retry: (id) => store.requeue(id, 'retry', 5),
    edit: (id) => store.requeue(id, 'edit', 5, { payload: { edited: true } }),
    keepMine: (id) => store.requeue(id, 'keepMine', 5, { baseModifiedAt: null }),
    itDidNotArrive: (id) => store.requeue(id, 'itDidNotArrive', 5),
    itArrived: (id) => store.markArrived(id, 70, 5, 0),
    discard: (id) => store.cancel(id, 5),
  }

  /** An item put straight into a state (and in doubt or not), as the database would hold it. */
  function itemIn(state: OutboxState, inDoubt: boolean): number {
    const { id } = store.insert({ ...base, recordId: null, recordItem: 'self' }, 0)
    store.database
      .prepare('UPDATE items SET state = ?, in_doubt = ? WHERE id = ?')
      .run(state, inDoubt ? 1 : 0, id)
    return id
  }

  it('lets each move start only from the states the table gives, and end where it says', () => {
    for (const [event, move] of Object.entries(moves) as [OutboxEvent, (id: number) => unknown][]) {
      for (const state of outboxStates) {
        for (const inDoubt of [false, true]) {
          const id = itemIn(state, inDoubt)
          const allowed = allows(state, event, inDoubt)
          const where = `${event} from ${state}${inDoubt ? ' in doubt' : ''}`
          if (event === 'discard' && !allowed && state !== 'sending') {
            // Settled items are left as they are: nothing to discard.
            expect(store.cancel(id, 5), where).toEqual([])
          } else if (allowed) {
            move(id)
            expect(store.require(id).state, where).toBe(endOf(event))
          } else {
            expect(() => move(id), where).toThrow(event === 'discard' ? /being sent/ : MoveRefused)
          }
          if (!allowed) expect(store.require(id).state, where).toBe(state)
          store.database.prepare('DELETE FROM items').run()
        }
      }
    }
    expect(Object.keys(moves).sort()).toEqual(
      Object.keys(outboxTransitions)
        .filter((event) => event !== 'takeTheirs')
        .sort(),
    )
  })

  it('stores every state of the table, and no other (the released schema spells them)', () => {
    const { id } = store.insert(base, 0)
    const setState = store.database.prepare('UPDATE items SET state = ? WHERE id = ?')
    for (const state of outboxStates) {
      setState.run(state, id)
      expect(store.require(id).state).toBe(state)
    }
    expect(() => setState.run('lost', id)).toThrow(/CHECK constraint failed/)
  })

  it('writes sent only for an attempt under way or an item in doubt found, never over a discard', () => {
    const queued = store.insert(base, 0)
    expect(() => store.markSent(queued.id, { serverId: 7, record: null }, 1)).toThrow(
      `Item ${queued.id} changed meanwhile; it is queued.`,
    )
    expect(() => store.markFoundArrived(queued.id, { serverId: 7, record: null }, 1)).toThrow(
      MoveRefused,
    )
    expect(store.require(queued.id)).toMatchObject({ state: 'queued', serverId: null })

    // An answer comes back after another process took the outbox over and put the item in doubt
    // again: only the item's new attempt (its look-up) may settle it, not the old answer.
    const takenOver = store.insert({ ...base, recordId: 10 }, 0)
    store.markSending(takenOver.id, 1, { updatedAt: takenOver.updatedAt })
    store.recoverInterrupted(2)
    expect(() => store.markSent(takenOver.id, { serverId: 10, record: null }, 3)).toThrow(
      `Item ${takenOver.id} changed meanwhile; it is queued.`,
    )
    expect(store.require(takenOver.id)).toMatchObject({ state: 'queued', inDoubt: true })

    // The person discards an item in doubt while the sender looks it up: the discard stands.
    const doubtful = store.insert({ ...base, recordId: 8 }, 0)
    store.markSending(doubtful.id, 1, { updatedAt: doubtful.updatedAt })
    store.recoverInterrupted(2)
    store.cancel(doubtful.id, 3)
    expect(() => store.markSent(doubtful.id, { serverId: 8, record: null }, 4)).toThrow(MoveRefused)
    expect(() => store.markStopped(doubtful.id, 'uncertain', failure, 4)).toThrow(MoveRefused)
    expect(store.require(doubtful.id)).toMatchObject({ state: 'cancelled', serverId: null })

    const sending = store.insert({ ...base, recordId: 9 }, 0)
    store.markSending(sending.id, 1, { updatedAt: sending.updatedAt })
    expect(store.markSent(sending.id, { serverId: 9, record: null }, 2).state).toBe('sent')
    expect(() => store.markSent(sending.id, { serverId: 9, record: null }, 3)).toThrow(
      `Item ${sending.id} changed meanwhile; it is sent.`,
    )
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
    store.requeue(item.id, 'edit', 3, { payload: { changed: true } })
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
    const first = new SenderLease(store, () => now)
    const second = new SenderLease(store, () => now)
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
    expect(new SenderLease(store).acquire()).toBe(true)
  })
})
