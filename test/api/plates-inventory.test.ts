import { describe, expect, it } from 'vitest'
import { collect, expectApiError, useSim } from './support/sim.ts'

const harness = useSim()

async function someBatchIds(count: number): Promise<number[]> {
  const page = await harness
    .client()
    .batches.query(harness.vaults.main, { projects: [harness.projects.kinase], page_size: count })
  return page.objects.map((batch) => batch.id)
}

describe('plates', () => {
  it('lists plates page by page, by id and by name, and as an export', async () => {
    const plates = harness.client().plates
    const vault = harness.vaults.main
    const all = await collect(plates.queryAll(vault, {}, { pageSize: 2 }))
    expect(all.length).toBeGreaterThan(2)
    expect((await collect(plates.queryIds(vault))).sort()).toEqual(all.map((p) => p.id).sort())
    const byName = await plates.query(vault, { names: [all[0]!.name!] })
    expect(byName.objects.map((plate) => plate.id)).toEqual([all[0]!.id])
    expect(await collect((await plates.export(vault)).records())).toHaveLength(all.length)
  })

  it('creates a plate, replaces its wells, reads and deletes it', async () => {
    const plates = harness.client('writer').plates
    const vault = harness.vaults.main
    const [first, second] = await someBatchIds(2)
    const created = await plates.create(vault, {
      name: 'API-P1',
      projects: [harness.projects.kinase],
      size: 96,
      wells: [{ pos: 'A01', batch: first! }],
    })
    expect(created.wells).toEqual([expect.objectContaining({ pos: 'A01', batch: first })])
    const updated = await plates.update(vault, created.id, {
      wells: [
        { pos: 'B02', batch: second! },
        { row: 3, col: 3, batch: first! },
      ],
    })
    expect(updated.wells?.map((well) => well.pos).sort()).toEqual(['B02', 'C03'])
    expect((await plates.get(vault, created.id)).name).toBe('API-P1')
    await plates.delete(vault, created.id)
    await expectApiError(plates.get(vault, created.id), 'not_found', 404)
    await expectApiError(plates.update(vault, created.id, { name: 'x' }), 'not_found', 404)
    await expectApiError(plates.delete(vault, created.id), 'not_found', 404)
  })

  it('answers 422 for a bad well, and for deleting a plate with run data', async () => {
    const plates = harness.client('admin').plates
    const vault = harness.vaults.main
    await expectApiError(
      plates.create(vault, {
        name: 'API-P2',
        projects: [harness.projects.kinase],
        size: 96,
        wells: [{ pos: 'Z99' }],
      }),
      'validation',
      422,
    )
    const [used] = (await plates.query(vault, { page_size: 1 })).objects
    await expectApiError(plates.delete(vault, used!.id), 'validation', 422)
    await expectApiError(plates.update(vault, used!.id, { size: 7 }), 'validation', 422)
  })
})

describe('control layouts', () => {
  it('lists layouts page by page, by id and as an export', async () => {
    const layouts = harness.client().controlLayouts
    const vault = harness.vaults.main
    const all = await collect(layouts.listAll(vault, {}, { pageSize: 1 }))
    expect(all.length).toBeGreaterThan(1)
    expect(all[0]?.control_wells?.[0]).toMatchObject({ control_state: expect.any(String) })
    expect((await collect(layouts.listIds(vault))).sort()).toEqual(all.map((l) => l.id).sort())
    expect(await collect((await layouts.export(vault)).records())).toHaveLength(all.length)
  })

  it('creates, reads and deletes a layout', async () => {
    const client = harness.client('writer')
    const vault = harness.vaults.main
    const [protocol] = (await client.protocols.list(vault, { page_size: 1 })).objects
    const created = await client.controlLayouts.create(vault, {
      protocol: protocol!.id,
      size: 96,
      control_wells: [
        { pos: 'H12', control_state: '+' },
        { row: 8, col: 11, control_state: '-' },
        { pos: 'H10', control_state: '#' },
      ],
    })
    expect(created.control_wells).toHaveLength(3)
    expect((await client.controlLayouts.get(vault, created.id)).size).toBe(96)
    await client.controlLayouts.delete(vault, created.id)
    await expectApiError(client.controlLayouts.get(vault, created.id), 'not_found', 404)
    await expectApiError(client.controlLayouts.delete(vault, created.id), 'not_found', 404)
  })

  it('answers 422 for a layout with two targets or an unknown control state', async () => {
    const client = harness.client('writer')
    const vault = harness.vaults.main
    const [protocol] = (await client.protocols.list(vault, { page_size: 1 })).objects
    const [run] = (await client.runs.list(vault, { page_size: 1 })).objects
    await expectApiError(
      client.controlLayouts.create(vault, {
        protocol: protocol!.id,
        run: run!.id,
        size: 96,
        control_wells: [{ pos: 'A01', control_state: '+' }],
      } as never),
      'validation',
      422,
    )
    await expectApiError(
      client.controlLayouts.create(vault, {
        protocol: protocol!.id,
        size: 96,
        control_wells: [{ pos: 'A01', control_state: '?' }],
      }),
      'validation',
      422,
    )
  })
})

