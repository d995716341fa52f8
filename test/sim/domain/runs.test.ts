import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../../src-sim/index.ts'
import { cast, objectsOf } from '../fixtures.ts'
import { record } from '../http.ts'
import {
  batchesIn,
  buildDoseResponse,
  numberOf,
  type DoseResponseFixture,
} from './assay-fixture.ts'

let sim: VaultSim
let api: ReturnType<typeof cast>
let recent: DoseResponseFixture
let older: DoseResponseFixture
let gpcr: DoseResponseFixture

beforeAll(async () => {
  sim = await startVaultSim({ seed: 16 })
  api = cast(sim)
  const kinaseBatches = batchesIn(sim, api.projects.kinase.id)
  recent = buildDoseResponse(sim, {
    projectId: api.projects.kinase.id,
    name: 'Recent',
    curves: [{ batchId: kinaseBatches[0]!.id, ic50: 1 }],
    runDaysAgo: 2,
  })
  older = buildDoseResponse(sim, {
    projectId: api.projects.kinase.id,
    name: 'Older',
    curves: [{ batchId: kinaseBatches[1]!.id, ic50: 1 }],
    runDaysAgo: 40,
  })
  gpcr = buildDoseResponse(sim, {
    projectId: api.projects.gpcr.id,
    name: 'GPCR',
    curves: [{ batchId: batchesIn(sim, api.projects.gpcr.id)[0]!.id, ic50: 1 }],
  })
})

afterAll(() => sim.stop())

const day = (daysAgo: number): string =>
  new Date((sim.clock.nowSeconds() - daysAgo * 86_400) * 1000).toISOString().slice(0, 10)

describe('GET /runs and POST /runs/query', () => {
  it('lists the runs of readable projects, oldest run date first', async () => {
    const page = record(await api.admin.get(`${api.main}/runs`))
    expect(objectsOf(page).map((run) => run.id)).toEqual([older.runId, gpcr.runId, recent.runId])
    expect(objectsOf(page)[0]).toMatchObject({
      class: 'run',
      protocol: { id: older.protocolId, name: 'Older' },
      project: { id: api.projects.kinase.id },
      run_date: day(40),
      slurp: null,
    })
    const reader = record(await api.reader.get(`${api.main}/runs`, { only_ids: true }))
    expect(reader.objects).toEqual([older.runId, recent.runId])
  })

  it('filters by protocols, projects and run date (after inclusive, before exclusive)', async () => {
    const byProtocol = record(
      await api.admin.post(`${api.main}/runs/query`, { protocols: [recent.protocolId] }),
    )
    expect(objectsOf(byProtocol).map((run) => run.id)).toEqual([recent.runId])
    const byProject = record(
      await api.admin.get(`${api.main}/runs`, { projects: String(api.projects.gpcr.id) }),
    )
    expect(objectsOf(byProject).map((run) => run.id)).toEqual([gpcr.runId])
    const after = record(
      await api.admin.post(`${api.main}/runs/query`, { run_date_after: day(5), only_ids: true }),
    )
    expect(after.objects).toEqual([gpcr.runId, recent.runId])
    const before = record(
      await api.admin.post(`${api.main}/runs/query`, { run_date_before: day(5), only_ids: true }),
    )
    expect(before.objects).toEqual([older.runId])
    const bad = await api.admin.get(`${api.main}/runs`, { run_date_after: 'last week' })
    expect(bad.status).toBe(422)
    expect(record(bad).error).toContain('run_date_after')
  })

  it('filters by the slurp that imported the runs', async () => {
    const none = record(await api.admin.get(`${api.main}/runs`, { slurp: 77 }))
    expect(none.count).toBe(0)
  })
})

