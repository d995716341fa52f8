import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ReadoutRow } from '../../src-main/api/resources/readout-rows.ts'
import { collect, expectApiError, useSim } from './support/sim.ts'

const harness = useSim()

/** The demo vault's first protocol with a dose response calculation, and a fitted curve of it. */
async function doseResponseCurve() {
  const client = harness.client()
  const vault = harness.vaults.main
  for (const protocol of await collect(client.protocols.listAll(vault, { no_runs: true }))) {
    const [calculation] = await client.doseResponse.calculations(vault, protocol.id)
    if (!calculation) continue
    const [series] = await client.doseResponse.dataSeries(vault, protocol.id, calculation.id)
    if (series) return { protocol, calculation, series }
  }
  throw new Error('The demo vault has no fitted dose response curve.')
}

async function rowOfType(type: 'detail' | 'aggregate'): Promise<ReadoutRow> {
  const [row] = (
    await harness.client().readoutRows.query(harness.vaults.main, { type, page_size: 1 })
  ).objects
  if (!row) throw new Error(`The demo vault has no ${type} readout row.`)
  return row
}

describe('protocols', () => {
  it('lists protocols page by page, by id, and as an export', async () => {
    const protocols = harness.client('reader').protocols
    const vault = harness.vaults.main
    const all = await collect(protocols.listAll(vault, {}, { pageSize: 1 }))
    expect(all.length).toBeGreaterThan(1)
    expect(all[0]?.readout_definitions?.[0]).toMatchObject({ id: expect.any(Number) })
    expect((await collect(protocols.listIds(vault))).sort()).toEqual(all.map((p) => p.id).sort())
    const exported = await collect((await protocols.export(vault, { no_runs: true })).records())
    expect(exported.map((protocol) => protocol.id).sort()).toEqual(all.map((p) => p.id).sort())
  })

  it('reads a protocol, with or without its runs', async () => {
    const protocols = harness.client().protocols
    const [first] = (await protocols.list(harness.vaults.main, { page_size: 1 })).objects
    const full = await protocols.get(harness.vaults.main, first!.id)
    expect(full.runs?.length).toBeGreaterThan(0)
    const bare = await protocols.get(harness.vaults.main, first!.id, { no_runs: true })
    expect(bare.runs ?? []).toEqual([])
  })

  it('changes a protocol, and answers 404 and 422 when it cannot', async () => {
    const protocols = harness.client('writer').protocols
    const vault = harness.vaults.main
    const [first, second] = (await protocols.list(vault, { page_size: 2 })).objects
    const renamed = await protocols.update(vault, first!.id, { name: `${first!.name} (v2)` })
    expect(renamed.name).toBe(`${first!.name} (v2)`)
    await expectApiError(
      protocols.update(vault, first!.id, { name: second!.name! }),
      'validation',
      422,
    )
    await expectApiError(protocols.update(vault, 999_999, { name: 'x' }), 'not_found', 404)
    await expectApiError(protocols.get(vault, 999_999), 'not_found', 404)
  })

  it('pages through protocol data and exports it as JSON and CSV', async () => {
    const protocols = harness.client().protocols
    const vault = harness.vaults.main
    const { protocol } = await doseResponseCurve()
    const page = await protocols.data(vault, protocol.id, { page_size: 20 })
    expect(page.objects[0]?.readouts).toEqual(expect.any(Object))
    const rows = await collect(protocols.dataAll(vault, protocol.id, {}, { pageSize: 500 }))
    expect(rows).toHaveLength(page.count!)
    const json = await collect((await protocols.exportData(vault, protocol.id)).records())
    expect(json).toHaveLength(page.count!)
    const csv = await protocols.exportData(vault, protocol.id, {}, { format: 'csv' })
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-api-csv-'))
    try {
      const file = path.join(directory, 'data.csv')
      await csv.saveTo(file)
      const lines = fs.readFileSync(file, 'utf8').trim().split('\n')
      expect(lines[0]).toContain(',')
      expect(lines.length).toBeGreaterThan(page.count!)
    } finally {
      fs.rmSync(directory, { recursive: true, force: true })
    }
  })

  it('draws the dose response plot of a batch, and answers 404 without data', async () => {
    const protocols = harness.client().protocols
    const { protocol, series } = await doseResponseCurve()
    const batchId = series.batch as number
    const plot = await protocols.plot(harness.vaults.main, batchId, protocol.id, { size: '2' })
    expect(plot.contentType).toMatch(/image\/png|application\/(zip|octet-stream)/)
    expect(plot.bytes.length).toBeGreaterThan(100)
    const other = (await protocols.list(harness.vaults.main, { page_size: 50 })).objects.find(
      (candidate) => candidate.id !== protocol.id && !candidate.calculations?.length,
    )
    await expectApiError(protocols.plot(harness.vaults.main, batchId, other!.id), 'not_found', 404)
  })
})

