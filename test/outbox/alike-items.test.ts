import path from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { batchesIn } from '../sim/domain/assay-fixture.ts'
import { connectionId, settled, tempFile, useOutboxHarness } from './support/outbox-harness.ts'

/**
 * Uploads of one file name to one record, and new records a look-up tells apart only by a name,
 * looked up after an attempt in doubt: one record the server lists never accounts for two items.
 * (The crash test kills a sender over two such uploads; here the outbox is left as an older
 * version, which sent them side by side, could leave it.)
 */
const harness = useOutboxHarness()

let counter = 0

function molecule(): number {
  return batchesIn(harness.sim, harness.sim.cast.projects.kinase.id)[0]!.moleculeId
}

function filesNamed(name: string, moleculeId: number): number[] {
  return (
    harness.sim.core.db
      .prepare(
        `SELECT id FROM uploaded_files WHERE name = ? AND resource_class = 'molecule'
           AND resource_id = ? ORDER BY id`,
      )
      .all(name, moleculeId) as { id: number }[]
  ).map((row) => row.id)
}

/** Two uploads of one name to a molecule, queued (the sender not started). */
async function twoUploads() {
  const under = harness.open({ user: 'writer' })
  const name = `twin-${++counter}.csv`
  const moleculeId = molecule()
  const contents = ['well,value\nA1,1\n', 'well,value\nA1,2\nA2,3\n']
  const ids: number[] = []
  for (const text of contents) {
    const [item] = await under.outbox.queue({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'file.attach',
      file: tempFile(name, text),
      target: { kind: 'molecule', ref: { id: moleculeId } },
    })
    ids.push(item!.id)
  }
  return { ...under, name, moleculeId, contents, ids }
}

/** Changes items in the outbox's database as an earlier process left them. */
function leave(dataDir: string, sql: string, ...args: unknown[]): void {
  const db = new Database(path.join(dataDir, 'outbox.db'))
  try {
    db.prepare(sql).run(...args)
  } finally {
    db.close()
  }
}

/**
 * As an older version left items it sent: in doubt (sending, one attempt made), with the snapshot
 * of their record's files from before, so that any file of their name looks like theirs.
 */
function leaveInDoubt(dataDir: string, ids: readonly number[]): void {
  leave(
    dataDir,
    `UPDATE items SET state = 'sending', attempts = 1, snapshot = '{"value":{"ids":[]}}'
       WHERE id IN (SELECT value FROM json_each(?))`,
    JSON.stringify(ids),
  )
}

async function uploadDirectly(name: string, moleculeId: number, text: string): Promise<number> {
  const answer = await harness.client('writer').files.attach(harness.vaultId, {
    file: tempFile(name, text),
    resource_class: 'molecule',
    resource_id: moleculeId,
  })
  return answer.id
}

