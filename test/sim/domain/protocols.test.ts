import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../../src-sim/index.ts'
import { parseCsv } from '../../../src-sim/pure/csv.ts'
import { cast, objectsOf } from '../fixtures.ts'
import { raw, record } from '../http.ts'
import {
  batchesIn,
  buildDoseResponse,
  numberOf,
  type DoseResponseFixture,
} from './assay-fixture.ts'

let sim: VaultSim
let api: ReturnType<typeof cast>
let kinase: DoseResponseFixture
let gpcr: DoseResponseFixture
let kinaseBatches: number[]

beforeAll(async () => {
  sim = await startVaultSim({ seed: 16 })
  api = cast(sim)
  kinaseBatches = batchesIn(sim, api.projects.kinase.id).map((batch) => batch.id)
  kinase = buildDoseResponse(sim, {
    projectId: api.projects.kinase.id,
    name: 'Kinase IC50',
    curves: [
      { batchId: kinaseBatches[0]!, ic50: 1 },
      { batchId: kinaseBatches[1]!, ic50: 0.1 },
    ],
  })
  gpcr = buildDoseResponse(sim, {
    projectId: api.projects.gpcr.id,
    name: 'GPCR Binding',
    curves: [{ batchId: batchesIn(sim, api.projects.gpcr.id)[0]!.id, ic50: 3 }],
  })
})

afterAll(() => sim.stop())

async function finishedExport(progress: Record<string, unknown>): Promise<string> {
  sim.clock.advance(10_000)
  const status = record(await api.admin.get(`${api.main}/export_progress/${numberOf(progress.id)}`))
  expect(status.status).toBe('finished')
  const redirect = await api.admin.get(`${api.main}/exports/${numberOf(progress.id)}`)
  expect(redirect.status).toBe(302)
  const file = await raw(redirect.headers.get('location')!, 'GET', '')
  return new TextDecoder().decode(file.bytes)
}

describe('GET /protocols and POST /protocols/query', () => {
  it('pages the protocols of readable projects with definitions, calculations, runs and statistics', async () => {
    const page = record(await api.admin.get(`${api.main}/protocols`))
    expect(page.count).toBe(2)
    const protocol = objectsOf(page).find((item) => item.id === kinase.protocolId)!
    expect(protocol).toMatchObject({
      class: 'protocol',
      name: 'Kinase IC50',
      projects: [{ id: api.projects.kinase.id, name: api.projects.kinase.name }],
      owner: 'Rosalind Franklin',
      calculations: [
        { id: kinase.calculationId, equation_type: 'Hill', readout_definition: kinase.responseId },
      ],
      runs: [{ id: kinase.runId, person: 'R. Franklin' }],
    })
    expect((protocol.readout_definitions as unknown[]).length).toBe(5)
    const statistics = protocol.protocol_statistics as {
      readout_definition: { id: number }
      average: string
    }[]
    const ic50 = statistics.find((item) => item.readout_definition.id === kinase.resultId)!
    // IC50s of 1 and 0.1 µM average to 0.55: written the vault's way, "550E-03".
    expect(Number(ic50.average)).toBeCloseTo(0.55, 2)
    expect(ic50.average).toMatch(/^\d{3}E[-+]\d{2}$/)
  })

  it('hides protocols of projects the user cannot read', async () => {
    const page = record(await api.reader.get(`${api.main}/protocols`))
    expect(objectsOf(page).map((item) => item.id)).toEqual([kinase.protocolId])
    expect((await api.reader.get(`${api.main}/protocols/${gpcr.protocolId}`)).status).toBe(404)
  })

  it('filters by names, protocol ids and projects in both forms, and answers only ids', async () => {
    const byName = record(
      await api.admin.post(`${api.main}/protocols/query`, { names: ['GPCR Binding'] }),
    )
    expect(objectsOf(byName).map((item) => item.id)).toEqual([gpcr.protocolId])
    const byProject = record(
      await api.admin.get(`${api.main}/protocols`, { projects: String(api.projects.kinase.id) }),
    )
    expect(objectsOf(byProject).map((item) => item.id)).toEqual([kinase.protocolId])
    const ids = record(await api.admin.post(`${api.main}/protocols/query`, { only_ids: true }))
    expect(ids.objects).toEqual([kinase.protocolId, gpcr.protocolId])
    const noRuns = objectsOf(
      record(await api.admin.get(`${api.main}/protocols`, { no_runs: true })),
    )
    expect(noRuns[0]).not.toHaveProperty('runs')
  })

  it('fails a query for several ids as a whole when some do not exist', async () => {
    const answer = await api.admin.post(`${api.main}/protocols/query`, {
      protocols: [kinase.protocolId, 9999],
    })
    expect(answer.status).toBe(404)
    expect(record(answer).error).toContain('9999')
  })

  it('rejects an unknown parameter with 422 naming it', async () => {
    const answer = await api.admin.post(`${api.main}/protocols/query`, { nmes: ['x'] })
    expect(answer.status).toBe(422)
    expect(record(answer).error).toContain("'nmes'")
  })

  it('exports every matching protocol with async=true', async () => {
    const progress = record(await api.admin.post(`${api.main}/protocols/query`, { async: true }))
    expect(progress.status).toBe('new')
    const exported = JSON.parse(await finishedExport(progress)) as {
      count: number
      objects: { id: number }[]
    }
    expect(exported.count).toBe(2)
    expect(exported.objects.map((item) => item.id)).toEqual([kinase.protocolId, gpcr.protocolId])
  })
})

