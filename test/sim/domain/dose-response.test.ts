import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../../src-sim/index.ts'
import { readZip } from '../../../src-sim/pure/zip-reader.ts'
import {
  insertCalculation,
  insertReadoutDefinition,
} from '../../../src-sim/resources/domain/assay-builder.ts'
import { refreshDoseResponse } from '../../../src-sim/resources/domain/dose-response-engine.ts'
import { cast } from '../fixtures.ts'
import { list, record } from '../http.ts'
import {
  batchesIn,
  buildDoseResponse,
  numberOf,
  type DoseResponseFixture,
} from './assay-fixture.ts'

let sim: VaultSim
let api: ReturnType<typeof cast>
let assay: DoseResponseFixture
let potentBatch: number
let weakBatch: number
let base: string

interface Series {
  id: number
  batch: number
  status: string
  fit_parameters: Record<string, unknown>
  fitted_parameters: Record<string, number> | null
  result: { value?: number; modifier?: string; note?: string }
  points: { x: number; y: number; outlier: boolean }[]
}

beforeAll(async () => {
  sim = await startVaultSim({ seed: 16 })
  api = cast(sim)
  const batches = batchesIn(sim, api.projects.kinase.id)
  potentBatch = batches[0]!.id
  weakBatch = batches[1]!.id
  assay = buildDoseResponse(sim, {
    projectId: api.projects.kinase.id,
    name: 'Kinase',
    curves: [
      { batchId: potentBatch, ic50: 0.5 },
      { batchId: weakBatch, ic50: 1000 },
    ],
  })
  base = `${api.main}/protocols/${assay.protocolId}/dose_response_calculations`
})

afterAll(() => sim.stop())

async function series(): Promise<Series[]> {
  return list(
    await api.writer.get(`${base}/${assay.calculationId}/dose_response_data_series`),
  ) as unknown as Series[]
}

async function seriesOf(batchId: number): Promise<Series> {
  return (await series()).find((item) => item.batch === batchId)!
}

describe('GET dose_response_calculations', () => {
  it('lists the protocol’s calculations and shows one', async () => {
    const calculations = list(await api.reader.get(base))
    expect(calculations).toEqual([
      expect.objectContaining({
        id: assay.calculationId,
        class: 'dose response calculation',
        equation_type: 'Hill',
        fit_parameters: {},
        minimum_activity: {},
        readout_definition: assay.responseId,
      }),
    ])
    expect(record(await api.reader.get(`${base}/${assay.calculationId}`)).id).toBe(
      assay.calculationId,
    )
  })

  it('answers 404 for an unknown calculation or protocol', async () => {
    expect((await api.reader.get(`${base}/9999`)).status).toBe(404)
    expect(
      (await api.reader.get(`${api.main}/protocols/9999/dose_response_calculations`)).status,
    ).toBe(404)
  })
})

describe('data series', () => {
  it('holds the points, the fitted parameters and the result of each curve', async () => {
    const potent = await seriesOf(potentBatch)
    expect(potent.status).toBe('fitted')
    expect(potent.points).toHaveLength(16)
    expect(potent.fitted_parameters!.ic50).toBeCloseTo(0.5, 2)
    expect(potent.fitted_parameters!.slope).toBeCloseTo(1, 2)
    expect(potent.result.value).toBeCloseTo(0.5, 2)
    const weak = await seriesOf(weakBatch)
    // An IC50 beyond the highest concentration tested is reported as '> 30'.
    expect(weak.result).toMatchObject({ value: 30, modifier: '>' })
    const one = record(
      await api.reader.get(`${base}/${assay.calculationId}/dose_response_data_series/${potent.id}`),
    )
    expect(one.id).toBe(potent.id)
    expect(
      (await api.reader.get(`${base}/${assay.calculationId}/dose_response_data_series/9999`))
        .status,
    ).toBe(404)
    expect((await api.reader.get(`${base}/9999/dose_response_data_series`)).status).toBe(404)
  })
})

