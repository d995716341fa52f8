import { describe, expect, it } from 'vitest'
import { batchesIn, buildDoseResponse } from '../sim/domain/assay-fixture.ts'
import {
  byState,
  connectionId,
  settled,
  tempFile,
  useOutboxHarness,
  waitUntil,
} from './support/outbox-harness.ts'

const harness = useOutboxHarness()

function filesOn(resourceClass: string, resourceId: number): { id: number; name: string }[] {
  return harness.sim.core.db
    .prepare(
      'SELECT id, name FROM uploaded_files WHERE resource_class = ? AND resource_id = ? ORDER BY id',
    )
    .all(resourceClass, resourceId) as { id: number; name: string }[]
}

describe('the outbox sends what was queued offline', () => {
  it('shows a change at once as pending, then sends it and stores the answer', async () => {
    const { outbox, cache } = harness.open()
    const [moleculeId] = harness.moleculeIds(1)
    const file = tempFile('spectrum.txt', 'NMR 400 MHz')
    const [attach] = await outbox.queue({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'file.attach',
      file,
      target: { kind: 'molecule', ref: { id: moleculeId! } },
    })
    const [entry] = await outbox.queue({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'eln.create',
      payload: { title: 'Offline synthesis notes', project: 'Kinase Inhibitors' },
    })
    expect(attach).toMatchObject({
      state: 'queued',
      summary: `Attach spectrum.txt to molecule ${moleculeId}`,
    })
    const pendingEntries = outbox.pendingList(connectionId, harness.vaultId, 'eln_entries')
    expect(pendingEntries).toEqual([
      expect.objectContaining({
        id: null,
        createdBy: entry!.id,
        state: 'queued',
        record: expect.objectContaining({ name: 'Offline synthesis notes', status: 'open' }),
      }),
    ])

    expect(outbox.start()).toBe(true)
    await settled(outbox)

    expect(byState(outbox.list({ states: ['sent'] }))).toEqual({ sent: 2 })
    expect(outbox.pendingList(connectionId, harness.vaultId, 'eln_entries')).toEqual([])
    expect(filesOn('molecule', moleculeId!)).toEqual([
      expect.objectContaining({ name: 'spectrum.txt' }),
    ])
    const sentEntry = outbox.item(entry!.id)
    expect(cache.get('eln_entries', harness.vaultId, sentEntry.serverId!)).toMatchObject({
      name: 'Offline synthesis notes',
    })
    expect(harness.sim.stats.concurrencyRejections).toBe(0)
  })

  it('sends the edits of one record in order, and corrects readout rows', async () => {
    const batches = batchesIn(harness.sim, harness.sim.cast.projects.kinase.id)
    const assay = buildDoseResponse(harness.sim, {
      projectId: harness.sim.cast.projects.kinase.id,
      name: 'Order assay',
      curves: [{ batchId: batches[0]!.id, ic50: 1 }],
    })
    const rowId = (
      harness.sim.core.db
        .prepare(
          'SELECT id FROM readout_rows WHERE run_id = ? AND batch_id IS NOT NULL ORDER BY id LIMIT 1',
        )
        .get(assay.runId) as { id: number }
    ).id
    const { outbox } = harness.open()
    for (const value of [11, 12, 13]) {
      await outbox.queue({
        connectionId,
        vaultId: harness.vaultId,
        operation: 'readout.update',
        payload: { row: rowId, readouts: { [assay.responseId]: { value } } },
      })
    }
    const pending = outbox.pendingFor(connectionId, harness.vaultId, 'readout_rows', { id: rowId })
    expect(pending?.record.readouts).toMatchObject({ [assay.responseId]: { value: 13 } })
    outbox.start()
    await settled(outbox)
    const row = await harness.client().readoutRows.get(harness.vaultId, rowId)
    expect(row.readouts?.[assay.responseId]).toMatchObject({ value: 13 })
    expect(
      outbox.pendingFor(connectionId, harness.vaultId, 'readout_rows', { id: rowId }),
    ).toBeNull()
  })

  it('keeps sending other items when the server refuses one (422), which the person fixes', async () => {
    const { outbox } = harness.open()
    const ids = harness.moleculeIds(3)
    const [refused] = await outbox.queue({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'molecule.update',
      payload: { molecule: ids[0]!, changes: { udfs: { 'No such field': 'x' } } },
    })
    for (const id of ids.slice(1)) {
      await outbox.queue({
        connectionId,
        vaultId: harness.vaultId,
        operation: 'molecule.update',
        payload: { molecule: id, changes: { synonyms: [`Synonym of ${id}`] } },
      })
    }
    outbox.start()
    await settled(outbox)
    expect(outbox.item(refused!.id)).toMatchObject({
      state: 'needs_attention',
      lastError: expect.stringContaining('No such field'),
    })
    expect(byState(outbox.list({ states: ['sent'] }))).toEqual({ sent: 2 })

    // An edit corrects what the declaration lets the person correct, never what it changes.
    await expect(
      outbox.edit(refused!.id, { molecule: ids[1]!, changes: { synonyms: ['Moved'] } }),
    ).rejects.toThrow(`An edit of item ${refused!.id} may change only changes, not molecule;`)
    await outbox.edit(refused!.id, { molecule: ids[0]!, changes: { synonyms: ['Fixed'] } })
    await waitUntil('the fixed item is sent', () => outbox.item(refused!.id).state === 'sent')
    await expect(
      outbox.edit(refused!.id, { molecule: ids[0]!, changes: { synonyms: ['Late'] } }),
    ).rejects.toThrow(`Item ${refused!.id} is sent; it cannot be edited.`)
  })

  it('never edits an upload: its copy and its target stay as queued', async () => {
    const { outbox } = harness.open()
    const [moleculeId, otherId] = harness.moleculeIds(2)
    const [upload] = await outbox.queue({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'file.attach',
      file: tempFile('gel.png', 'not really a picture'),
      target: { kind: 'molecule', ref: { id: moleculeId! } },
    })
    await expect(
      outbox.edit(upload!.id, { target: { kind: 'molecule', ref: { id: otherId! } } }),
    ).rejects.toThrow(`Item ${upload!.id} is a file upload, which cannot be edited`)
    expect(outbox.item(upload!.id)).toMatchObject({
      state: 'queued',
      payload: { target: { kind: 'molecule', ref: { id: moleculeId } } },
    })
  })
})