describe('GET /protocols/{id}', () => {
  it('answers the protocol, without runs on no_runs, and 404 for an unknown id', async () => {
    const protocol = record(await api.writer.get(`${api.main}/protocols/${kinase.protocolId}`))
    expect(protocol.id).toBe(kinase.protocolId)
    expect(protocol.runs).toHaveLength(1)
    expect(
      record(await api.writer.get(`${api.main}/protocols/${kinase.protocolId}`, { no_runs: true })),
    ).not.toHaveProperty('runs')
    const missing = await api.writer.get(`${api.main}/protocols/424242`)
    expect(missing.status).toBe(404)
    expect(record(missing)).toEqual({ code: 404, error: 'Protocol 424242 not found' })
  })
})

describe('PUT /protocols/{id}', () => {
  it('changes the name, the projects and protocol field values', async () => {
    const answer = await api.writer.put(`${api.main}/protocols/${kinase.protocolId}`, {
      name: 'Kinase IC50 v2',
      projects: [api.projects.kinase.name, api.projects.gpcr.id],
      protocol_fields: {
        'Assay Format': 'cell-based',
        'ATP Concentration (uM)': 25,
        Target: 'EGFR',
      },
    })
    expect(answer.status).toBe(200)
    expect(record(answer)).toMatchObject({
      name: 'Kinase IC50 v2',
      projects: [
        { id: api.projects.kinase.id, name: api.projects.kinase.name },
        { id: api.projects.gpcr.id, name: api.projects.gpcr.name },
      ],
      protocol_fields: {
        'Assay Format': 'cell-based',
        'ATP Concentration (uM)': '25',
        Target: 'EGFR',
      },
    })
    const cleared = record(
      await api.writer.put(`${api.main}/protocols/${kinase.protocolId}`, {
        protocol_fields: { Target: null },
      }),
    )
    expect(cleared.protocol_fields).toEqual({
      'Assay Format': 'cell-based',
      'ATP Concentration (uM)': '25',
    })
  })

  it('refuses readout definitions, unknown fields, bad field values and an empty project list with 422', async () => {
    const path = `${api.main}/protocols/${kinase.protocolId}`
    const definitions = await api.writer.put(path, { readout_definitions: [] })
    expect(definitions.status).toBe(422)
    expect(record(definitions).error).toContain('readout_definitions cannot be changed')
    const unknownField = await api.writer.put(path, { protocol_fields: { Colour: 'red' } })
    expect(unknownField.status).toBe(422)
    expect(record(unknownField).error).toContain('protocol_fields.Colour')
    const badPick = await api.writer.put(path, { protocol_fields: { 'Assay Format': 'telepathy' } })
    expect(badPick.status).toBe(422)
    expect(record(badPick).error).toContain("'biochemical'")
    const notANumber = await api.writer.put(path, {
      protocol_fields: { 'ATP Concentration (uM)': 'lots' },
    })
    expect(notANumber.status).toBe(422)
    expect((await api.writer.put(path, { projects: [] })).status).toBe(422)
    expect((await api.writer.put(path, { projects: ['No Such Project'] })).status).toBe(422)
  })

  it('answers 401 to a read-only member and 404 for a protocol the user cannot see', async () => {
    expect(
      (await api.reader.put(`${api.main}/protocols/${kinase.protocolId}`, { name: 'x' })).status,
    ).toBe(401)
    const outsider = await api.outsider.put(`${api.main}/protocols/${kinase.protocolId}`, {
      name: 'x',
    })
    expect(outsider.status).toBe(401)
    expect((await api.writer.put(`${api.main}/protocols/424242`, { name: 'x' })).status).toBe(404)
  })
})

