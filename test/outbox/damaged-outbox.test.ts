import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { describeRecovery } from '../../src-main/sync/outbox/outbox-repairs.ts'
import { damagePage, leafPagesOfItems } from './support/damaged-outbox.ts'
import { connectionId, settled, useOutboxHarness } from './support/outbox-harness.ts'

/**
 * A page of a real outbox file overwritten (a disk that lost a write, a bad sector): the outbox
 * still opens, keeps the damaged file aside as found, brings back every item that can be read,
 * tells the person, and sends what it brought back.
 */

const harness = useOutboxHarness()
const dataDirs: string[] = []
afterEach(() => {
  for (const dir of dataDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

const sha256 = (file: string) =>
  crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')

describe('a damaged outbox.db', () => {
  it('is kept aside, rebuilt from every row that can be read, told, and what it held is sent', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-damaged-'))
    dataDirs.push(dataDir)
    const names = Array.from(
      { length: 240 },
      (_, index) => `Damaged outbox collection ${String(index).padStart(3, '0')} ${'·'.repeat(40)}`,
    )
    const first = harness.open({ dataDir }).outbox
    for (const name of names) {
      await first.queue({
        connectionId,
        vaultId: harness.vaultId,
        operation: 'collection.create',
        payload: { name },
      })
    }
    await first.close()

    const file = path.join(dataDir, 'outbox.db')
    const leaves = leafPagesOfItems(file)
    expect(leaves.length).toBeGreaterThan(4)
    damagePage(file, leaves[Math.floor(leaves.length / 2)]!)
    const damagedHash = sha256(file)

    // The start goes on, and says what it did.
    const { outbox, events } = harness.open({ dataDir })
    const recovery = outbox.recovery
    expect(recovery).not.toBeNull()
    expect(recovery!.details).not.toBe('')
    expect(path.dirname(recovery!.movedTo)).toBe(dataDir)
    expect(path.basename(recovery!.movedTo)).toMatch(/^outbox\.damaged-[0-9TZ-]+\.db$/)
    expect(sha256(recovery!.movedTo)).toBe(damagedHash)
    if (process.platform !== 'win32') {
      expect(fs.statSync(recovery!.movedTo).mode & 0o777).toBe(0o600)
    }
    // One leaf of rows was lost: everything else came back, and nothing made up.
    expect(recovery!.unreadable).toBeGreaterThan(0)
    expect(recovery!.recovered).toBeGreaterThan(names.length / 2)
    expect(recovery!.recovered + recovery!.unreadable).toBe(names.length)
    expect(recovery!.unresolved).toBe(recovery!.recovered)
    const listed = outbox.list()
    expect(listed).toHaveLength(recovery!.recovered)
    const recoveredNames = listed.map((item) => item.payload.name as string)
    for (const name of recoveredNames) expect(names).toContain(name)
    // Told to the person through the outbox's record of it, kept until read (a window that
    // starts later asks for it; no event is lost before anyone listens).
    const [repair] = outbox.repairs()
    expect(repair).toEqual({ ...recovery, id: expect.any(Number), repairedAt: expect.any(String) })
    const told = describeRecovery(repair!)
    expect(told.message).toMatch(/outbox was damaged and has been repaired/)
    expect(told.details).toContain(`${recovery!.recovered} items were recovered`)
    expect(told.details).toContain(`${recovery!.unreadable} could not be read`)
    expect(told.details).toContain(recovery!.movedTo)
    expect(events.filter((event) => event.name === 'storage.failed')).toEqual([])

    // A new item takes an id none of the lost ones had.
    const [added] = await outbox.queue({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'collection.create',
      payload: { name: 'Queued after the repair' },
    })
    expect(added!.id).toBeGreaterThan(names.length)

    outbox.start()
    await settled(outbox)
    const onServer = harness.sim.core.db
      .prepare(
        'SELECT name FROM collections WHERE name IN (SELECT value FROM json_each(?)) ORDER BY name',
      )
      .pluck()
      .all(JSON.stringify([...recoveredNames, 'Queued after the repair']))
    expect(onServer).toEqual([...recoveredNames, 'Queued after the repair'].sort())

    // The rebuilt file is sound, and opens as any other the next time.
    await outbox.close()
    const again = harness.open({ dataDir }).outbox
    expect(again.recovery).toBeNull()
    expect(again.repairs()).toEqual([repair])
    await again.dismissRepair(repair!.id)
    expect(again.repairs()).toEqual([])
  }, 120_000)

  it('whose first page is gone starts empty, the file kept aside', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-damaged-'))
    dataDirs.push(dataDir)
    const first = harness.open({ dataDir }).outbox
    await first.queue({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'collection.create',
      payload: { name: 'Lost with its header' },
    })
    await first.close()
    const file = path.join(dataDir, 'outbox.db')
    damagePage(file, 1)

    const outbox = harness.open({ dataDir }).outbox
    expect(outbox.recovery).toMatchObject({ recovered: 0, unresolved: 0 })
    expect(fs.existsSync(outbox.recovery!.movedTo)).toBe(true)
    expect(outbox.list()).toEqual([])
  })
})
