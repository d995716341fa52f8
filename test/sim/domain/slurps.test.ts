import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../../src-sim/index.ts'
import { createZip } from '../../../src-sim/pure/zip-writer.ts'
import { cast, objectsOf } from '../fixtures.ts'
import { list, raw, record, type RawAnswer } from '../http.ts'
import {
  batchesIn,
  buildDoseResponse,
  CONCENTRATIONS,
  numberOf,
  type DoseResponseFixture,
} from './assay-fixture.ts'

let sim: VaultSim
let api: ReturnType<typeof cast>
let assay: DoseResponseFixture
/** A registered molecule's SMILES, to make an import ambiguous. */
let registeredSmiles: string

beforeAll(async () => {
  sim = await startVaultSim({ seed: 16 })
  api = cast(sim)
  assay = buildDoseResponse(sim, {
    projectId: api.projects.kinase.id,
    name: 'Kinase import',
    curves: [],
  })
  const molecule = batchesIn(sim, api.projects.kinase.id)[0]!.moleculeId
  registeredSmiles = String(record(await api.admin.get(`${api.main}/molecules/${molecule}`)).smiles)
})

afterAll(() => sim.stop())

function inlineTemplate(extra: [string, Record<string, unknown>][] = []): Record<string, unknown> {
  const definition = (id: number) => ({ id, type: 'ReadoutDefinition' })
  return {
    header_mappings: [
      ['Compound', { type: 'InternalFieldDefinition::MoleculeName', name: 'Molecule Name' }],
      ['Conc', definition(assay.concentrationId)],
      ['Inhibition', definition(assay.responseId)],
      ...extra,
    ].map(([header, target], position) => ({
      header: { name: header, position },
      definition: target,
    })),
  }
}

/** A CSV with each compound at 8 concentrations following a Hill curve of the given IC50. */
function doseResponseCsv(compounds: [name: string, smiles: string, ic50: number][]): string {
  const lines = ['SMILES,Compound,Conc,Inhibition']
  for (const [name, smiles, ic50] of compounds) {
    for (const concentration of CONCENTRATIONS) {
      lines.push(
        `${smiles},${name},${concentration},${(100 / (1 + ic50 / concentration)).toFixed(3)}`,
      )
    }
  }
  return lines.join('\r\n') + '\r\n'
}

function upload(
  file: Uint8Array | string,
  fileName: string,
  json: unknown,
  token = sim.cast.users.writer.tokens[0]!,
): Promise<RawAnswer> {
  const form = new FormData()
  form.append('file', new Blob([file]), fileName)
  if (json !== undefined)
    form.append('json', typeof json === 'string' ? json : JSON.stringify(json))
  return raw(sim.baseUrl, 'POST', `${api.main}/slurps`, { token, rawBody: { bytes: form } })
}

async function slurp(id: number, showEvents = false): Promise<Record<string, unknown>> {
  return record(
    await api.writer.get(
      `${api.main}/slurps/${id}`,
      showEvents ? { show_events: true } : undefined,
    ),
  )
}

/** Moves the clock past every stage of an import. */
async function settle(id: number): Promise<Record<string, unknown>> {
  sim.clock.advance(10_000)
  return slurp(id, true)
}

const options = (extra: Record<string, unknown> = {}) => ({
  project: api.projects.kinase.id,
  mapping_template: inlineTemplate(),
  runs: { run_date: '2026-03-04', person: 'R. Franklin', place: 'Lab 2' },
  ...extra,
})

