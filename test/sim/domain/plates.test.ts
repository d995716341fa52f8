import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../../src-sim/index.ts'
import { cast, idOf, objectsOf } from '../fixtures.ts'
import { record } from '../http.ts'
import { batchesIn, buildDoseResponse, type DoseResponseFixture } from './assay-fixture.ts'

let sim: VaultSim
let api: ReturnType<typeof cast>
let batches: number[]
let assay: DoseResponseFixture

beforeAll(async () => {
  sim = await startVaultSim({ seed: 16 })
  api = cast(sim)
  batches = batchesIn(sim, api.projects.kinase.id).map((batch) => batch.id)
  assay = buildDoseResponse(sim, {
    projectId: api.projects.kinase.id,
    name: 'Kinase',
    curves: [{ batchId: batches[0]!, ic50: 1 }],
  })
})

afterAll(() => sim.stop())

describe('POST /plates', () => {
  it('creates a plate with wells given by label or by row and column', async () => {
    const answer = await api.writer.post(`${api.main}/plates`, {
      name: 'Source 1',
      projects: [api.projects.kinase.name],
      location: 'Freezer B',
      concentration: 10,
      wells: [
        { pos: 'A01', batch: batches[0] },
        { row: 2, col: 3, batch: batches[1] },
        { pos: 'h12' },
      ],
    })
    expect(answer.status).toBe(200)
    expect(record(answer)).toMatchObject({
      class: 'plate',
      name: 'Source 1',
      size: 96,
      location: 'Freezer B',
      concentration: 10,
      volume: null,
      projects: [{ id: api.projects.kinase.id, name: api.projects.kinase.name }],
      wells: [
        { row: 1, col: 1, pos: 'A01', batch: batches[0], sample: null },
        { row: 2, col: 3, pos: 'B03', batch: batches[1], sample: null },
        { row: 8, col: 12, pos: 'H12', batch: null, sample: null },
      ],
      statistics: [],
    })
  })

  it('answers 422 naming what is wrong', async () => {
    const create = (body: Record<string, unknown>) =>
      api.writer.post(`${api.main}/plates`, {
        name: 'P',
        projects: [api.projects.kinase.id],
        ...body,
      })
    const cases: [Record<string, unknown>, string][] = [
      [{ name: undefined }, 'name is required'],
      [{ projects: [] }, 'projects is required'],
      [{ projects: [api.projects.confidential.id] }, 'projects[0]'],
      [{ size: 100 }, '100 is not a plate size'],
      [{ wells: [{ pos: 'M01' }] }, 'wells[0].pos "M01" is not a well of a 96-well plate'],
      [{ wells: [{ pos: 'A01', row: 1, col: 1 }] }, 'wells[0] must give a well either as pos'],
      [{ wells: [{ pos: 'A01' }, { row: 1, col: 1 }] }, 'wells[1] repeats well A01'],
      [
        { wells: [{ pos: 'A01', batch: 999999 }] },
        'wells[0].batch 999999 is not a batch of this vault',
      ],
      [{ wells: [{ pos: 'A01', sample: 999999 }] }, 'wells[0].sample'],
      [{ wells: [{ pos: 'A01', colour: 'red' }] }, "'wells[0].colour' is not a known parameter"],
    ]
    for (const [body, message] of cases) {
      const answer = await create(body)
      expect(answer.status, JSON.stringify(body)).toBe(422)
      expect(record(answer).error).toContain(message)
    }
  })

  it('needs write permission', async () => {
    expect(
      (
        await api.reader.post(`${api.main}/plates`, {
          name: 'P',
          projects: [api.projects.kinase.id],
        })
      ).status,
    ).toBe(401)
  })
})