describe('uploads of one name to one record', () => {
  it('are sent one after the other, never side by side', async () => {
    const { outbox, name, moleculeId, ids } = await twoUploads()
    harness.sim.faults.set({ latencyMs: 100, match: /^POST \/vaults\/\d+\/files$/ })
    harness.sim.stats.maxInFlightPerUser = 0
    outbox.start()
    await settled(outbox)
    expect(ids.map((id) => outbox.item(id).state)).toEqual(['sent', 'sent'])
    expect(filesNamed(name, moleculeId)).toHaveLength(2)
    // Each upload waited for the other: never two requests of this user at once.
    expect(harness.sim.stats.maxInFlightPerUser).toBe(1)
  })

  it('makes both uncertain when both were in doubt and one file of that name arrived', async () => {
    const { outbox, dataDir, name, moleculeId, contents, ids } = await twoUploads()
    // As sent side by side by an older version: both in doubt, their snapshots from before.
    leaveInDoubt(dataDir, ids)
    await uploadDirectly(name, moleculeId, contents[1]!)
    outbox.start()
    await settled(outbox)
    const items = ids.map((id) => outbox.item(id))
    expect(items.map((item) => item.state)).toEqual(['uncertain', 'uncertain'])
    expect(items[0]!.lastError).toMatch(/2 uploads of twin-\d+\.csv .* 1 file of that name arrived/)
    // The person decides; each is then on the server once.
    await outbox.resolveUncertain(ids[0]!, 'resend')
    await outbox.resolveUncertain(ids[1]!, 'done')
    await settled(outbox)
    expect(ids.map((id) => outbox.item(id).state)).toEqual(['sent', 'sent'])
    expect(filesNamed(name, moleculeId)).toHaveLength(2)
  })

  it('refuses to let one arrived file account for both uncertain uploads', async () => {
    const { outbox, dataDir, name, moleculeId, contents, ids } = await twoUploads()
    leaveInDoubt(dataDir, ids)
    const arrived = await uploadDirectly(name, moleculeId, contents[1]!)
    outbox.start()
    await settled(outbox)
    expect(ids.map((id) => outbox.item(id).state)).toEqual(['uncertain', 'uncertain'])
    await outbox.resolveUncertain(ids[0]!, 'done', arrived)
    await expect(outbox.resolveUncertain(ids[1]!, 'done', arrived)).rejects.toThrow(
      new RegExp(`record ${arrived} is already accounted for by another item`),
    )
    expect(outbox.item(ids[1]!).state).toBe('uncertain')
    await outbox.resolveUncertain(ids[1]!, 'resend')
    await settled(outbox)
    expect(outbox.item(ids[1]!).state).toBe('sent')
    expect(filesNamed(name, moleculeId)).toHaveLength(2)
  })

  it('sends both once when both were in doubt and two files of that name arrived', async () => {
    const { outbox, dataDir, name, moleculeId, contents, ids } = await twoUploads()
    leaveInDoubt(dataDir, ids)
    const files = [
      await uploadDirectly(name, moleculeId, contents[0]!),
      await uploadDirectly(name, moleculeId, contents[1]!),
    ]
    outbox.start()
    await settled(outbox)
    expect(ids.map((id) => outbox.item(id))).toEqual([
      expect.objectContaining({ state: 'sent', serverId: files[0] }),
      expect.objectContaining({ state: 'sent', serverId: files[1] }),
    ])
    expect(filesNamed(name, moleculeId)).toEqual(files)
  })

  it('does not take a file another upload accounts for: the one in doubt is sent again', async () => {
    const { outbox, dataDir, name, moleculeId, contents, ids } = await twoUploads()
    // The second was sent (its answer read) while the first, whose request never arrived, was in
    // flight beside it: the first's snapshot is from before the second's file.
    const second = await uploadDirectly(name, moleculeId, contents[1]!)
    leave(
      dataDir,
      `UPDATE items SET state = 'sent', attempts = 1, server_id = ?, record_id = ?,
         snapshot = '{"value":{"ids":[]}}', updated_at = ? WHERE id = ?`,
      second,
      second,
      Date.now(),
      ids[1],
    )
    leaveInDoubt(dataDir, [ids[0]!])
    outbox.start()
    await settled(outbox)
    const first = outbox.item(ids[0]!)
    expect(first.state).toBe('sent')
    expect(first.serverId).not.toBe(second)
    expect(filesNamed(name, moleculeId)).toEqual([second, first.serverId])
  })
})

describe('new records a look-up finds by name', () => {
  async function twoPlates() {
    const under = harness.open({ user: 'writer' })
    const name = `Twin plate ${++counter}`
    const ids: number[] = []
    for (const size of [96, 384]) {
      const [item] = await under.outbox.queue({
        connectionId,
        vaultId: harness.vaultId,
        operation: 'plate.create',
        payload: { name, projects: [harness.sim.cast.projects.kinase.id], size },
      })
      ids.push(item!.id)
    }
    const named = () =>
      (
        harness.sim.core.db
          .prepare('SELECT id FROM plates WHERE name = ? ORDER BY id')
          .all(name) as {
          id: number
        }[]
      ).map((row) => row.id)
    return { ...under, name, ids, named }
  }

  it('are sent one after the other', async () => {
    const { outbox, ids, named } = await twoPlates()
    harness.sim.faults.set({ latencyMs: 100, match: /^POST \/vaults\/\d+\/plates$/ })
    harness.sim.stats.maxInFlightPerUser = 0
    outbox.start()
    await settled(outbox)
    expect(ids.map((id) => outbox.item(id).state)).toEqual(['sent', 'sent'])
    expect(named()).toHaveLength(2)
    expect(harness.sim.stats.maxInFlightPerUser).toBe(1)
  })

  it('make both uncertain when both were in doubt and one record of that name arrived', async () => {
    const { outbox, dataDir, name, ids, named } = await twoPlates()
    leaveInDoubt(dataDir, ids)
    await harness.client('writer').plates.create(harness.vaultId, {
      name,
      projects: [harness.sim.cast.projects.kinase.id],
      size: 384,
    })
    outbox.start()
    await settled(outbox)
    const items = ids.map((id) => outbox.item(id))
    expect(items.map((item) => item.state)).toEqual(['uncertain', 'uncertain'])
    expect(items[1]!.lastError).toMatch(/2 items like it were in doubt and 1 record like them/)
    expect(named()).toHaveLength(1)
  })
})