describe('PUT dose_response_calculations/{id}', () => {
  it('applies fit constraints to every curve, and an empty object clears them', async () => {
    const fixed = await api.writer.put(`${base}/${assay.calculationId}`, {
      fit_parameters: {
        slope: { modifier: '=', value: 2 },
        max: { modifier: 'from', range: { min: 0, max: 90 } },
      },
    })
    expect(fixed.status).toBe(200)
    expect(record(fixed).fit_parameters).toEqual({
      slope: { modifier: '=', value: 2 },
      max: { modifier: 'from', range: { min: 0, max: 90 } },
    })
    const constrained = await seriesOf(potentBatch)
    expect(constrained.fitted_parameters!.slope).toBe(2)
    expect(constrained.fitted_parameters!.max).toBeLessThanOrEqual(90)
    const cleared = record(
      await api.writer.put(`${base}/${assay.calculationId}`, { fit_parameters: {} }),
    )
    expect(cleared.fit_parameters).toEqual({})
    expect((await seriesOf(potentBatch)).fitted_parameters!.slope).toBeCloseTo(1, 2)
  })

  it('marks curves inactive inside the minimum activity bounds and lists the protocol as recalculating', async () => {
    const answer = record(
      await api.writer.put(`${base}/${assay.calculationId}`, {
        minimum_activity: { min: -10, max: '10' },
      }),
    )
    expect(answer).toMatchObject({ minimum_activity: { min: -10, max: 10 }, recalculating: true })
    const weak = await seriesOf(weakBatch)
    expect(weak.status).toBe('inactive')
    expect(weak.result).toMatchObject({
      value: 30,
      modifier: '>',
      note: expect.stringContaining('inactive'),
    })
    const status = record(await api.admin.get(`${api.main}/status`))
    expect(status.recalculating_protocols).toEqual([
      {
        id: assay.protocolId,
        name: 'Kinase',
        projects: [{ id: api.projects.kinase.id, name: api.projects.kinase.name }],
      },
    ])
    sim.clock.advance(5000)
    expect(record(await api.writer.get(`${base}/${assay.calculationId}`)).recalculating).toBe(false)
    await api.writer.put(`${base}/${assay.calculationId}`, { minimum_activity: {} })
  })

  it('answers 422 for each cause the spec names', async () => {
    const put = (body: unknown) => api.writer.put(`${base}/${assay.calculationId}`, body)
    const causes: [unknown, string][] = [
      [{ fit_parameters: { ec50: { modifier: '=', value: 1 } } }, 'unknown fit parameter "ec50"'],
      [{ fit_parameters: { slope: { modifier: '~', value: 1 } } }, 'invalid modifier "~"'],
      [
        { fit_parameters: { max: { modifier: 'from', range: { min: 90, max: 10 } } } },
        'range lower bound 90 is above upper bound 10',
      ],
      [{ fit_parameters: { min: { modifier: '>', value: 'low' } } }, 'value "low" is not numeric'],
      [
        { fit_parameters: { min: { modifier: '>', value: 1, weight: 2 } } },
        'unrecognized parameters weight',
      ],
      [{ fit_parameters: {}, tolerance: 0.1 }, "'tolerance' is not a known parameter"],
      [{ fit_parameters: { slope: { modifier: 'best fit' } } }, 'invalid modifier "best fit"'],
      [{ minimum_activity: { min: 5, max: 1 } }, 'range lower bound 5 is above upper bound 1'],
    ]
    for (const [body, message] of causes) {
      const answer = await put(body)
      expect(answer.status, JSON.stringify(body)).toBe(422)
      expect(record(answer).error).toContain(message)
    }
  })

  it('answers 401 for insufficient permissions', async () => {
    expect(
      (await api.reader.put(`${base}/${assay.calculationId}`, { fit_parameters: {} })).status,
    ).toBe(401)
  })
})