describe('GET /protocols/{protocol_id}/data', () => {
  it('pages detail rows with the aggregate readouts of their run and batch merged in', async () => {
    const page = record(
      await api.admin.get(`${api.main}/protocols/${gpcr.protocolId}/data`, { page_size: 100 }),
    )
    expect(page.count).toBe(8 + 16)
    const rows = objectsOf(page) as {
      type: string
      batch: number | null
      readouts: Record<string, { value?: number }>
    }[]
    expect(rows.every((row) => row.type === 'detail row')).toBe(true)
    const curveRow = rows.find((row) => row.batch !== null)!
    expect(curveRow.readouts[String(gpcr.resultId)]!.value).toBeCloseTo(3, 2)
    const controlRow = rows.find((row) => row.batch === null)!
    expect(controlRow.readouts).not.toHaveProperty(String(gpcr.resultId))
  })

  it('filters by molecules, runs and plates', async () => {
    const [first] = batchesIn(sim, api.projects.kinase.id)
    const page = record(
      await api.admin.post(`${api.main}/protocols/${kinase.protocolId}/data/query`, {
        molecules: [first!.moleculeId],
      }),
    )
    expect(page.count).toBe(16)
    expect(
      record(
        await api.admin.get(`${api.main}/protocols/${kinase.protocolId}/data`, { runs: '999' }),
      ).count,
    ).toBe(0)
    expect(
      record(
        await api.admin.get(`${api.main}/protocols/${kinase.protocolId}/data`, {
          plates: String(kinase.plateId),
        }),
      ).count,
    ).toBe(40)
  })

  it('makes a CSV export with format=csv, one column per readout with qualifiers written in', async () => {
    const progress = record(
      await api.admin.get(`${api.main}/protocols/${gpcr.protocolId}/data`, { format: 'csv' }),
    )
    expect(progress.format).toBe('csv')
    const [header, ...rows] = parseCsv(await finishedExport(progress))
    expect(header).toEqual(
      expect.arrayContaining([
        'id',
        'run',
        'molecule',
        'batch',
        'well',
        'Concentration (uM)',
        '% Inhibition (%)',
        'IC50 (uM)',
      ]),
    )
    expect(rows).toHaveLength(24)
    const ic50Column = header!.indexOf('IC50 (uM)')
    expect(Number(rows.find((row) => row[ic50Column] !== '')![ic50Column])).toBeCloseTo(3, 2)
  })

  it('answers 404 for a protocol the user cannot see and 422 for an unknown parameter', async () => {
    expect((await api.reader.get(`${api.main}/protocols/${gpcr.protocolId}/data`)).status).toBe(404)
    expect(
      (await api.admin.get(`${api.main}/protocols/${gpcr.protocolId}/data`, { molecule: '1' }))
        .status,
    ).toBe(422)
  })
})

describe('protocol field definitions', () => {
  it('are listed under protocol in GET /fields', async () => {
    const fields = record(await api.admin.get(`${api.main}/fields`))
    expect((fields.protocol as { name: string }[]).map((field) => field.name)).toEqual([
      'Assay Format',
      'Target',
      'ATP Concentration (uM)',
      'SOP Date',
    ])
  })
})
