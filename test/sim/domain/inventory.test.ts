import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../../src-sim/index.ts'
import { insertDetailRow } from '../../../src-sim/resources/domain/assay-builder.ts'
import { cast, idOf, objectsOf } from '../fixtures.ts'
import { list, record } from '../http.ts'
import { batchesIn, buildDoseResponse, numberOf } from './assay-fixture.ts'

let sim: VaultSim
let api: ReturnType<typeof cast>
let batches: number[]
let boxId: number
let shelfId: number

beforeAll(async () => {
  sim = await startVaultSim({ seed: 16 })
  api = cast(sim)
  batches = batchesIn(sim, api.projects.kinase.id).map((batch) => batch.id)
  const insert = sim.core.db.prepare(
    `INSERT INTO inventory_locations (vault_id, parent_id, name, num_rows, num_columns, position_limit, created_at, modified_at)
     VALUES (?, ?, ?, ?, ?, ?, 0, 0)`,
  )
  const freezer = Number(
    insert.run(api.vaults.main.id, null, 'Freezer', null, null, null).lastInsertRowid,
  )
  boxId = Number(insert.run(api.vaults.main.id, freezer, 'Box 1', 2, 2, 4).lastInsertRowid)
  shelfId = Number(insert.run(api.vaults.main.id, freezer, 'Shelf', null, null, 1).lastInsertRowid)
})

afterAll(() => sim.stop())

const credit = (amount: number) => ({ inventory_events: [{ event_type: 'Credit', amount }] })
const createSample = (body: Record<string, unknown>) =>
  api.writer.post(`${api.main}/inventory_samples`, body)

describe('GET /inventory_locations', () => {
  it('answers the location tree with how many samples each holds', async () => {
    await createSample({ batch_id: batches[0], units: 'mg', location_id: shelfId, ...credit(5) })
    const locations = list(await api.reader.get(`${api.main}/inventory_locations`))
    expect(locations.map((location) => [location.value, location.parent_id === null])).toEqual([
      ['Freezer', true],
      ['Box 1', false],
      ['Shelf', false],
    ])
    expect(locations[1]).toMatchObject({
      num_rows: 2,
      num_columns: 2,
      position_limit: 4,
      filled_position_count: 0,
    })
    expect(locations[2]).toMatchObject({ filled_position_count: 1 })
  })
})