describe('PUT dose_response_data_series/{id}', () => {
  it('overrides the calculation per curve, best fit lifting a calculation constraint', async () => {
    await api.writer.put(`${base}/${assay.calculationId}`, {
      fit_parameters: { slope: { modifier: '=', value: 3 } },
    })
    const potent = await seriesOf(potentBatch)
    expect(potent.fitted_parameters!.slope).toBe(3)
    const path = `${base}/${assay.calculationId}/dose_response_data_series/${potent.id}`
    const lifted = record(
      await api.writer.put(path, { fit_parameters: { slope: { modifier: 'best fit' } } }),
    ) as unknown as Series
    expect(lifted.fit_parameters).toEqual({ slope: { modifier: 'best fit' } })
    expect(lifted.fitted_parameters!.slope).toBeCloseTo(1, 2)
    expect((await seriesOf(weakBatch)).fitted_parameters!.slope).toBe(3)
    const invalid = await api.writer.put(path, { fit_parameters: { slope: { modifier: 'about' } } })
    expect(invalid.status).toBe(422)
    expect((await api.reader.put(path, { fit_parameters: {} })).status).toBe(401)
    expect(
      (await api.writer.put(`${base}/${assay.calculationId}/dose_response_data_series/9999`, {}))
        .status,
    ).toBe(404)
    await api.writer.put(`${base}/${assay.calculationId}`, { fit_parameters: {} })
  })
})

describe('GET /batches/{batch_id}/protocols/{id}/plot', () => {
  const plotPath = (batchId: number) =>
    `${api.main}/batches/${batchId}/protocols/${assay.protocolId}/plot`

  it('draws a PNG of the points and fitted curve', async () => {
    const answer = await api.reader.get(plotPath(potentBatch))
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('application/octet-stream')
    const png = Buffer.from(answer.bytes)
    expect(png.subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    )
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([480, 360])
    const idatLength = png.readUInt32BE(33)
    expect(png.toString('latin1', 37, 41)).toBe('IDAT')
    const pixels = zlib.inflateSync(png.subarray(41, 41 + idatLength))
    expect(pixels.length).toBe(360 * (480 * 4 + 1))
    const doubled = await api.reader.get(plotPath(potentBatch), { size: '2' })
    expect(Buffer.from(doubled.bytes).readUInt32BE(16)).toBe(960)
  })

  it('answers a ZIP of PNGs when the protocol has several dose-response calculations', async () => {
    const db = sim.core.db
    const now = sim.clock.nowSeconds()
    const resultId = insertReadoutDefinition(db, assay.protocolId, {
      name: 'EC50 (linear)',
      dataType: 'Number',
      role: 'calculated',
    })
    insertCalculation(db, {
      protocolId: assay.protocolId,
      name: 'Linear trend',
      equationType: 'Linear',
      concentrationId: assay.concentrationId,
      responseId: assay.responseId,
      resultId,
      at: now,
    })
    refreshDoseResponse(db, now, assay.protocolId)
    const answer = await api.reader.get(plotPath(potentBatch))
    expect(answer.headers.get('content-type')).toBe('application/zip')
    const entries = readZip(answer.bytes)
    expect(entries.map((entry) => entry.name)).toHaveLength(2)
    expect(entries.every((entry) => entry.data.subarray(1, 4).toString('latin1') === 'PNG')).toBe(
      true,
    )
  })

  it('answers 404 when there is no data, 422 for a bad size', async () => {
    const other = batchesIn(sim, api.projects.kinase.id)[2]!.id
    const noData = await api.reader.get(plotPath(other))
    expect(noData.status).toBe(404)
    expect((await api.reader.get(plotPath(potentBatch), { runs: '99999' })).status).toBe(404)
    expect(
      (await api.reader.get(`${api.main}/batches/999999/protocols/${assay.protocolId}/plot`))
        .status,
    ).toBe(404)
    expect((await api.reader.get(plotPath(potentBatch), { size: 'huge' })).status).toBe(422)
    expect(numberOf(record(noData).code)).toBe(404)
  })
})
