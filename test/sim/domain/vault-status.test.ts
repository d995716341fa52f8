import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../../src-sim/index.ts'
import { cast } from '../fixtures.ts'
import { raw, record } from '../http.ts'
import { buildDoseResponse, numberOf } from './assay-fixture.ts'

let sim: VaultSim
let api: ReturnType<typeof cast>

beforeAll(async () => {
  sim = await startVaultSim({ seed: 4 })
  api = cast(sim)
})

afterAll(() => sim.stop())

describe('GET /status', () => {
  it('reports an idle vault with background processing available', async () => {
    expect(record(await api.admin.get(`${api.main}/status`))).toEqual({
      max_executing_account_slurps: 3,
      num_executing_account_slurps: 0,
      any_locking_chemistry_slurps: false,
      any_executing_batch_move_job: false,
      slurps: [],
      recalculating_protocols: [],
      application_status: { processors_available: true, calculators_available: true },
    })
  })

  it('follows an import through its states, locking chemistry while it commits', async () => {
    const assay = buildDoseResponse(sim, {
      projectId: api.projects.kinase.id,
      name: 'Status',
      curves: [],
    })
    const form = new FormData()
    form.append('file', new Blob(['SMILES,Compound,Conc,Inhibition\nCCO,ST-1,1,50\n']), 'one.csv')
    form.append(
      'json',
      JSON.stringify({
        project: api.projects.kinase.id,
        mapping_template: {
          header_mappings: [
            {
              header: { name: 'Compound' },
              definition: { type: 'InternalFieldDefinition::MoleculeName' },
            },
            {
              header: { name: 'Conc' },
              definition: { id: assay.concentrationId, type: 'ReadoutDefinition' },
            },
            {
              header: { name: 'Inhibition' },
              definition: { id: assay.responseId, type: 'ReadoutDefinition' },
            },
          ],
        },
      }),
    )
    const created = record(
      await raw(sim.baseUrl, 'POST', `${api.main}/slurps`, {
        token: sim.cast.users.admin.tokens[0]!,
        rawBody: { bytes: form },
      }),
    )
    const status = async () => record(await api.admin.get(`${api.main}/status`))
    const first = await status()
    expect(first).toMatchObject({
      num_executing_account_slurps: 1,
      any_locking_chemistry_slurps: false,
      slurps: [
        {
          id: created.id,
          state: 'mapping',
          owner: 'Ada Lovelace',
          project: { id: api.projects.kinase.id },
        },
      ],
    })
    sim.clock.advance(3_600)
    expect(await status()).toMatchObject({
      any_locking_chemistry_slurps: true,
      slurps: [{ id: created.id, state: 'committing' }],
    })
    sim.clock.advance(2_000)
    expect(await status()).toMatchObject({ num_executing_account_slurps: 0, slurps: [] })
    expect(numberOf(created.id)).toBeGreaterThan(0)
  })

  it('is reserved for vault administrators', async () => {
    expect((await api.writer.get(`${api.main}/status`)).status).toBe(401)
    expect((await api.admin.get(`${api.main}/status`, { verbose: true })).status).toBe(422)
  })
})