describe('POST /slurps: a CSV import from start to commit', () => {
  it('moves mapping -> processing -> processed -> committing -> committed and creates the data', async () => {
    const csv = doseResponseCsv([
      ['IMP-1', 'CC(=O)Nc1ccc(O)cc1', 0.5],
      ['IMP-2', 'c1ccc2[nH]ccc2c1', 5],
    ])
    const created = await upload(csv, 'plate.csv', options())
    expect(created.status).toBe(200)
    const id = numberOf(record(created).id)
    expect(record(created)).toMatchObject({
      class: 'slurp',
      state: 'mapping',
      file_format: 'csv',
      project: { id: api.projects.kinase.id },
    })
    const states = [String((await slurp(id)).state)]
    for (const step of [1_100, 2_000, 500, 2_000]) {
      sim.clock.advance(step)
      states.push(String((await slurp(id)).state))
    }
    expect(states).toEqual(['mapping', 'processing', 'processed', 'committing', 'committed'])
    const done = await slurp(id)
    expect(done.summary).toMatchObject({
      records: 16,
      records_skipped: 0,
      molecules_created: 2,
      molecules_matched: 0,
      batches_created: 2,
      runs_created: 1,
      readout_rows_created: 16,
    })
    const runs = objectsOf(record(await api.writer.get(`${api.main}/runs`, { slurp: id })))
    expect(runs).toEqual([
      expect.objectContaining({ slurp: id, run_date: '2026-03-04', person: 'R. Franklin' }),
    ])
    const aggregates = objectsOf(
      record(
        await api.writer.post(`${api.main}/readout_rows/query`, {
          runs: [runs[0]!.id],
          type: 'aggregate',
        }),
      ),
    ) as { molecule: number; readouts: Record<string, { value: number }> }[]
    const byName = new Map<string, number>()
    for (const row of aggregates) {
      const molecule = record(await api.writer.get(`${api.main}/molecules/${row.molecule}`))
      byName.set(String(molecule.name), row.readouts[String(assay.resultId)]!.value)
    }
    expect(byName.get('IMP-1')).toBeCloseTo(0.5, 2)
    expect(byName.get('IMP-2')).toBeCloseTo(5, 2)
  })
})

describe('import files', () => {
  it('imports an SD file with a seeded template by name, filling molecule and batch fields', async () => {
    const molblock = (
      await api.admin.get(
        `${api.main}/molecules/${batchesIn(sim, api.projects.kinase.id)[1]!.moleculeId}`,
      )
    ).json as {
      molfile?: string
    }
    expect(molblock.molfile).toBeTruthy()
    const sdf = [
      `${molblock.molfile!.trimEnd()}\n> <Name>\nSDF-1\n\n> <Series>\nBenzamides\n\n> <Purity>\n98.5\n\n> <Chemist>\nR. Franklin\n\n$$$$\n`,
      `\n  hand-written\n\n  2  1  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n    1.2990    0.7500    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0\n  1  2  1  0\nM  END\n> <Name>\nSDF-2\n\n$$$$\n`,
    ].join('')
    const created = record(
      await upload(sdf, 'delivery.sdf', {
        project: api.projects.kinase.name,
        mapping_template: 'Compound registration (SDF)',
        suspicious_events_resolution: 'accept',
        ambiguous_events_resolution: 'new_molecule',
      }),
    )
    const done = await settle(numberOf(created.id))
    expect(done.import_errors).toEqual([])
    expect(done.state).toBe('committed')
    expect(done.summary).toMatchObject({
      records: 2,
      molecules_created: 2,
      batches_created: 2,
      runs_created: 0,
    })
    expect(done.mapping_template).toMatchObject({ name: 'Compound registration (SDF)' })
    const found = record(await api.writer.post(`${api.main}/molecules/query`, { names: ['SDF-2'] }))
    expect(objectsOf(found)[0]).toMatchObject({ name: 'SDF-2', smiles: 'CO' })
  })

  it('imports the first sheet of an XLSX workbook', async () => {
    const sheet = `<worksheet><sheetData>
      <row r="1"><c r="A1" t="inlineStr"><is><t>SMILES</t></is></c><c r="B1" t="inlineStr"><is><t>Compound</t></is></c><c r="C1" t="inlineStr"><is><t>Conc</t></is></c><c r="D1" t="inlineStr"><is><t>Inhibition</t></is></c></row>
      <row r="2"><c t="inlineStr"><is><t>CCN(CC)CC</t></is></c><c t="inlineStr"><is><t>XL-1</t></is></c><c><v>10</v></c><c t="inlineStr"><is><t>&gt;95</t></is></c></row>
    </sheetData></worksheet>`
    const workbook = createZip([
      {
        name: 'xl/workbook.xml',
        data: '<workbook><sheets><sheet name="S" sheetId="1"/></sheets></workbook>',
      },
      { name: 'xl/worksheets/sheet1.xml', data: sheet },
    ])
    const done = await settle(
      numberOf(record(await upload(workbook, 'results.xlsx', options())).id),
    )
    expect(done.state).toBe('committed')
    const [run] = done.summary ? (done.summary as { runs: number[] }).runs : []
    const rows = objectsOf(
      record(
        await api.writer.post(`${api.main}/readout_rows/query`, { runs: [run], type: 'detail' }),
      ),
    )
    expect((rows[0]!.readouts as Record<string, unknown>)[String(assay.responseId)]).toEqual({
      value: 95,
      modifier: '>',
    })
  })

  it('imports the CSV files inside a ZIP', async () => {
    const zip = createZip([
      { name: 'part1.csv', data: doseResponseCsv([['ZIP-1', 'CCCCO', 2]]) },
      { name: 'readme.txt', data: 'ignored' },
    ])
    const done = await settle(numberOf(record(await upload(zip, 'batch.zip', options())).id))
    expect(done).toMatchObject({
      state: 'committed',
      file_format: 'zip',
      summary: expect.objectContaining({ readout_rows_created: 8 }),
    })
  })
})

