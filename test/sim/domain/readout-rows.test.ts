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
let assay: DoseResponseFixture
let batchId: number

interface Row {
  id: number
  type: string
  batch: number | null
  molecule: number | null
  well?: string
  control_state?: string
  readouts: Record<
    string,
    { value?: number | string; outlier?: boolean; note?: string; modifier?: string }
  >
}

beforeAll(async () => {
  sim = await startVaultSim({ seed: 16 })
  api = cast(sim)
  batchId = batchesIn(sim, api.projects.kinase.id)[0]!.id
  assay = buildDoseResponse(sim, {
    projectId: api.projects.kinase.id,
    name: 'Kinase',
    curves: [{ batchId, ic50: 1 }],
  })
})

afterAll(() => sim.stop())

async function rows(body: Record<string, unknown>): Promise<Row[]> {
  const answer = await api.writer.post(`${api.main}/readout_rows/query`, {
    page_size: 1000,
    ...body,
  })
  expect(answer.status).toBe(200)
  return objectsOf(record(answer)) as unknown as Row[]
}

async function aggregateIc50(): Promise<number> {
  const [aggregate] = await rows({ runs: [assay.runId], type: 'aggregate' })
  return numberOf(aggregate!.readouts[String(assay.resultId)]!.value)
}

describe('POST /readout_rows/query', () => {
  it('answers detail rows with wells and control states, and aggregate rows', async () => {
    const all = await rows({ runs: [assay.runId] })
    expect(all).toHaveLength(8 + 16 + 1)
    const control = all.find((row) => row.control_state === '+')!
    expect(control).toMatchObject({ type: 'detail row', batch: null, molecule: null, well: 'A02' })
    const detail = all.find((row) => row.batch === batchId && row.type === 'detail row')!
    expect(detail.molecule).toBe(batchesIn(sim, api.projects.kinase.id)[0]!.moleculeId)
    expect(Object.keys(detail.readouts)).toEqual([
      String(assay.concentrationId),
      String(assay.responseId),
    ])
    const aggregate = all.find((row) => row.type === 'aggregate row')!
    expect(aggregate).toMatchObject({
      batch: batchId,
      readouts: { [String(assay.resultId)]: { note: expect.stringMatching(/^R² /) } },
    })
    expect(aggregate.readouts[String(assay.resultId)]!.value).toBeCloseTo(1, 2)
  })

  it('filters by type, batches, molecules, plates and readout definitions', async () => {
    expect(await rows({ type: 'detail', batches: [batchId] })).toHaveLength(16)
    expect(await rows({ type: 'aggregate row' })).toHaveLength(1)
    expect(await rows({ plates: [assay.plateId], type: 'all' })).toHaveLength(24)
    const narrowed = await rows({
      batches: [batchId],
      type: 'detail',
      readout_definitions: [assay.responseId],
    })
    expect(
      narrowed.every((row) => Object.keys(row.readouts).join() === String(assay.responseId)),
    ).toBe(true)
    const ids = record(
      await api.writer.post(`${api.main}/readout_rows/query`, {
        only_ids: true,
        type: 'aggregate',
      }),
    )
    expect(ids.objects).toHaveLength(1)
  })

  it('answers 422 for an illegal type and for unknown parameters', async () => {
    const illegal = await api.writer.post(`${api.main}/readout_rows/query`, { type: 'summary' })
    expect(illegal.status).toBe(422)
    expect(record(illegal).error).toContain('"summary" is not a readout row type')
    const unknown = await api.writer.post(`${api.main}/readout_rows/query`, { run: [assay.runId] })
    expect(unknown.status).toBe(422)
    expect(
      (await api.writer.post(`${api.main}/readout_rows/query`, { created_after: 'yesterday' }))
        .status,
    ).toBe(422)
  })

  it('answers rows of the projects the user reads only', async () => {
    const readerView = await api.reader.post(`${api.main}/readout_rows/query`, {
      runs: [assay.runId],
    })
    expect(record(readerView).count).toBe(25)
    const gpcrOnly = await api.reader.post(`${api.main}/readout_rows/query`, {
      projects: [api.projects.gpcr.id],
    })
    expect(record(gpcrOnly).count).toBe(0)
    expect((await api.outsider.post(`${api.main}/readout_rows/query`, {})).status).toBe(401)
  })
})

describe('GET /readout_rows (deprecated form)', () => {
  it('takes the query members from the query string and answers like POST /readout_rows/query', async () => {
    const posted = await api.writer.post(`${api.main}/readout_rows/query`, {
      runs: [assay.runId],
      batches: [batchId],
      type: 'detail',
      page_size: 5,
      offset: 2,
    })
    const got = await api.writer.get(`${api.main}/readout_rows`, {
      runs: String(assay.runId),
      batches: String(batchId),
      type: 'detail',
      page_size: 5,
      offset: 2,
    })
    expect(got.status).toBe(200)
    expect(record(got)).toEqual(record(posted))
    expect(record(got).count).toBe(16)
    const ids = record(
      await api.writer.get(`${api.main}/readout_rows`, {
        runs: String(assay.runId),
        only_ids: true,
      }),
    )
    expect(ids.objects).toHaveLength(25)
  })

  it('answers 422 for an illegal type or an unknown parameter and 401 outside the vault', async () => {
    expect((await api.writer.get(`${api.main}/readout_rows`, { type: 'summary' })).status).toBe(422)
    const unknown = await api.writer.get(`${api.main}/readout_rows`, { run: assay.runId })
    expect(unknown.status).toBe(422)
    expect(record(unknown).error).toContain("'run'")
    expect((await api.outsider.get(`${api.main}/readout_rows`)).status).toBe(401)
  })
})