describe('inventory', () => {
  it('lists locations as a tree', async () => {
    const locations = await harness.client().inventory.locations(harness.vaults.main)
    const child = locations.find((location) => location.parent_id !== null)
    expect(locations.map((location) => location.id)).toContain(child?.parent_id)
  })

  it('lists samples page by page and as an export, keeping microseconds', async () => {
    const inventory = harness.client().inventory
    const vault = harness.vaults.main
    const all = await collect(inventory.samplesAll(vault, { owner_id: true }, { pageSize: 7 }))
    expect(all.length).toBeGreaterThan(7)
    expect(all[0]?.created_at).toMatch(/\.\d{6}Z$/)
    expect(all[0]?.owner_id).toMatchObject({ id: expect.any(Number) })
    const latest = all
      .map((sample) => sample.modified_at!)
      .sort()
      .at(-1)!
    const since = await collect(inventory.samplesAll(vault, { modified_after: latest }))
    expect(since.length).toBeLessThan(all.length)
    expect(await collect((await inventory.exportSamples(vault)).records())).toHaveLength(all.length)
  })

  it('creates a sample, debits it, reads and deletes it', async () => {
    const inventory = harness.client('writer').inventory
    const vault = harness.vaults.main
    const [batchId] = await someBatchIds(1)
    const created = await inventory.createSample(vault, {
      batch_id: batchId!,
      units: 'mg',
      fields: {},
      inventory_events: [{ event_type: 'Credit', amount: 12.5, note: 'received' }],
    })
    expect(created.current_amount).toBe(12.5)
    const debited = await inventory.updateSample(vault, created.id, {
      inventory_events: [{ event_type: 'Debit', amount: 2.5 }],
    })
    expect(debited.current_amount).toBe(10)
    expect((await inventory.sample(vault, created.id, { owner_id: true })).owner_id).toBeDefined()
    await inventory.deleteSample(vault, created.id)
    await expectApiError(inventory.sample(vault, created.id), 'not_found', 404)
  })

  it('answers 422 for a sample that cannot be created or changed', async () => {
    const inventory = harness.client('writer').inventory
    const vault = harness.vaults.main
    const [batchId] = await someBatchIds(1)
    await expectApiError(
      inventory.createSample(vault, {
        batch_id: batchId!,
        units: 'mg',
        inventory_events: [{ event_type: 'Debit', amount: 1 }],
      }),
      'validation',
      422,
    )
    const [existing] = (await inventory.samples(vault, { page_size: 1 })).objects
    await expectApiError(
      inventory.updateSample(vault, existing!.id, { units: 'parsecs' as never }),
      'validation',
      422,
    )
  })

  it('refuses to delete a sample tied to a plate well (422)', async () => {
    const client = harness.client('admin')
    const vault = harness.vaults.main
    const plates = await collect(client.plates.queryAll(vault))
    const sampleId = plates
      .flatMap((plate) => plate.wells ?? [])
      .map((well) => well.sample)
      .find((sample) => typeof sample === 'number') as number | undefined
    if (sampleId === undefined) throw new Error('No seeded plate well holds an inventory sample.')
    await expectApiError(client.inventory.deleteSample(vault, sampleId), 'validation', 422)
  })
})
