import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../../src-sim/index.ts'
import { cast } from '../fixtures.ts'
import { record } from '../http.ts'
import { batchesIn, buildDoseResponse, type DoseResponseFixture } from './assay-fixture.ts'

let sim: VaultSim
let api: ReturnType<typeof cast>
let assay: DoseResponseFixture
let potent: number
let weak: number
let untested: number

beforeAll(async () => {
  sim = await startVaultSim({ seed: 16 })
  api = cast(sim)
  const batches = batchesIn(sim, api.projects.kinase.id)
  ;[potent, weak, untested] = [batches[0]!.id, batches[1]!.id, batches[2]!.id]
  assay = buildDoseResponse(sim, {
    projectId: api.projects.kinase.id,
    name: 'Kinase',
    curves: [
      { batchId: potent, ic50: 0.1 },
      { batchId: weak, ic50: 8 },
    ],
  })
  sim.core.db
    .prepare(
      `INSERT INTO protocol_field_values (protocol_id, name, value) VALUES (?, 'Target', 'EGFR')`,
    )
    .run(assay.protocolId)
})

afterAll(() => sim.stop())

async function batchIds(criteria: Record<string, unknown>[]): Promise<number[]> {
  const answer = await api.admin.post(`${api.main}/batches/query`, {
    protocol_criteria: criteria,
    only_ids: true,
    projects: [api.projects.kinase.id],
  })
  expect(answer.status, JSON.stringify(answer.json)).toBe(200)
  return (record(answer).objects as number[]).filter((id) => [potent, weak, untested].includes(id))
}

describe('protocol_criteria of batch and molecule queries', () => {
  it('selects batches with data in a protocol, or by a readout compared with a value', async () => {
    expect(await batchIds([{ protocol_id: assay.protocolId }])).toEqual([potent, weak])
    const below = await batchIds([
      {
        protocol_id: assay.protocolId,
        readout_definition_id: assay.resultId,
        operator: '<',
        readout_value: '1',
      },
    ])
    expect(below).toEqual([potent])
    const range = await batchIds([
      {
        protocol_id: assay.protocolId,
        readout_definition_id: assay.resultId,
        operator: 'from',
        readout_value: '5',
        readout_value_maximum: '10',
      },
    ])
    expect(range).toEqual([weak])
    const atLeast = await batchIds([
      {
        protocol_id: assay.protocolId,
        readout_definition_id: assay.resultId,
        operator: '≥',
        readout_value: '0.1',
      },
    ])
    expect(atLeast).toEqual([potent, weak])
  })

  it('selects the molecules of matching batches in molecule queries', async () => {
    const moleculeOf = (batchId: number) =>
      batchesIn(sim, api.projects.kinase.id).find((batch) => batch.id === batchId)!.moleculeId
    const answer = await api.admin.post(`${api.main}/molecules/query`, {
      protocol_criteria: [
        {
          protocol_id: assay.protocolId,
          readout_definition_id: assay.resultId,
          operator: '<',
          readout_value: '1',
        },
      ],
      only_ids: true,
    })
    expect(answer.status, JSON.stringify(answer.json)).toBe(200)
    expect(record(answer).objects).toEqual([moleculeOf(potent)])
    const invalid = await api.admin.post(`${api.main}/molecules/query`, {
      protocol_criteria: [{ protocol_id: assay.protocolId, operator: 'near' }],
    })
    expect(invalid.status).toBe(422)
    expect(record(invalid).error).toContain('protocol_criteria[0].operator')
  })

  it('negates criteria and combines them with junctions', async () => {
    const negated = await batchIds([{ protocol_id: assay.protocolId, negated: true }])
    expect(negated).toEqual([untested])
    const either = await batchIds([
      {
        protocol_id: assay.protocolId,
        readout_definition_id: assay.resultId,
        operator: '<',
        readout_value: '1',
      },
      {
        protocol_id: assay.protocolId,
        readout_definition_id: assay.resultId,
        operator: '>',
        readout_value: '5',
        junction: 'OR',
      },
    ])
    expect(either).toEqual([potent, weak])
    const both = await batchIds([
      {
        protocol_id: assay.protocolId,
        readout_definition_id: assay.resultId,
        operator: '<',
        readout_value: '1',
      },
      {
        protocol_id: assay.protocolId,
        readout_definition_id: assay.resultId,
        operator: '>',
        readout_value: '5',
      },
    ])
    expect(both).toEqual([])
  })

  it('selects by run date, run id and protocol field', async () => {
    const runDay = String(record(await api.admin.get(`${api.main}/runs/${assay.runId}`)).run_date)
    expect(
      await batchIds([
        { protocol_id: assay.protocolId, run_criterion: 'run_date', run_after: runDay },
      ]),
    ).toEqual([potent, weak])
    expect(
      await batchIds([
        { protocol_id: assay.protocolId, run_criterion: 'run_date', run_before: runDay },
      ]),
    ).toEqual([])
    expect(
      await batchIds([
        { protocol_id: assay.protocolId, run_criterion: 'run_id', run_id: assay.runId },
      ]),
    ).toEqual([potent, weak])
    expect(
      await batchIds([
        { protocol_id: assay.protocolId, run_criterion: 'recent', since_days_ago: 30 },
      ]),
    ).toEqual([potent, weak])
    expect(
      await batchIds([
        { protocol_id: assay.protocolId, run_criterion: 'recent', since_days_ago: 1 },
      ]),
    ).toEqual([])
    expect(
      await batchIds([{ criterion_type: 'protocol field', field: 'Target', query: 'EGF' }]),
    ).toEqual([potent, weak])
  })

  it('answers 422 naming the criterion member at fault', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'protocol_criteria[0].protocol_id'],
      [{ protocol_id: assay.protocolId, operator: 'about' }, 'protocol_criteria[0].operator'],
      [
        { protocol_id: assay.protocolId, readout_definition_id: assay.resultId, operator: '<' },
        'protocol_criteria[0].readout_value',
      ],
      [
        {
          protocol_id: assay.protocolId,
          readout_definition_id: assay.resultId,
          operator: '<',
          readout_value: 'x',
        },
        'must be a number',
      ],
      [{ protocol_id: assay.protocolId, run_criterion: 'run_id' }, 'protocol_criteria[0].run_id'],
      [{ protocol_id: assay.protocolId, junction: 'XOR' }, 'protocol_criteria[0].junction'],
      [{ protocol_id: assay.protocolId, colour: 'red' }, "'protocol_criteria[0].colour'"],
    ]
    for (const [criterion, message] of cases) {
      const answer = await api.admin.post(`${api.main}/batches/query`, {
        protocol_criteria: [criterion],
      })
      expect(answer.status, JSON.stringify(criterion)).toBe(422)
      expect(record(answer).error).toContain(message)
    }
  })
})