describe('GET /readout_rows/{id}', () => {
  it('answers one row and 404 for an unknown one', async () => {
    const [first] = await rows({ runs: [assay.runId], type: 'detail', batches: [batchId] })
    expect(record(await api.reader.get(`${api.main}/readout_rows/${first!.id}`)).id).toBe(first!.id)
    const missing = await api.reader.get(`${api.main}/readout_rows/999999`)
    expect(missing.status).toBe(404)
    expect(record(missing).error).toBe('Readout row 999999 not found')
  })
})

describe('PUT /readout_rows/{id}', () => {
  it('changes value and outlier of a detail row and refits the curve', async () => {
    const before = await aggregateIc50()
    const top = (await rows({ batches: [batchId], type: 'detail' })).filter(
      (row) => row.readouts[String(assay.concentrationId)]!.value === 30,
    )
    // Dragging the top concentration down shifts the curve to the right.
    for (const row of top) {
      const answer = await api.writer.put(`${api.main}/readout_rows/${row.id}`, {
        readouts: { [assay.responseId]: { value: 20 } },
      })
      expect(answer.status).toBe(200)
      expect(record(answer).readouts).toMatchObject({ [String(assay.responseId)]: { value: 20 } })
    }
    const shifted = await aggregateIc50()
    expect(shifted).not.toBeCloseTo(before, 2)
    for (const row of top) {
      const answer = record(
        await api.writer.put(`${api.main}/readout_rows/${row.id}`, {
          readouts: { [assay.responseId]: { outlier: true } },
        }),
      )
      expect((answer.readouts as Row['readouts'])[String(assay.responseId)]).toEqual({
        value: 20,
        outlier: true,
      })
    }
    // With the dragged points flagged as outliers the fit ignores them again.
    expect(await aggregateIc50()).toBeCloseTo(before, 2)
    const unflagged = record(
      await api.writer.put(`${api.main}/readout_rows/${top[0]!.id}`, {
        readouts: { [assay.responseId]: { outlier: 'false' } },
      }),
    )
    expect((unflagged.readouts as Row['readouts'])[String(assay.responseId)]).toEqual({ value: 20 })
  })

  it('answers 400 for other keys, an invalid outlier flag, and readouts that cannot be flagged', async () => {
    const [row] = await rows({ batches: [batchId], type: 'detail' })
    const path = `${api.main}/readout_rows/${row!.id}`
    const note = await api.writer.put(path, { readouts: { [assay.responseId]: { note: 'hm' } } })
    expect(note.status).toBe(400)
    expect(record(note).error).toContain('only value and outlier can be changed, not note')
    const flag = await api.writer.put(path, {
      readouts: { [assay.responseId]: { outlier: 'maybe' } },
    })
    expect(flag.status).toBe(400)
    expect(record(flag).error).toContain('outlier must be true or false')
    const text = await api.writer.put(path, {
      readouts: { [assay.commentId]: { value: 'ok', outlier: true } },
    })
    expect(text.status).toBe(400)
    expect(record(text).error).toContain('cannot be flagged')
    expect(
      (await api.writer.put(path, { readouts: { [assay.resultId]: { value: 1 } } })).status,
    ).toBe(400)
    expect(
      (await api.writer.put(path, { readouts: { [assay.responseId]: { value: 'high' } } })).status,
    ).toBe(400)
    expect((await api.writer.put(path, { readouts: { 999999: { value: 1 } } })).status).toBe(400)
    expect((await api.writer.put(path, { batch: 5, readouts: {} })).status).toBe(200)
    expect((await api.writer.put(path, { run_id: 5 })).status).toBe(400)
  })

  it('answers 403 for an aggregate row, 401 without write permission, 404 for an unknown row', async () => {
    const [aggregate] = await rows({ type: 'aggregate' })
    const forbidden = await api.writer.put(`${api.main}/readout_rows/${aggregate!.id}`, {
      readouts: { [assay.resultId]: { value: 1 } },
    })
    expect(forbidden.status).toBe(403)
    expect(record(forbidden).error).toContain('aggregate row')
    const [detail] = await rows({ type: 'detail' })
    expect(
      (await api.reader.put(`${api.main}/readout_rows/${detail!.id}`, { readouts: {} })).status,
    ).toBe(401)
    expect((await api.writer.put(`${api.main}/readout_rows/999999`, { readouts: {} })).status).toBe(
      404,
    )
  })
})

describe('DELETE /readout_rows/{id}', () => {
  it('deletes a detail row, refusing aggregate rows with 403', async () => {
    const [aggregate] = await rows({ type: 'aggregate' })
    expect((await api.writer.delete(`${api.main}/readout_rows/${aggregate!.id}`)).status).toBe(403)
    const control = (await rows({ runs: [assay.runId], type: 'detail' })).find(
      (row) => row.control_state === '-',
    )!
    const answer = await api.writer.delete(`${api.main}/readout_rows/${control.id}`)
    expect(answer.status).toBe(200)
    expect(record(answer)).toEqual({ message: `Readout row ${control.id} has been destroyed` })
    expect((await api.writer.get(`${api.main}/readout_rows/${control.id}`)).status).toBe(404)
    expect((await api.writer.delete(`${api.main}/readout_rows/${control.id}`)).status).toBe(404)
    expect((await api.reader.delete(`${api.main}/readout_rows/${aggregate!.id}`)).status).toBe(401)
  })

  it('removes the aggregate result when the last detail rows of a curve are gone', async () => {
    for (const row of await rows({ batches: [batchId], type: 'detail' })) {
      expect((await api.writer.delete(`${api.main}/readout_rows/${row.id}`)).status).toBe(200)
    }
    expect(await rows({ type: 'aggregate' })).toHaveLength(0)
  })
})