describe('GET /plates and POST /plates/query', () => {
  it('lists plates of readable projects with only_ids, plates and projects filters', async () => {
    const page = record(await api.reader.get(`${api.main}/plates`))
    expect(objectsOf(page).map((plate) => plate.name)).toEqual(['Kinase plate', 'Source 1'])
    const ids = record(
      await api.reader.get(`${api.main}/plates`, { only_ids: true, plates: String(assay.plateId) }),
    )
    expect(ids.objects).toEqual([assay.plateId])
    expect(
      record(await api.admin.get(`${api.main}/plates`, { projects: String(api.projects.gpcr.id) }))
        .count,
    ).toBe(0)
  })

  it('filters by name only through the POST query form', async () => {
    const byName = record(
      await api.reader.post(`${api.main}/plates/query`, { names: ['Source 1'] }),
    )
    expect(objectsOf(byName).map((plate) => plate.name)).toEqual(['Source 1'])
    const viaGet = await api.reader.get(`${api.main}/plates`, { names: 'Source 1' })
    expect(viaGet.status).toBe(422)
    expect(record(viaGet).error).toContain('POST /plates/query')
  })
})

describe('GET /plates/{id}', () => {
  it('answers the plate with run statistics from its control wells, 404 when unknown', async () => {
    const plate = record(await api.reader.get(`${api.main}/plates/${assay.plateId}`))
    expect(plate.statistics).toEqual([
      expect.objectContaining({
        run: expect.objectContaining({ id: assay.runId }),
        readout_definition: { id: assay.responseId, name: '% Inhibition' },
        positive_controls: expect.objectContaining({ count: 4 }),
      }),
    ])
    expect((await api.reader.get(`${api.main}/plates/999999`)).status).toBe(404)
  })
})

describe('PUT /plates/{id}', () => {
  it('changes supplied fields and replaces the wells when wells are supplied', async () => {
    const created = record(
      await api.writer.post(`${api.main}/plates`, {
        name: 'Daughter',
        projects: [api.projects.kinase.id],
        wells: [{ pos: 'A01' }, { pos: 'A02' }],
      }),
    )
    const path = `${api.main}/plates/${idOf(created)}`
    const renamed = record(await api.writer.put(path, { name: 'Daughter 2', volume: 40 }))
    expect(renamed).toMatchObject({ name: 'Daughter 2', volume: 40 })
    expect(renamed.wells).toHaveLength(2)
    const rewelled = record(
      await api.writer.put(path, { wells: [{ pos: 'C05', batch: batches[2] }] }),
    )
    expect(rewelled.wells).toEqual([
      { row: 3, col: 5, pos: 'C05', batch: batches[2], sample: null },
    ])
    const resized = record(await api.writer.put(path, { size: 384, wells: [{ pos: 'P24' }] }))
    expect(resized).toMatchObject({ size: 384, wells: [{ pos: 'P24' }] })
    const shrink = await api.writer.put(path, { size: 6 })
    expect(shrink.status).toBe(422)
    expect(record(shrink).error).toContain('off the plate')
  })

  it('refuses to change the wells of a plate with run data, and checks permissions', async () => {
    const path = `${api.main}/plates/${assay.plateId}`
    const answer = await api.writer.put(path, { wells: [] })
    expect(answer.status).toBe(422)
    expect(record(answer).error).toContain('has run data')
    expect(record(await api.writer.put(path, { location: 'Shelf 3' })).location).toBe('Shelf 3')
    expect((await api.reader.put(path, { location: 'x' })).status).toBe(401)
    expect((await api.writer.put(`${api.main}/plates/999999`, { location: 'x' })).status).toBe(404)
    expect((await api.writer.put(path, { id: assay.plateId + 1000 })).status).toBe(422)
  })
})

describe('DELETE /plates/{id}', () => {
  it('deletes a plate without run data and answers 422 for a plate with run data', async () => {
    const created = record(
      await api.writer.post(`${api.main}/plates`, {
        name: 'Scratch',
        projects: [api.projects.kinase.id],
      }),
    )
    expect((await api.reader.delete(`${api.main}/plates/${idOf(created)}`)).status).toBe(401)
    const deleted = await api.writer.delete(`${api.main}/plates/${idOf(created)}`)
    expect(deleted.status).toBe(200)
    expect((await api.writer.get(`${api.main}/plates/${idOf(created)}`)).status).toBe(404)
    expect((await api.writer.delete(`${api.main}/plates/${idOf(created)}`)).status).toBe(404)
    const refused = await api.writer.delete(`${api.main}/plates/${assay.plateId}`)
    expect(refused.status).toBe(422)
    expect(record(refused).error).toContain(`Plate ${assay.plateId} has run data`)
  })
})
