import type { InventorySampleWrite } from '../../../api/index.ts'
import { isObject, toId, type JsonObject } from '../../../../src-common/values.ts'
import { idsOf, newRecordOf } from './new-records.ts'
import { likenessLane } from '../lanes.ts'
import type { Operation, SendContext } from './operation.ts'
import { recordEdit } from './record-edit.ts'
import { sameValue } from './same-values.ts'
import {
  newSample,
  sampleCorrection,
  type NewSample,
  type SampleCorrection,
} from '../../../../src-common/outbox/payloads/inventory-samples.ts'

async function samplesOfBatch(context: SendContext, batchId: number): Promise<unknown[]> {
  const samples: unknown[] = []
  for await (const sample of context.client.inventory.samplesAll(
    context.vaultId,
    { batch_ids: [batchId] },
    context.options,
  )) {
    samples.push(sample)
  }
  return samples
}

function sampleWrite(payload: NewSample): InventorySampleWrite & { batch_id: number } {
  const { amount, note, ...sample } = payload
  return {
    ...sample,
    inventory_events: [{ event_type: 'Credit', amount, ...(note !== undefined ? { note } : {}) }],
  }
}

/**
 * A new sample of a batch, with its initial Credit event. A batch's samples are noted before the
 * first attempt: one more afterwards is the one sent.
 */
export const sampleCreate: Operation<NewSample> = {
  name: 'sample.create',
  schema: newSample,
  refs: () => [],
  lane: (payload) => likenessLane('sample_of_batch', payload.batch_id),
  overlay: (payload) => ({
    create: {
      batch_id: payload.batch_id,
      units: payload.units,
      current_amount: payload.amount,
      // Shown as the vault shows a sample's place, until the vault has it.
      ...(payload.location_id
        ? { location: { id: payload.location_id, position: payload.position ?? null } }
        : {}),
      ...(payload.fields ? { fields: payload.fields } : {}),
    },
  }),
  snapshot: async (context, payload) => ({
    ids: idsOf(await samplesOfBatch(context, payload.batch_id)),
  }),
  async send(context, payload) {
    const sample = await context.client.inventory.createSample(
      context.vaultId,
      sampleWrite(payload),
      context.options,
    )
    return { serverId: sample.id, record: sample, modifiedAt: sample.modified_at ?? null }
  },
  reconcile: (context, payload) =>
    newRecordOf(context, () => samplesOfBatch(context, payload.batch_id)),
}

function eventsOf(record: JsonObject): JsonObject[] {
  return Array.isArray(record.inventory_events) ? record.inventory_events.filter(isObject) : []
}

/**
 * Changes to a sample, with at most one event added or changed. A new event is not repeatable,
 * so the sample's event ids are noted before the first attempt to find it again.
 */
export const sampleUpdate = recordEdit<SampleCorrection>({
  name: 'sample.update',
  schema: sampleCorrection,
  read: (context, id) => context.client.inventory.sample(context.vaultId, id, {}, context.options),
  write: (context, id, payload) =>
    context.client.inventory.updateSample(
      context.vaultId,
      id,
      { ...payload.changes, ...(payload.event ? { inventory_events: [payload.event] } : {}) },
      context.options,
    ),
  async snapshot(context, payload) {
    if (payload.event === undefined || payload.event.id !== undefined) return null
    const id = context.resolve(payload.sample)
    const record = await context.client.inventory.sample(context.vaultId, id, {}, context.options)
    return { eventIds: eventsOf(record).map((event) => toId(event.id)) }
  },
  holds(payload, record, snapshot) {
    const known = new Set((snapshot as { eventIds?: number[] } | null)?.eventIds ?? [])
    const { location_id: locationId, fields, ...plain } = payload.changes
    const location = isObject(record.location) ? record.location.id : record.location_id
    const heldFields = isObject(record.fields) ? record.fields : {}
    const event = payload.event
    return (
      Object.entries(plain).every(([member, value]) => sameValue(value, record[member])) &&
      (locationId === undefined || sameValue(locationId, location)) &&
      Object.entries(fields ?? {}).every(([name, value]) => sameValue(value, heldFields[name])) &&
      (event === undefined ||
        eventsOf(record).some(
          (held) =>
            (event.id === undefined
              ? !known.has(toId(held.id) ?? -1)
              : sameValue(event.id, held.id)) &&
            (event.event_type === undefined || sameValue(event.event_type, held.event_type)) &&
            (event.amount === undefined || sameValue(event.amount, held.amount)),
        ))
    )
  },
  overlay: (payload) => ({
    set: {
      ...payload.changes,
      ...(payload.changes.location_id !== undefined
        ? {
            location:
              payload.changes.location_id === null ? null : { id: payload.changes.location_id },
          }
        : {}),
    },
  }),
})