describe('runs', () => {
  it('lists runs page by page, by id, and as an export, and reads one', async () => {
    const runs = harness.client().runs
    const vault = harness.vaults.main
    const all = await collect(runs.listAll(vault, {}, { pageSize: 3 }))
    expect(all.length).toBeGreaterThan(3)
    expect(all[0]?.run_date).toEqual(expect.any(String))
    expect((await collect(runs.listIds(vault))).sort()).toEqual(all.map((run) => run.id).sort())
    expect(await collect((await runs.export(vault)).records())).toHaveLength(all.length)
    expect((await runs.get(vault, all[0]!.id)).id).toBe(all[0]!.id)
  })

  it('filters runs by run date', async () => {
    const runs = harness.client().runs
    const vault = harness.vaults.main
    const all = await collect(runs.listAll(vault))
    const dates = all.map((run) => String(run.run_date).slice(0, 10)).sort()
    const middle = dates[Math.floor(dates.length / 2)]!
    const later = await collect(runs.listAll(vault, { run_date_after: middle }))
    expect(later.length).toBeGreaterThan(0)
    expect(later.length).toBeLessThan(all.length)
    expect(later.every((run) => String(run.run_date).slice(0, 10) >= middle)).toBe(true)
  })

  it('changes, moves and deletes a run, and answers 404 and 422 when it cannot', async () => {
    const runs = harness.client('admin').runs
    const vault = harness.vaults.main
    const [first] = (await runs.list(vault, { page_size: 1 })).objects
    const changed = await runs.update(vault, first!.id, { place: 'Lab 2', person: 'A. Lovelace' })
    expect(changed).toMatchObject({ place: 'Lab 2', person: 'A. Lovelace' })
    await expectApiError(
      runs.update(vault, first!.id, { project_id: harness.projects.confidential }),
      'validation',
      422,
    )
    await expectApiError(runs.update(vault, 999_999, { place: 'x' }), 'not_found', 404)
    await expectApiError(runs.get(vault, 999_999), 'not_found', 404)
    const last = (await collect(runs.listAll(vault))).at(-1)!
    expect(await runs.delete(vault, last.id)).toMatchObject({ message: expect.any(String) })
    await expectApiError(runs.delete(vault, last.id), 'not_found', 404)
  })
})

describe('readout rows', () => {
  it('queries rows page by page, by id and as an export', async () => {
    const rows = harness.client().readoutRows
    const vault = harness.vaults.main
    const { protocol } = await doseResponseCurve()
    const filter = { protocols: [protocol.id], type: 'aggregate' as const }
    const all = await collect(rows.queryAll(vault, filter, { pageSize: 7 }))
    expect(all.length).toBeGreaterThan(0)
    expect(all.every((row) => row.type === 'aggregate row')).toBe(true)
    expect((await collect(rows.queryIds(vault, filter))).sort()).toEqual(
      all.map((row) => row.id).sort(),
    )
    expect(await collect((await rows.export(vault, filter)).records())).toHaveLength(all.length)
  })

  it('answers 422 for an illegal row type', async () => {
    await expectApiError(
      harness.client().readoutRows.query(harness.vaults.main, {
        type: 'summary' as unknown as 'detail',
      }),
      'validation',
      422,
    )
  })

  it('changes the value and outlier flag of a detail row, and nothing else', async () => {
    const rows = harness.client('admin').readoutRows
    const vault = harness.vaults.main
    const detail = await rowOfType('detail')
    const [definition, cell] = Object.entries(detail.readouts ?? {}).flatMap(([key, candidate]) =>
      typeof candidate === 'object' && typeof candidate.value === 'number'
        ? [[key, candidate] as const]
        : [],
    )[0]!
    const changed = await rows.update(vault, detail.id, {
      readouts: { [definition]: { value: Number(cell.value) + 1, outlier: true } },
    })
    expect(changed.readouts?.[definition]).toMatchObject({
      value: Number(cell.value) + 1,
      outlier: true,
    })
    expect((await rows.get(vault, detail.id)).readouts?.[definition]).toMatchObject({
      outlier: true,
    })
    await expectApiError(
      rows.update(vault, detail.id, { readouts: {}, note: 'x' } as never),
      'validation',
      400,
    )
  })

  it('refuses to change or delete an aggregate row (403) and answers 404 for a missing row', async () => {
    const rows = harness.client('admin').readoutRows
    const vault = harness.vaults.main
    const aggregate = await rowOfType('aggregate')
    await expectApiError(rows.update(vault, aggregate.id, { readouts: {} }), 'forbidden', 403)
    await expectApiError(rows.delete(vault, aggregate.id), 'forbidden', 403)
    await expectApiError(rows.get(vault, 99_999_999), 'not_found', 404)
    await expectApiError(rows.update(vault, 99_999_999, { readouts: {} }), 'not_found', 404)
    await expectApiError(rows.delete(vault, 99_999_999), 'not_found', 404)
  })

  it('deletes a detail row', async () => {
    const rows = harness.client('admin').readoutRows
    const detail = await rowOfType('detail')
    expect(await rows.delete(harness.vaults.main, detail.id)).toMatchObject({
      message: expect.stringContaining('destroyed'),
    })
    await expectApiError(rows.get(harness.vaults.main, detail.id), 'not_found', 404)
  })
})