describe('events and import errors', () => {
  it('lists ambiguous events under show_events and rejects with autoreject when unresolved', async () => {
    const csv = doseResponseCsv([['AMB-1', registeredSmiles, 1]])
    const waiting = await settle(numberOf(record(await upload(csv, 'a.csv', options())).id))
    expect(waiting.state).toBe('processed')
    expect(waiting.ambiguous_events).toEqual(
      Array.from({ length: 8 }, (_, index) =>
        expect.objectContaining({
          record: index + 1,
          resolution: 'none',
          message: expect.stringContaining('already registered'),
        }),
      ),
    )
    expect(waiting.import_errors).toEqual([])
    expect((await slurp(numberOf(waiting.id))).ambiguous_events).toBeUndefined()
    // Nothing in the API resolves events, so the waiting import is canceled to free its slot.
    await api.writer.delete(`${api.main}/runs`, { slurp: numberOf(waiting.id) })
    expect((await slurp(numberOf(waiting.id))).state).toBe('canceled')
    const rejected = await settle(
      numberOf(record(await upload(csv, 'a.csv', options({ autoreject: true }))).id),
    )
    expect(rejected.state).toBe('rejected')
  })

  it('adds a batch to the registered molecule with ambiguous_events_resolution new_batch', async () => {
    const csv = doseResponseCsv([['AMB-2', registeredSmiles, 1]])
    const done = await settle(
      numberOf(
        record(await upload(csv, 'a.csv', options({ ambiguous_events_resolution: 'new_batch' })))
          .id,
      ),
    )
    expect(done.state).toBe('committed')
    expect(done.summary).toMatchObject({
      molecules_created: 0,
      molecules_matched: 1,
      batches_created: 1,
    })
  })

  it('rejects an import with suspicious readouts when asked to', async () => {
    const csv = 'SMILES,Compound,Conc,Inhibition\nCCO,SUS-1,-5,40\n'
    const done = await settle(
      numberOf(
        record(await upload(csv, 's.csv', options({ suspicious_events_resolution: 'reject' }))).id,
      ),
    )
    expect(done.state).toBe('rejected')
    expect(done.suspicious_events).toEqual([
      { record: 1, message: 'implausible readout: a concentration of -5 uM', resolution: 'reject' },
    ])
  })

  it('marks an import with errors invalid, or commits the good records with ignore_errors', async () => {
    const csv =
      'SMILES,Compound,Conc,Inhibition\nCCO,ERR-1,1,40\nC1CC(,ERR-2,1,40\nCCN,ERR-3,1,lots\n'
    const invalid = await settle(numberOf(record(await upload(csv, 'e.csv', options())).id))
    expect(invalid.state).toBe('invalid')
    expect(invalid.import_errors).toEqual([
      { record: 2, message: expect.stringContaining('C1CC(') },
      { record: 3, message: "'lots' in column 'Inhibition' is not a number for % Inhibition" },
    ])
    const tolerant = await settle(
      numberOf(record(await upload(csv, 'e.csv', options({ ignore_errors: true }))).id),
    )
    expect(tolerant.state).toBe('committed')
    expect(tolerant.summary).toMatchObject({ records: 3, records_skipped: 2, molecules_created: 1 })
  })

  it('marks a file that cannot be read invalid, naming the problem', async () => {
    const broken = await settle(
      numberOf(record(await upload('SMILES,Compound\n"CCO,unclosed\n', 'b.csv', options())).id),
    )
    expect(broken.state).toBe('invalid')
    expect(broken.import_errors).toEqual([
      { record: 0, message: 'the file cannot be read: CSV line 2: a quoted field is never closed' },
    ])
    const missingColumn = await settle(
      numberOf(record(await upload('SMILES,Compound\nCCO,X\n', 'c.csv', options())).id),
    )
    expect(missingColumn.import_errors).toEqual(
      expect.arrayContaining([
        { record: 0, message: "the file has no column 'Conc', which the mapping template maps" },
      ]),
    )
  })
})

