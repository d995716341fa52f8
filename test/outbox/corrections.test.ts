import { describe, expect, it } from 'vitest'
import { batchesIn } from '../sim/domain/assay-fixture.ts'
import { byState, connectionId, settled, useOutboxHarness } from './support/outbox-harness.ts'

const harness = useOutboxHarness()

describe('corrections of every kind', () => {
  it('sends batch fields, collections, plates and inventory samples, those created offline first', async () => {
    const { outbox, cache } = harness.open({ user: 'writer' })
    const vaultId = harness.vaultId
    const kinase = harness.sim.cast.projects.kinase.id
    const [batch, second] = batchesIn(harness.sim, kinase)
    const queue = (operation: string, payload: unknown) =>
      outbox.queue({ connectionId, vaultId, operation, payload } as Parameters<
        typeof outbox.queue
      >[0])

    await queue('batch.update', {
      batch: batch!.id,
      changes: { name: 'L-2207' },
    })
    const [collection] = await queue('collection.create', {
      name: 'Offline picks',
      molecules: [batch!.moleculeId],
    })
    await queue('collection.add', {
      collection: { item: collection!.id },
      molecules: [second!.moleculeId],
    })
    const [plate] = await queue('plate.create', {
      name: 'Offline plate',
      projects: [kinase],
      size: 96,
    })
    await queue('plate.update', {
      plate: { item: plate!.id },
      changes: { location: 'Freezer 2', wells: [{ pos: 'A01', batch: batch!.id }] },
    })
    const [sample] = await queue('sample.create', { batch_id: batch!.id, units: 'mg', amount: 25 })
    await queue('sample.update', {
      sample: { item: sample!.id },
      changes: {},
      event: { event_type: 'Debit', amount: 5, note: 'weighed out' },
    })
    const [placed] = await queue('sample.create', {
      batch_id: second!.id,
      units: 'mL',
      amount: 2,
      location_id: 4242,
      position: 'B07',
    })
    // Waiting in the outbox, a new sample shows where it will be kept, as the vault will show it.
    const waiting = outbox.pendingList(connectionId, vaultId, 'inventory_samples')
    expect(waiting.find((pending) => pending.createdBy === placed!.id)?.record).toMatchObject({
      batch_id: second!.id,
      location: { id: 4242, position: 'B07' },
    })
    // This vault has no such location: the sample is not sent.
    await outbox.discard(placed!.id)
    expect(outbox.pendingList(connectionId, vaultId, 'collections')[0]?.record).toMatchObject({
      name: 'Offline picks',
      molecules: [batch!.moleculeId, second!.moleculeId],
    })

    outbox.start()
    await settled(outbox)
    expect(
      byState(outbox.list({ states: ['sent', 'needs_attention', 'conflict', 'uncertain'] })),
    ).toEqual({
      sent: 7,
    })

    const client = harness.client('writer')
    expect((await client.batches.get(vaultId, batch!.id)).name).toBe('L-2207')
    const collectionId = outbox.item(collection!.id).serverId!
    expect((await client.collections.get(vaultId, collectionId)).molecules?.sort()).toEqual(
      [batch!.moleculeId, second!.moleculeId].sort(),
    )
    const plateRecord = await client.plates.get(vaultId, outbox.item(plate!.id).serverId!)
    expect(plateRecord).toMatchObject({ name: 'Offline plate', location: 'Freezer 2' })
    const sampleRecord = await client.inventory.sample(vaultId, outbox.item(sample!.id).serverId!)
    expect(sampleRecord.current_amount).toBe(20)
    expect(cache.get('inventory_samples', vaultId, sampleRecord.id)).toMatchObject({
      current_amount: 20,
    })
  })

  it('detects a plate changed on the server since editing began, and keeps the server’s copy when asked', async () => {
    const { outbox, cache } = harness.open({ user: 'writer' })
    const vaultId = harness.vaultId
    const client = harness.client('writer')
    const plate = await client.plates.create(vaultId, {
      name: 'Shared plate',
      projects: [harness.sim.cast.projects.kinase.id],
      size: 96,
    })
    cache.applyPage('plates', vaultId, [plate])
    harness.sim.clock.advance(5_000)
    await client.plates.update(vaultId, plate.id, { location: 'Bench 4' })

    const [edit] = await outbox.queue({
      connectionId,
      vaultId,
      operation: 'plate.update',
      payload: { plate: { id: plate.id }, changes: { location: 'Cold room' } },
    })
    outbox.start()
    await settled(outbox)
    expect(outbox.item(edit!.id)).toMatchObject({
      state: 'conflict',
      theirs: expect.objectContaining({ location: 'Bench 4' }),
    })
    await outbox.resolveConflict(edit!.id, 'theirs')
    expect(outbox.item(edit!.id).state).toBe('cancelled')
    expect(cache.get('plates', vaultId, plate.id)).toMatchObject({ location: 'Bench 4' })
    expect((await client.plates.get(vaultId, plate.id)).location).toBe('Bench 4')
  })
})
