import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../../src-sim/index.ts'
import { cast } from '../fixtures.ts'
import { raw, record, type RawAnswer } from '../http.ts'
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
let confidential: DoseResponseFixture

beforeAll(async () => {
  sim = await startVaultSim({ seed: 16 })
  api = cast(sim)
  kinase = buildDoseResponse(sim, { projectId: api.projects.kinase.id, name: 'Kinase', curves: [] })
  gpcr = buildDoseResponse(sim, { projectId: api.projects.gpcr.id, name: 'GPCR', curves: [] })
  confidential = buildDoseResponse(sim, {
    projectId: api.projects.confidential.id,
    name: 'Partner',
    curves: [],
  })
})

afterAll(() => sim.stop())

function upload(
  token: string,
  parts: Record<string, string | Blob>,
  fileName = 'data.csv',
): Promise<RawAnswer> {
  const form = new FormData()
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === 'string') form.append(name, value)
    else form.append(name, value, fileName)
  }
  return raw(sim.baseUrl, 'POST', `${api.main}/files`, { token, rawBody: { bytes: form } })
}

const writerToken = () => sim.cast.users.writer.tokens[0]!
const bytes = Uint8Array.from([0, 1, 2, 250, 255, 13, 10])

describe('POST /files', () => {
  it('attaches a file to a run, a protocol and a molecule', async () => {
    const toRun = await upload(
      writerToken(),
      { file: new Blob([bytes]), resource_class: 'run', resource_id: String(kinase.runId) },
      'raw.bin',
    )
    expect(toRun.status).toBe(200)
    expect(record(toRun)).toEqual({ id: expect.any(Number), name: 'raw.bin' })
    const toProtocol = await upload(
      writerToken(),
      {
        file: new Blob(['step 1\n']),
        resource_class: 'protocol',
        resource_id: String(kinase.protocolId),
      },
      'SOP.txt',
    )
    expect(toProtocol.status).toBe(200)
    const molecule = batchesIn(sim, api.projects.kinase.id)[0]!.moleculeId
    const toMolecule = await upload(writerToken(), {
      file: new Blob(['x']),
      resource_class: 'molecule',
      resource_id: String(molecule),
    })
    expect(toMolecule.status).toBe(200)
  })

  it('answers 422 for missing or wrong parts, naming them', async () => {
    const missingFile = await upload(writerToken(), {
      resource_class: 'run',
      resource_id: String(kinase.runId),
    })
    expect(missingFile.status).toBe(422)
    expect(record(missingFile).error).toContain('file is required')
    const readoutRow = await upload(writerToken(), {
      file: new Blob(['x']),
      resource_class: 'readout_row',
      resource_id: '1',
    })
    expect(readoutRow.status).toBe(422)
    expect(record(readoutRow).error).toContain('attach to the run or protocol instead')
    const badId = await upload(writerToken(), {
      file: new Blob(['x']),
      resource_class: 'run',
      resource_id: 'first',
    })
    expect(badId.status).toBe(422)
    expect(record(badId).error).toContain('resource_id')
    const extra = await upload(writerToken(), {
      file: new Blob(['x']),
      resource_class: 'run',
      resource_id: String(kinase.runId),
      note: 'hi',
    })
    expect(extra.status).toBe(422)
    const notMultipart = await api.writer.post(`${api.main}/files`, { resource_class: 'run' })
    expect(notMultipart.status).toBe(400)
  })

  it('answers 404 for a resource the user cannot read and 401 without write permission', async () => {
    const reader = await upload(sim.cast.users.reader.tokens[0]!, {
      file: new Blob(['x']),
      resource_class: 'run',
      resource_id: String(kinase.runId),
    })
    expect(reader.status).toBe(401)
    const hidden = await upload(writerToken(), {
      file: new Blob(['x']),
      resource_class: 'run',
      resource_id: String(confidential.runId),
    })
    expect(hidden.status).toBe(404)
    const missing = await upload(writerToken(), {
      file: new Blob(['x']),
      resource_class: 'run',
      resource_id: '999999',
    })
    expect(missing.status).toBe(404)
    expect(record(missing).error).toBe('Run 999999 not found')
  })
})

describe('GET and DELETE /files/{file_id}', () => {
  it('returns the contents base64 encoded with the MIME type, then deletes the file', async () => {
    const created = record(
      await upload(
        writerToken(),
        { file: new Blob([bytes]), resource_class: 'run', resource_id: String(kinase.runId) },
        'plate.csv',
      ),
    )
    const path = `${api.main}/files/${numberOf(created.id)}`
    const file = record(await api.reader.get(path))
    expect(file).toMatchObject({
      id: created.id,
      class: 'uploaded file',
      name: 'plate.csv',
      mime_type: { string: 'text/csv', symbol: 'csv' },
      resource_class: 'run',
      resource_id: kinase.runId,
      size: bytes.length,
    })
    expect([...Buffer.from(String(file.contents), 'base64')]).toEqual([...bytes])
    expect((await api.reader.delete(path)).status).toBe(401)
    const deleted = await api.writer.delete(path)
    expect(deleted.status).toBe(200)
    expect(record(deleted)).toEqual({ message: `File ${numberOf(created.id)} has been destroyed` })
    expect((await api.reader.get(path)).status).toBe(404)
    expect((await api.writer.delete(path)).status).toBe(404)
  })

  it('hides files of resources the user cannot read', async () => {
    const created = record(
      await upload(sim.cast.users.admin.tokens[0]!, {
        file: new Blob(['secret']),
        resource_class: 'run',
        resource_id: String(gpcr.runId),
      }),
    )
    expect((await api.reader.get(`${api.main}/files/${numberOf(created.id)}`)).status).toBe(404)
    expect((await api.admin.get(`${api.main}/files/${numberOf(created.id)}`)).status).toBe(200)
  })
})