describe('POST /slurps validation', () => {
  it('answers 422 for missing parts and bad import options, naming them', async () => {
    const csv = 'SMILES\nCCO\n'
    const cases: [Uint8Array | string, string, unknown, string][] = [
      [csv, 'data.txt', options(), 'is not an .sdf, .csv, .xlsx or .zip file'],
      [csv, 'data.csv', undefined, 'json is required'],
      [csv, 'data.csv', '{not json', 'json must be a JSON object'],
      [csv, 'data.csv', { mapping_template: inlineTemplate() }, 'json.project is required'],
      [csv, 'data.csv', options({ project: 'Nowhere' }), 'json.project "Nowhere" is not a project'],
      [
        csv,
        'data.csv',
        options({ mapping_template: 'No such template' }),
        'is not a mapping template of this vault',
      ],
      [
        csv,
        'data.csv',
        options({ mapping_template: undefined }),
        'json.mapping_template is required',
      ],
      [
        csv,
        'data.csv',
        options({ ambiguous_events_resolution: 'maybe' }),
        'json.ambiguous_events_resolution',
      ],
      [csv, 'data.csv', options({ runs: { run_date: 'soon' } }), 'json.runs[0].run_date'],
      [csv, 'data.csv', options({ colour: 'blue' }), "'json.colour' is not a known parameter"],
      [csv, 'data.csv', options({ project: api.projects.gpcr.id }), 'is not a project of protocol'],
    ]
    for (const [file, name, json, message] of cases) {
      const answer = await upload(file, name, json)
      expect(answer.status, message).toBe(422)
      expect(record(answer).error).toContain(message)
    }
    expect(
      (await upload(csv, 'data.csv', options(), sim.cast.users.reader.tokens[0]!)).status,
    ).toBe(401)
  })

  it('answers 429 beyond three imports under way for the user', async () => {
    const csv = doseResponseCsv([['LIM', 'CCCC', 1]])
    const ids: number[] = []
    for (let index = 0; index < 3; index += 1)
      ids.push(numberOf(record(await upload(csv, 'l.csv', options())).id))
    const refused = await upload(csv, 'l.csv', options())
    expect(refused.status).toBe(429)
    expect(record(refused).error).toContain('at most 3')
    expect(refused.headers.get('retry-after')).toBe('5')
    const active = list(await api.writer.get(`${api.main}/slurps`))
    expect(active.map((item) => item.id)).toEqual(ids)
    const status = record(await api.admin.get(`${api.main}/status`))
    expect(status.slurps).toHaveLength(3)
    sim.clock.advance(10_000)
    expect(list(await api.writer.get(`${api.main}/slurps`))).toEqual([])
    expect((await upload(csv, 'l.csv', options())).status).toBe(200)
    sim.clock.advance(10_000)
  })
})

describe('GET /slurps/{id}', () => {
  it('answers 404 for an unknown slurp and for another user’s slurp', async () => {
    expect((await api.writer.get(`${api.main}/slurps/999999`)).status).toBe(404)
    const id = numberOf(record(await upload('SMILES\nCCO\n', 'x.csv', options())).id)
    expect((await api.reader.get(`${api.main}/slurps/${id}`)).status).toBe(404)
    expect((await api.admin.get(`${api.main}/slurps/${id}`)).status).toBe(200)
    sim.clock.advance(10_000)
  })
})

describe('DELETE /runs?slurp=', () => {
  it('deletes every run a committed import created, and cancels an import under way', async () => {
    const done = await settle(
      numberOf(
        record(await upload(doseResponseCsv([['DEL-1', 'CCCN', 1]]), 'd.csv', options())).id,
      ),
    )
    const runIds = (done.summary as { runs: number[] }).runs
    expect(runIds).toHaveLength(1)
    expect((await api.reader.delete(`${api.main}/runs`, { slurp: numberOf(done.id) })).status).toBe(
      401,
    )
    const answer = record(await api.writer.delete(`${api.main}/runs`, { slurp: numberOf(done.id) }))
    expect(answer.runs).toEqual(runIds)
    expect((await api.writer.get(`${api.main}/runs/${runIds[0]}`)).status).toBe(404)
    const pending = numberOf(
      record(await upload(doseResponseCsv([['DEL-2', 'CCCCN', 1]]), 'd.csv', options())).id,
    )
    const canceled = record(await api.writer.delete(`${api.main}/runs`, { slurp: pending }))
    expect(canceled).toMatchObject({ runs: [], message: expect.stringContaining('canceled') })
    sim.clock.advance(10_000)
    expect((await slurp(pending)).state).toBe('canceled')
  })
})
