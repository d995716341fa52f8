import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../../src-sim/index.ts'
import { cast, idOf, objectsOf } from '../fixtures.ts'
import { record } from '../http.ts'
import { batchesIn, buildDoseResponse, type DoseResponseFixture } from './assay-fixture.ts'

let sim: VaultSim
let api: ReturnType<typeof cast>
let kinase: DoseResponseFixture
let gpcr: DoseResponseFixture

beforeAll(async () => {
  sim = await startVaultSim({ seed: 16 })
  api = cast(sim)
  kinase = buildDoseResponse(sim, {
    projectId: api.projects.kinase.id,
    name: 'Kinase',
    curves: [{ batchId: batchesIn(sim, api.projects.kinase.id)[0]!.id, ic50: 1 }],
  })
  gpcr = buildDoseResponse(sim, {
    projectId: api.projects.gpcr.id,
    name: 'GPCR',
    curves: [{ batchId: batchesIn(sim, api.projects.gpcr.id)[0]!.id, ic50: 1 }],
  })
})

afterAll(() => sim.stop())

const create = (body: Record<string, unknown>) =>
  api.writer.post(`${api.main}/control_layouts`, body)

describe('POST /control_layouts', () => {
  it('creates a protocol layout sized by a size, with wells as row/col or pos and every control state', async () => {
    const answer = await create({
      protocol: kinase.protocolId,
      size: 384,
      control_wells: [
        { row: 1, col: 1, control_state: '-' },
        { pos: 'P24', control_state: '+' },
        { pos: 'B01', control_state: '#' },
      ],
    })
    expect(answer.status).toBe(200)
    expect(record(answer)).toMatchObject({
      class: 'control layout',
      protocol: kinase.protocolId,
      run: null,
      plate_id: null,
      size: 384,
      control_wells: [
        { row: 1, col: 1, pos: 'A01', control_state: '-' },
        { row: 2, col: 1, pos: 'B01', control_state: '#' },
        { row: 16, col: 24, pos: 'P24', control_state: '+' },
      ],
    })
  })

  it('creates a run layout sized by a plate', async () => {
    const answer = record(
      await create({
        run: kinase.runId,
        plate: kinase.plateId,
        control_wells: [{ pos: 'H12', control_state: '+' }],
      }),
    )
    expect(answer).toMatchObject({
      run: kinase.runId,
      protocol: null,
      plate_id: kinase.plateId,
      size: 96,
    })
  })

  it('answers 422 unless exactly one target and exactly one dimension are given, and for bad wells', async () => {
    const wells = [{ pos: 'A01', control_state: '+' }]
    const cases: [Record<string, unknown>, string][] = [
      [{ size: 96, control_wells: wells }, 'exactly one of the two must be given as the target'],
      [
        { protocol: kinase.protocolId, run: kinase.runId, size: 96, control_wells: wells },
        'as the target',
      ],
      [
        { protocol: kinase.protocolId, control_wells: wells },
        'exactly one of the two must give the dimensions',
      ],
      [
        { protocol: kinase.protocolId, size: 96, plate: kinase.plateId, control_wells: wells },
        'give the dimensions',
      ],
      [{ protocol: kinase.protocolId, size: 95, control_wells: wells }, '95 is not a plate size'],
      [{ protocol: kinase.protocolId, size: 96 }, 'control_wells is required'],
      [
        {
          protocol: kinase.protocolId,
          size: 96,
          control_wells: [{ pos: 'A01', control_state: '?' }],
        },
        "must be one of '+', '-', '#'",
      ],
      [
        { protocol: kinase.protocolId, size: 96, control_wells: [{ pos: 'A01' }] },
        'control_state is required',
      ],
      [
        {
          protocol: kinase.protocolId,
          size: 96,
          control_wells: [{ row: 9, col: 1, control_state: '+' }],
        },
        'row 9, col 1 is not a well',
      ],
      [
        { protocol: kinase.protocolId, size: 96, control_wells: [{ control_state: '+' }] },
        'either as pos',
      ],
      [
        {
          protocol: kinase.protocolId,
          size: 96,
          control_wells: [...wells, { row: 1, col: 1, control_state: '-' }],
        },
        'repeats well A01',
      ],
      [
        { protocol: 999999, size: 96, control_wells: wells },
        'protocol 999999 is not a protocol of this vault',
      ],
      [{ run: 999999, size: 96, control_wells: wells }, 'run 999999 is not a run of this vault'],
      [
        { protocol: kinase.protocolId, plate: 999999, control_wells: wells },
        'plate 999999 is not a plate',
      ],
    ]
    for (const [body, message] of cases) {
      const answer = await create(body)
      expect(answer.status, JSON.stringify(body)).toBe(422)
      expect(record(answer).error).toContain(message)
    }
  })

  it('needs write permission on the target', async () => {
    const body = {
      protocol: kinase.protocolId,
      size: 96,
      control_wells: [{ pos: 'A01', control_state: '+' }],
    }
    expect((await api.reader.post(`${api.main}/control_layouts`, body)).status).toBe(401)
  })
})

describe('GET /control_layouts and POST /control_layouts/query', () => {
  it('lists the layouts the user reads, by project and creation date', async () => {
    const gpcrLayout = record(
      await api.admin.post(`${api.main}/control_layouts`, {
        protocol: gpcr.protocolId,
        size: 96,
        control_wells: [{ pos: 'A01', control_state: '-' }],
      }),
    )
    const all = record(await api.admin.get(`${api.main}/control_layouts`))
    expect(all.count).toBe(3)
    const reader = record(
      await api.reader.post(`${api.main}/control_layouts/query`, { only_ids: true }),
    )
    expect(reader.objects).not.toContain(idOf(gpcrLayout))
    expect(reader.objects).toHaveLength(2)
    const byProject = record(
      await api.admin.get(`${api.main}/control_layouts`, {
        projects: String(api.projects.gpcr.id),
      }),
    )
    expect(objectsOf(byProject).map(idOf)).toEqual([idOf(gpcrLayout)])
    const tomorrow = new Date((sim.clock.nowSeconds() + 86_400) * 1000).toISOString().slice(0, 10)
    expect(
      record(await api.admin.get(`${api.main}/control_layouts`, { created_after: tomorrow })).count,
    ).toBe(0)
    expect(
      record(await api.admin.get(`${api.main}/control_layouts`, { created_before: tomorrow }))
        .count,
    ).toBe(3)
  })
})

describe('GET and DELETE /control_layouts/{id}', () => {
  it('shows a layout, deletes it with an empty 200, and answers 404 afterwards', async () => {
    const layout = record(
      await create({
        protocol: kinase.protocolId,
        size: 6,
        control_wells: [{ pos: 'B3', control_state: '+' }],
      }),
    )
    const path = `${api.main}/control_layouts/${idOf(layout)}`
    expect(record(await api.reader.get(path)).control_wells).toEqual([
      { row: 2, col: 3, pos: 'B03', control_state: '+' },
    ])
    expect((await api.reader.delete(path)).status).toBe(401)
    const deleted = await api.writer.delete(path)
    expect(deleted.status).toBe(200)
    expect(deleted.bytes.length).toBe(0)
    expect((await api.writer.get(path)).status).toBe(404)
    expect((await api.writer.delete(path)).status).toBe(404)
  })
})