describe('POST /inventory_samples', () => {
  it('creates a sample from a credit of its initial amount, with microsecond timestamps', async () => {
    const answer = await createSample({
      batch_id: batches[1],
      units: 'µL',
      location_id: boxId,
      position: 'a2',
      fields: { Solvent: 'DMSO' },
      inventory_events: [{ event_type: 'Credit', amount: '250', note: 'from synthesis' }],
    })
    expect(answer.status).toBe(200)
    const sample = record(answer)
    expect(sample).toMatchObject({
      class: 'inventory sample',
      batch_id: batches[1],
      units: 'µL',
      current_amount: 250,
      location: { id: boxId, value: 'Box 1', position: 'A02' },
      fields: { Solvent: 'DMSO' },
      owner: 'Rosalind Franklin',
      inventory_events: [
        { event_type: 'Credit', amount: 250, note: 'from synthesis', owner: 'Rosalind Franklin' },
      ],
    })
    expect(sample.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)
  })

  it('answers 422 without a credit event, with several events, and for bad placements', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ batch_id: batches[0], units: 'mg' }, 'exactly one Credit event'],
      [
        {
          batch_id: batches[0],
          units: 'mg',
          inventory_events: [{ event_type: 'Debit', amount: 1 }],
        },
        'must be Credit',
      ],
      [
        {
          batch_id: batches[0],
          units: 'mg',
          ...credit(1),
          inventory_events: [
            { event_type: 'Credit', amount: 1 },
            { event_type: 'Credit', amount: 2 },
          ],
        },
        'exactly one',
      ],
      [
        {
          batch_id: batches[0],
          units: 'mg',
          inventory_events: [{ event_type: 'Credit', amount: -3 }],
        },
        'must be positive',
      ],
      [{ batch_id: batches[0], units: 'bushels', ...credit(1) }, 'units'],
      [{ batch_id: 999999, units: 'mg', ...credit(1) }, 'batch_id 999999 is not a batch'],
      [
        { batch_id: batches[0], units: 'mg', location_id: 999999, ...credit(1) },
        'location_id 999999',
      ],
      [
        { batch_id: batches[0], units: 'mg', location_id: boxId, position: 'C1', ...credit(1) },
        'is not a position of location',
      ],
      [
        { batch_id: batches[0], units: 'mg', location_id: boxId, position: 'A2', ...credit(1) },
        'already holds a sample',
      ],
      [{ batch_id: batches[0], units: 'mg', location_id: shelfId, ...credit(1) }, 'is full'],
      [
        { batch_id: batches[0], units: 'mg', position: 'A1', ...credit(1) },
        'position needs a location_id',
      ],
      [
        { batch_id: batches[0], units: 'mg', fields: { Colour: 'white' }, ...credit(1) },
        'fields.Colour is not an inventory sample field of this vault (known: Solvent, Concentration, Form, Tare (mg), Prepared On)',
      ],
      [
        { batch_id: batches[0], units: 'mg', fields: { 'Tare (mg)': 'heavy' }, ...credit(1) },
        'fields.Tare (mg) must be a number, got "heavy"',
      ],
      [
        { batch_id: batches[0], units: 'mg', fields: { 'Prepared On': '2/11/2026' }, ...credit(1) },
        'must be a date as YYYY-MM-DD',
      ],
      [
        { batch_id: batches[0], units: 'mg', fields: { Solvent: 'acetone' }, ...credit(1) },
        "fields.Solvent must be one of 'DMSO', 'Ethanol', 'Methanol', 'Water', got \"acetone\"",
      ],
    ]
    for (const [body, message] of cases) {
      const answer = await createSample(body)
      expect(answer.status, JSON.stringify(body)).toBe(422)
      expect(record(answer).error).toContain(message)
    }
    expect(
      (
        await api.reader.post(`${api.main}/inventory_samples`, {
          batch_id: batches[0],
          units: 'mg',
          ...credit(1),
        })
      ).status,
    ).toBe(401)
  })
})

describe('inventory sample fields', () => {
  it('are listed among the vault fields and typed on a new sample', async () => {
    const fields = record(await api.reader.get(`${api.main}/fields`))
    expect(
      (fields.inventory_sample as Record<string, unknown>[]).map((field) => [
        field.type,
        field.name,
        field.data_type_name,
      ]),
    ).toEqual([
      ['InventorySampleFieldDefinition', 'Solvent', 'Pick List'],
      ['InventorySampleFieldDefinition', 'Concentration', 'Text'],
      ['InventorySampleFieldDefinition', 'Form', 'Pick List'],
      ['InventorySampleFieldDefinition', 'Tare (mg)', 'Number'],
      ['InventorySampleFieldDefinition', 'Prepared On', 'Date'],
    ])
    const solvent = (fields.inventory_sample as { id: number; name: string }[])[0]!
    const picks = objectsOf(
      record(await api.reader.get(`${api.main}/fields/${solvent.id}/pick_list_values`)),
    ).map((pick) => pick.value)
    expect(picks).toEqual(['DMSO', 'Water', 'Ethanol', 'Methanol'])
    const sample = record(
      await createSample({
        batch_id: batches[3],
        units: 'µL',
        fields: { Solvent: 'DMSO', 'Tare (mg)': '0.5', 'Prepared On': '2026-11-02', Form: '' },
        ...credit(50),
      }),
    )
    expect(sample.fields).toEqual({
      Solvent: 'DMSO',
      'Tare (mg)': 0.5,
      'Prepared On': '2026-11-02',
    })
    // Later tests count the samples: this one goes.
    expect((await api.writer.delete(`${api.main}/inventory_samples/${idOf(sample)}`)).status).toBe(
      200,
    )
  })
})

