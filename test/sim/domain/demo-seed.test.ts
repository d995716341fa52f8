import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../../src-sim/index.ts'
import { cast, objectsOf } from '../fixtures.ts'
import { list, raw, record } from '../http.ts'
import { numberOf } from './assay-fixture.ts'

let sim: VaultSim
let api: ReturnType<typeof cast>

beforeAll(async () => {
  sim = await startVaultSim({ seed: 'demo' })
  api = cast(sim)
})

afterAll(() => sim.stop())

interface Cell {
  value?: number | string
  modifier?: string
  outlier?: boolean
  note?: string
}

async function allRows(): Promise<{ type: string; readouts: Record<string, Cell> }[]> {
  const answer = record(await api.admin.post(`${api.main}/readout_rows/query`, { page_size: 1000 }))
  const rows = objectsOf(answer)
  for (let offset = 1000; offset < numberOf(answer.count); offset += 1000) {
    rows.push(
      ...objectsOf(
        record(await api.admin.post(`${api.main}/readout_rows/query`, { page_size: 1000, offset })),
      ),
    )
  }
  return rows as unknown as { type: string; readouts: Record<string, Cell> }[]
}

/** A digest of the domain tables (times aside: seeds date records back from now). */
function digest(target: VaultSim): string {
  const hash = createHash('sha256')
  for (const sql of [
    `SELECT row_id, definition_id, number_value, text_value, modifier, outlier, note FROM readout_cells ORDER BY row_id, definition_id`,
    `SELECT batch_id, fit FROM dose_response_series ORDER BY id`,
    `SELECT sample_id, event_type, amount FROM inventory_events ORDER BY id`,
    `SELECT title, status, body FROM eln_entries ORDER BY id`,
    `SELECT plate_id, row, col, batch_id, sample_id FROM plate_wells ORDER BY plate_id, row, col`,
  ]) {
    hash.update(JSON.stringify(target.core.db.prepare(sql).all()))
  }
  return hash.digest('hex')
}

describe('the demo seed', () => {
  it('has dose-response protocols whose rows carry outliers, qualifiers, notes and aggregate results', async () => {
    const protocols = objectsOf(record(await api.admin.get(`${api.main}/protocols`)))
    expect(protocols.map((protocol) => protocol.name)).toEqual([
      'Kinase IC50 (ADP-Glo)',
      'GPCR Radioligand Displacement',
      'Kinetic Solubility (PBS pH 7.4)',
      'Partner Selectivity Panel',
    ])
    const rows = await allRows()
    const cells = rows.flatMap((row) => Object.values(row.readouts))
    expect(rows.some((row) => row.type === 'aggregate row')).toBe(true)
    expect(cells.some((cell) => cell.outlier === true && cell.note === 'pipetting error')).toBe(
      true,
    )
    expect(cells.some((cell) => cell.modifier === '<')).toBe(true)
    expect(cells.some((cell) => cell.modifier === '>')).toBe(true)
    expect(cells.some((cell) => cell.note !== undefined && cell.value === undefined)).toBe(false)
    expect(cells.some((cell) => typeof cell.value === 'string')).toBe(true)
  })

  it('has plates with control wells and layouts, and plate statistics on every dose-response run', async () => {
    const layouts = objectsOf(record(await api.admin.get(`${api.main}/control_layouts`)))
    expect(layouts.length).toBeGreaterThanOrEqual(3)
    const states = new Set(
      layouts.flatMap((layout) =>
        (layout.control_wells as { control_state: string }[]).map((well) => well.control_state),
      ),
    )
    expect(states).toEqual(new Set(['+', '-', '#']))
    const run = record(await api.admin.get(`${api.main}/runs/1`))
    const [statistics] = run.plate_statistics as { z_prime: number }[]
    expect(statistics!.z_prime).toBeGreaterThan(0.5)
  })

  it('has an inventory tree and samples with credit and debit events', async () => {
    const locations = list(await api.admin.get(`${api.main}/inventory_locations`))
    expect(locations.some((location) => location.parent_id !== null)).toBe(true)
    const samples = objectsOf(
      record(await api.admin.get(`${api.main}/inventory_samples`, { page_size: 1000 })),
    )
    expect(samples.length).toBeGreaterThan(20)
    const events = samples.flatMap((sample) => sample.inventory_events as { event_type: string }[])
    expect(new Set(events.map((event) => event.event_type))).toEqual(new Set(['Credit', 'Debit']))
    const tied = samples.find((sample) => sample.id === 1)!
    expect(
      (await api.admin.delete(`${api.main}/inventory_samples/${numberOf(tied.id)}`)).status,
    ).toBe(422)
  })

  it('has notebook entries in every status', async () => {
    const entries = list(await api.admin.post(`${api.main}/eln/entries/query`, {}))
    expect(new Set(entries.map((entry) => entry.status))).toEqual(
      new Set(['open', 'submitted', 'finalized', 'discarded']),
    )
  })

  it('has mapping templates that a slurp can import with', async () => {
    const templates = list(await api.admin.get(`${api.main}/mapping_templates`))
    expect(templates.map((template) => template.name)).toContain('Kinase IC50 import (CSV)')
    const form = new FormData()
    const rows = [30, 10, 3, 1, 0.3, 0.1].map(
      (x) => `c1ccc2c(c1)cccc2O,DEMO-1,${x},${(100 / (1 + 1 / x)).toFixed(1)},5000,`,
    )
    form.append(
      'file',
      new Blob([
        `SMILES,Compound,Concentration (uM),% Inhibition,RLU,Comment\n${rows.join('\n')}\n`,
      ]),
      'demo.csv',
    )
    form.append(
      'json',
      JSON.stringify({
        project: 'Kinase Inhibitors',
        mapping_template: 'Kinase IC50 import (CSV)',
      }),
    )
    const created = record(
      await raw(sim.baseUrl, 'POST', `${api.main}/slurps`, {
        token: sim.cast.users.writer.tokens[0]!,
        rawBody: { bytes: form },
      }),
    )
    sim.clock.advance(10_000)
    const done = record(
      await api.writer.get(`${api.main}/slurps/${numberOf(created.id)}`, { show_events: true }),
    )
    expect(done).toMatchObject({
      state: 'committed',
      summary: expect.objectContaining({ readout_rows_created: 6 }),
    })
  })

  it('is the same on every run', async () => {
    const again = await startVaultSim({ seed: 'demo' })
    try {
      const fresh = await startVaultSim({ seed: 'demo' })
      try {
        expect(digest(again)).toBe(digest(fresh))
      } finally {
        await fresh.stop()
      }
    } finally {
      await again.stop()
    }
  })
})