describe('GET /runs/{id}', () => {
  it('answers the run with plate statistics computed from its control wells', async () => {
    const run = record(await api.writer.get(`${api.main}/runs/${recent.runId}`))
    const statistics = run.plate_statistics as Record<string, unknown>[]
    expect(statistics).toHaveLength(1)
    const [inhibition] = statistics
    expect(inhibition).toMatchObject({
      plate: { id: recent.plateId },
      readout_definition: { id: recent.responseId, name: '% Inhibition' },
      positive_controls: { count: 4, mean: 99 },
      negative_controls: { count: 4, mean: 1 },
    })
    // Controls at 98/100 and 0/2: σ = 1.155 each, so Z' = 1 - 3·2.309/98.
    expect(numberOf(inhibition!.z_prime)).toBeCloseTo(1 - (3 * 2 * Math.sqrt(4 / 3)) / 98, 3)
    expect(numberOf(inhibition!.signal_to_background)).toBeCloseTo(99, 3)
  })

  it('answers 404 for an unknown run and for a run in a project the user cannot read', async () => {
    expect((await api.writer.get(`${api.main}/runs/999999`)).status).toBe(404)
    expect((await api.reader.get(`${api.main}/runs/${gpcr.runId}`)).status).toBe(404)
  })
})

describe('PUT /runs/{id}', () => {
  it('changes supplied fields only', async () => {
    const answer = record(
      await api.writer.put(`${api.main}/runs/${recent.runId}`, {
        person: 'D. Hodgkin',
        run_date: day(3),
      }),
    )
    expect(answer).toMatchObject({ person: 'D. Hodgkin', run_date: day(3), place: '' })
  })

  it('moves the run to another project of its protocol with project_id', async () => {
    await api.writer.put(`${api.main}/protocols/${older.protocolId}`, {
      projects: [api.projects.kinase.id, api.projects.gpcr.id],
    })
    const moved = record(
      await api.writer.put(`${api.main}/runs/${older.runId}`, { project_id: api.projects.gpcr.id }),
    )
    expect(moved.project).toEqual({ id: api.projects.gpcr.id, name: api.projects.gpcr.name })
    // The reader belongs to the kinase project only, so the run has moved out of their sight.
    expect((await api.reader.get(`${api.main}/runs/${older.runId}`)).status).toBe(404)
  })

  it('refuses a project that is not the protocol’s, a bad date and unknown members with 422', async () => {
    const notShared = await api.writer.put(`${api.main}/runs/${recent.runId}`, {
      project_id: api.projects.gpcr.id,
    })
    expect(notShared.status).toBe(422)
    expect(record(notShared).error).toContain('project_id')
    expect(
      (await api.writer.put(`${api.main}/runs/${recent.runId}`, { run_date: '31/12/2024' })).status,
    ).toBe(422)
    expect(
      (await api.writer.put(`${api.main}/runs/${recent.runId}`, { operator: 'x' })).status,
    ).toBe(422)
    expect(
      (await api.writer.put(`${api.main}/runs/${recent.runId}`, { id: recent.runId + 1 })).status,
    ).toBe(422)
  })

  it('answers 401 without write permission and 404 for an unknown run', async () => {
    expect((await api.reader.put(`${api.main}/runs/${recent.runId}`, { person: 'x' })).status).toBe(
      401,
    )
    expect((await api.writer.put(`${api.main}/runs/999999`, { person: 'x' })).status).toBe(404)
  })
})

describe('DELETE /runs/{id}', () => {
  it('deletes the run with its readout rows', async () => {
    const rows = record(
      await api.admin.post(`${api.main}/readout_rows/query`, {
        runs: [gpcr.runId],
        only_ids: true,
      }),
    )
    expect(rows.count).toBe(8 + 16 + 1)
    expect((await api.reader.delete(`${api.main}/runs/${gpcr.runId}`)).status).toBe(401)
    const answer = await api.writer.delete(`${api.main}/runs/${gpcr.runId}`)
    expect(answer.status).toBe(200)
    expect(record(answer).message).toContain('destroyed')
    expect((await api.writer.get(`${api.main}/runs/${gpcr.runId}`)).status).toBe(404)
    const after = record(
      await api.admin.post(`${api.main}/readout_rows/query`, {
        runs: [gpcr.runId],
        only_ids: true,
      }),
    )
    expect(after.count).toBe(0)
    expect((await api.writer.delete(`${api.main}/runs/${gpcr.runId}`)).status).toBe(404)
  })
})

describe('DELETE /runs?slurp=', () => {
  it('requires the slurp parameter and a slurp that exists', async () => {
    const missing = await api.writer.delete(`${api.main}/runs`)
    expect(missing.status).toBe(422)
    expect(record(missing).error).toContain('slurp')
    expect((await api.writer.delete(`${api.main}/runs`, { slurp: 4242 })).status).toBe(404)
  })
})