describe('dose response', () => {
  it('reads calculations and their data series', async () => {
    const doseResponse = harness.client().doseResponse
    const vault = harness.vaults.main
    const { protocol, calculation, series } = await doseResponseCurve()
    expect(calculation.equation_type).toBe('Hill')
    expect((await doseResponse.calculation(vault, protocol.id, calculation.id)).id).toBe(
      calculation.id,
    )
    const read = await doseResponse.series(vault, protocol.id, calculation.id, series.id)
    expect(read.points?.[0]).toMatchObject({ x: expect.any(Number), y: expect.any(Number) })
  })

  it('constrains fit parameters of a calculation and of one curve', async () => {
    const doseResponse = harness.client('admin').doseResponse
    const vault = harness.vaults.main
    const { protocol, calculation, series } = await doseResponseCurve()
    const constrained = await doseResponse.updateCalculation(vault, protocol.id, calculation.id, {
      fit_parameters: {
        min: { modifier: '=', value: 0 },
        slope: { modifier: 'from', range: { min: 0.5, max: 3 } },
      },
    })
    expect(constrained.fit_parameters?.min).toMatchObject({ modifier: '=', value: 0 })
    const curve = await doseResponse.updateSeries(vault, protocol.id, calculation.id, series.id, {
      fit_parameters: { max: { modifier: '=', value: 100 } },
    })
    expect(curve.fit_parameters?.max).toMatchObject({ modifier: '=', value: 100 })
    const cleared = await doseResponse.updateCalculation(vault, protocol.id, calculation.id, {
      fit_parameters: {},
    })
    expect(cleared.fit_parameters).toEqual({})
  })

  it('answers 422 for an unknown fit parameter or a reversed range', async () => {
    const doseResponse = harness.client('admin').doseResponse
    const vault = harness.vaults.main
    const { protocol, calculation, series } = await doseResponseCurve()
    await expectApiError(
      doseResponse.updateCalculation(vault, protocol.id, calculation.id, {
        fit_parameters: { plateau9: { modifier: '=', value: 1 } },
      }),
      'validation',
      422,
    )
    await expectApiError(
      doseResponse.updateSeries(vault, protocol.id, calculation.id, series.id, {
        fit_parameters: { slope: { modifier: 'from', range: { min: 3, max: 1 } } },
      }),
      'validation',
      422,
    )
  })

  it('answers 404 for records that do not exist', async () => {
    const doseResponse = harness.client('admin').doseResponse
    const vault = harness.vaults.main
    const { protocol, calculation } = await doseResponseCurve()
    await expectApiError(doseResponse.calculations(vault, 999_999), 'not_found', 404)
    await expectApiError(doseResponse.calculation(vault, protocol.id, 999_999), 'not_found', 404)
    await expectApiError(
      doseResponse.updateCalculation(vault, protocol.id, 999_999, { fit_parameters: {} }),
      'not_found',
      404,
    )
    await expectApiError(doseResponse.dataSeries(vault, protocol.id, 999_999), 'not_found', 404)
    await expectApiError(
      doseResponse.series(vault, protocol.id, calculation.id, 999_999),
      'not_found',
      404,
    )
    await expectApiError(
      doseResponse.updateSeries(vault, protocol.id, calculation.id, 999_999, {
        fit_parameters: {},
      }),
      'not_found',
      404,
    )
  })

  it('keeps fit changes to those who may write (401 for a reader)', async () => {
    const { protocol, calculation } = await doseResponseCurve()
    await expectApiError(
      harness
        .client('reader')
        .doseResponse.updateCalculation(harness.vaults.main, protocol.id, calculation.id, {
          fit_parameters: {},
        }),
      'authentication',
      401,
    )
  })
})