describe('PUT /inventory_samples/{id}', () => {
  it('changes supplied fields and adds or changes at most one event per request', async () => {
    const sample = record(
      await createSample({
        batch_id: batches[2],
        units: 'mg',
        fields: { Form: 'powder' },
        ...credit(10),
      }),
    )
    const path = `${api.main}/inventory_samples/${idOf(sample)}`
    const debited = record(
      await api.writer.put(path, {
        fields: { 'Tare (mg)': '1.25' },
        inventory_events: [{ event_type: 'Debit', amount: 2.5 }],
      }),
    )
    expect(debited).toMatchObject({
      current_amount: 7.5,
      fields: { Form: 'powder', 'Tare (mg)': 1.25 },
      units: 'mg',
    })
    const events = debited.inventory_events as { id: number; amount: number }[]
    expect(events).toHaveLength(2)
    const corrected = record(
      await api.writer.put(path, { inventory_events: [{ id: events[1]!.id, amount: 4 }] }),
    )
    expect(corrected.current_amount).toBe(6)
    // An empty value clears a field; the others stay.
    expect(record(await api.writer.put(path, { fields: { Form: '' } })).fields).toEqual({
      'Tare (mg)': 1.25,
    })
    const unknown = await api.writer.put(path, { fields: { Colour: 'white' } })
    expect(unknown.status).toBe(422)
    expect(record(unknown).error).toContain('Colour')
    const two = await api.writer.put(path, {
      inventory_events: [
        { event_type: 'Debit', amount: 1 },
        { event_type: 'Debit', amount: 1 },
      ],
    })
    expect(two.status).toBe(422)
    expect(record(two).error).toContain('at most one event')
    const overdrawn = await api.writer.put(path, {
      inventory_events: [{ event_type: 'Debit', amount: 100 }],
    })
    expect(overdrawn.status).toBe(422)
    expect(record(overdrawn).error).toContain('negative amount')
    expect(
      (await api.writer.put(path, { inventory_events: [{ id: 999999, amount: 1 }] })).status,
    ).toBe(422)
    expect((await api.writer.put(path, { batch_id: batches[0] })).status).toBe(422)
    expect((await api.reader.put(path, { units: 'g' })).status).toBe(401)
    expect(
      (await api.writer.put(`${api.main}/inventory_samples/999999`, { units: 'g' })).status,
    ).toBe(404)
  })
})

describe('GET /inventory_samples and POST /inventory_samples/query', () => {
  it('pages samples with batch, id and microsecond date filters', async () => {
    const all = record(await api.reader.get(`${api.main}/inventory_samples`))
    expect(all.count).toBe(3)
    const byBatch = record(
      await api.reader.get(`${api.main}/inventory_samples`, { batch_ids: String(batches[1]) }),
    )
    expect(objectsOf(byBatch).map((sample) => sample.batch_id)).toEqual([batches[1]])
    sim.clock.freeze()
    sim.clock.set(Math.floor(sim.clock.nowMillis() / 1000) * 1000 + 1000.5)
    let first: Record<string, unknown>, second: Record<string, unknown>
    try {
      first = record(await createSample({ batch_id: batches[0], units: 'g', ...credit(1) }))
      sim.clock.advance(0.3)
      second = record(await createSample({ batch_id: batches[0], units: 'g', ...credit(1) }))
    } finally {
      sim.clock.resume()
    }
    expect(String(first.created_at).slice(0, 19)).toBe(String(second.created_at).slice(0, 19))
    // Made in the same second, the two samples are told apart by their microseconds.
    const after = record(
      await api.reader.post(`${api.main}/inventory_samples/query`, {
        created_after: second.created_at,
      }),
    )
    expect(objectsOf(after).map(idOf)).toEqual([idOf(second)])
    const before = record(
      await api.reader.post(`${api.main}/inventory_samples/query`, {
        created_before: second.created_at,
      }),
    )
    expect(objectsOf(before).map(idOf)).toContain(idOf(first))
    expect(objectsOf(before).map(idOf)).not.toContain(idOf(second))
    const byIds = await api.reader.get(`${api.main}/inventory_samples`, {
      inventory_sample_ids: `${idOf(first!)},999999`,
    })
    expect(byIds.status).toBe(404)
    expect(record(byIds).error).toContain('999999')
  })

  it('adds the owner_id object to samples and events when asked', async () => {
    const page = record(
      await api.reader.get(`${api.main}/inventory_samples`, { owner_id: true, page_size: 1 }),
    )
    const [sample] = objectsOf(page)
    expect(sample!.owner_id).toEqual({
      id: api.users.writer.id,
      first_name: 'Rosalind',
      last_name: 'Franklin',
    })
    expect((sample!.inventory_events as Record<string, unknown>[])[0]!.owner_id).toMatchObject({
      id: api.users.writer.id,
    })
    const one = record(
      await api.reader.get(`${api.main}/inventory_samples/${idOf(sample!)}`, { owner_id: true }),
    )
    expect(one.owner_id).toMatchObject({ first_name: 'Rosalind' })
    expect(
      record(await api.reader.get(`${api.main}/inventory_samples/${idOf(sample!)}`)),
    ).not.toHaveProperty('owner_id')
    expect((await api.reader.get(`${api.main}/inventory_samples/999999`)).status).toBe(404)
  })
})

