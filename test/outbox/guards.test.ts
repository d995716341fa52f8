import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { VaultClient } from '../../src-main/api/client.ts'
import { connectionId, settled, useOutboxHarness, waitUntil } from './support/outbox-harness.ts'

/**
 * What a crash or a second process must not get past: a notebook edit sent again after a crash
 * is checked against the server's copy as the first attempt was, and a sender that lost its lease
 * to another process stops the requests it has in flight.
 */

const harness = useOutboxHarness()
const dataDirs: string[] = []
afterEach(() => {
  for (const dir of dataDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

function freshDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-guards-'))
  dataDirs.push(dir)
  return dir
}

/** What a process that died right after committing an attempt leaves in its outbox. */
function leftSending(dataDir: string, itemId: number): void {
  const db = new Database(path.join(dataDir, 'outbox.db'))
  try {
    db.prepare(
      "UPDATE items SET state = 'sending', attempts = attempts + 1, attempt_started_at = 1 WHERE id = ?",
    ).run(itemId)
  } finally {
    db.close()
  }
}

describe('a notebook edit sent again after a crash', () => {
  it('keeps its conflict check: a colleague’s change meanwhile is a conflict, not overwritten', async () => {
    const dataDir = freshDataDir()
    const vaultId = harness.vaultId
    const first = harness.open({ dataDir })
    const [create] = await first.outbox.queue({
      connectionId,
      vaultId,
      operation: 'eln.create',
      payload: { title: 'Solubility screen', project: 'Kinase Inhibitors' },
    })
    // An edit's answer gives the entry's modified_at (a creation's summary does not).
    await first.outbox.queue({
      connectionId,
      vaultId,
      operation: 'eln.update',
      payload: { entry: { item: create!.id }, eln_fields: { Solvent: 'DMSO' } },
    })
    first.outbox.start()
    await settled(first.outbox)
    const entryId = first.outbox.item(create!.id).serverId!
    const seen = first.cache.get('eln_entries', vaultId, entryId)!.modified_at as string
    await first.outbox.close()
    // The person edits the entry; the process dies once the attempt is committed as sending.
    const editing = harness.open({ dataDir }).outbox
    const [edit] = await editing.queue({
      connectionId,
      vaultId,
      operation: 'eln.update',
      payload: { entry: { id: entryId }, title: 'Solubility screen, DMSO' },
      baseModifiedAt: seen,
    })
    await editing.close()
    leftSending(dataDir, edit!.id)

    // Meanwhile a colleague retitles the entry.
    harness.sim.clock.advance(5_000)
    await harness.client('writer').elnEntries.update(vaultId, entryId, { title: 'Solubility, PBS' })

    const { outbox } = harness.open({ dataDir })
    outbox.start()
    await settled(outbox)
    expect(outbox.item(edit!.id)).toMatchObject({
      state: 'conflict',
      theirs: expect.objectContaining({ id: entryId, name: 'Solubility, PBS' }),
    })
    const title = harness.sim.core.db
      .prepare('SELECT title FROM eln_entries WHERE id = ?')
      .pluck()
      .get(entryId)
    expect(title).toBe('Solubility, PBS')
  })
})

describe('a sender that lost its lease', () => {
  it('aborts the requests it has in flight and writes nothing of them', async () => {
    const dataDir = freshDataDir()
    const first = harness.open({ dataDir, tuning: { leaseRenewalMs: 20 } })
    const [item] = await first.outbox.queue({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'collection.create',
      payload: { name: 'Held by a hanging server' },
    })
    harness.sim.resetStats()
    harness.sim.faults.set({ hangRate: 1, match: /^POST \/vaults\/\d+\/collections$/ })
    first.outbox.start()
    await waitUntil('the request hangs on the server', () => harness.sim.stats.inFlight === 1)

    // A second process takes the outbox over (the first one looks asleep to it, its lease two
    // hours old); it cannot reach the server, so only the first one's request is in flight.
    const unreachable = new VaultClient({
      baseUrl: 'http://127.0.0.1:9/api/v1',
      token: harness.token(),
      retry: { attempts: 1 },
    })
    const second = harness.open({
      dataDir,
      client: unreachable,
      tuning: { now: () => Date.now() + 2 * 3_600_000 },
    })
    expect(second.outbox.start()).toBe(true)

    await waitUntil(
      'the hanging request was aborted',
      () => harness.sim.stats.inFlight === 0,
      10_000,
    )
    harness.sim.faults.clear()
    // The second process holds the item (in doubt: it may have arrived); the first wrote nothing.
    const held = second.outbox.item(item!.id)
    expect(held.inDoubt).toBe(true)
    expect(held.state).toBe('queued')
    expect(held.lastError ?? '').not.toMatch(/Stopped before it was sent|cancel/i)
  })
})