describe('DELETE /inventory_samples/{id}', () => {
  it('deletes a free sample and answers 422 for one tied to a plate well or to readout rows', async () => {
    const free = record(await createSample({ batch_id: batches[0], units: 'mg', ...credit(1) }))
    expect((await api.writer.delete(`${api.main}/inventory_samples/${idOf(free)}`)).status).toBe(
      200,
    )
    expect((await api.writer.get(`${api.main}/inventory_samples/${idOf(free)}`)).status).toBe(404)

    const inWell = record(await createSample({ batch_id: batches[0], units: 'mg', ...credit(1) }))
    await api.writer.post(`${api.main}/plates`, {
      name: 'Source',
      projects: [api.projects.kinase.id],
      wells: [{ pos: 'A01', batch: batches[0], sample: idOf(inWell) }],
    })
    const wellRefusal = await api.writer.delete(`${api.main}/inventory_samples/${idOf(inWell)}`)
    expect(wellRefusal.status).toBe(422)
    expect(record(wellRefusal).error).toContain('1 plate wells')

    const inAssay = record(await createSample({ batch_id: batches[0], units: 'mg', ...credit(1) }))
    const assay = buildDoseResponse(sim, {
      projectId: api.projects.kinase.id,
      name: 'Tied',
      curves: [],
    })
    insertDetailRow(sim.core.db, {
      vaultId: api.vaults.main.id,
      protocolId: assay.protocolId,
      runId: assay.runId,
      batchId: batches[0]!,
      sampleId: idOf(inAssay),
      cells: { [assay.responseId]: { value: 50 } },
      at: sim.clock.nowSeconds(),
    })
    const readoutRefusal = await api.writer.delete(`${api.main}/inventory_samples/${idOf(inAssay)}`)
    expect(readoutRefusal.status).toBe(422)
    expect(record(readoutRefusal).error).toContain('readout rows of a protocol')
    expect((await api.reader.delete(`${api.main}/inventory_samples/${idOf(inAssay)}`)).status).toBe(
      401,
    )
  })
})

describe('a vault without inventory', () => {
  it('answers 404 to every inventory operation', async () => {
    sim.core.db
      .prepare(`UPDATE vaults SET inventory_fields = 0 WHERE id = ?`)
      .run(api.vaults.main.id)
    try {
      const locations = await api.admin.get(`${api.main}/inventory_locations`)
      expect(locations.status).toBe(404)
      expect(record(locations).error).toContain('Inventory is not enabled')
      const fields = record(await api.admin.get(`${api.main}/fields`))
      expect(Object.keys(fields)).toEqual(['internal', 'molecule', 'batch', 'protocol'])
      expect((await api.admin.get(`${api.main}/inventory_samples`)).status).toBe(404)
      expect((await createSample({ batch_id: batches[0], units: 'mg', ...credit(1) })).status).toBe(
        404,
      )
    } finally {
      sim.core.db
        .prepare(`UPDATE vaults SET inventory_fields = 1 WHERE id = ?`)
        .run(api.vaults.main.id)
    }
    expect(
      numberOf(record(await api.admin.get(`${api.main}/inventory_samples`)).count),
    ).toBeGreaterThan(0)
  })
})
