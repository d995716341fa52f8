import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
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
    // The molecule's record lists its files (docs/spec/gaps.md: source_files[{id,name}]), oldest
    // first.
    const listed = record(await api.reader.get(`${api.main}/molecules/${molecule}`)).source_files
    expect(listed).toContainEqual({ id: record(toMolecule).id, name: 'data.csv' })
    expect((listed as { id: number }[]).map((file) => file.id)).toEqual(
      (listed as { id: number }[]).map((file) => file.id).sort((a, b) => a - b),
    )
    // Its record in a list lists them too (sync reads molecules by lists and exports), and one
    // without files has no such member (sparse, as docs/spec/gaps.md allows).
    const queried = record(
      await api.reader.post(`${api.main}/molecules/query`, {
        page_size: 1000,
        no_structures: true,
      }),
    ).objects as { id: number; source_files?: unknown }[]
    expect(queried.find((entry) => entry.id === molecule)?.source_files).toEqual(listed)
    const withoutFiles = queried.find((entry) => entry.id !== molecule)
    expect(withoutFiles).toBeDefined()
    expect(withoutFiles).not.toHaveProperty('source_files')
    // A run and a protocol list theirs too, alone and in their lists (as the deployed service's
    // run records do), so that sync learns of them with the records.
    const runFile = { id: record(toRun).id, name: 'raw.bin' }
    const protocolFile = { id: record(toProtocol).id, name: 'SOP.txt' }
    expect(record(await api.reader.get(`${api.main}/runs/${kinase.runId}`)).source_files).toEqual([
      runFile,
    ])
    const runs = record(await api.reader.get(`${api.main}/runs?protocols=${kinase.protocolId}`))
    expect(
      (runs.objects as { id: number; source_files: unknown }[]).find(
        (run) => run.id === kinase.runId,
      )?.source_files,
    ).toEqual([runFile])
    expect(
      record(await api.reader.get(`${api.main}/protocols/${kinase.protocolId}`)).source_files,
    ).toEqual([protocolFile])
    const protocols = record(
      await api.reader.get(`${api.main}/protocols?protocols=${kinase.protocolId}`),
    )
    expect((protocols.objects as { source_files: unknown }[])[0]?.source_files).toEqual([
      protocolFile,
    ])
  })

  it('changes a notebook entry when a file is attached to it or removed, for modified_after', async () => {
    const created = await api.writer.post(`${api.main}/eln/entries`, {
      title: 'Files change me',
      project: api.projects.kinase.id,
    })
    expect(created.status).toBe(200)
    const entryId = record(created).id as number
    const changedSince = async (since: string) =>
      (
        (await api.admin.post(`${api.main}/eln/entries/query`, { modified_after: since })).json as {
          id: number
        }[]
      ).map((entry) => entry.id)
    sim.clock.advance(60_000)
    const afterCreate = new Date(sim.clock.nowMillis() - 1_000).toISOString()
    expect(await changedSince(afterCreate)).not.toContain(entryId)
    const attached = await upload(
      writerToken(),
      { file: new Blob(['a,b\n']), resource_class: 'eln_entry', resource_id: String(entryId) },
      'notes.csv',
    )
    expect(attached.status).toBe(200)
    expect(await changedSince(afterCreate)).toContain(entryId)
    sim.clock.advance(60_000)
    const afterAttach = new Date(sim.clock.nowMillis() - 1_000).toISOString()
    expect(await changedSince(afterAttach)).not.toContain(entryId)
    const removed = await api.writer.delete(`${api.main}/files/${record(attached).id}`)
    expect(removed.status).toBe(200)
    expect(await changedSince(afterAttach)).toContain(entryId)
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

describe('file contents on disk', () => {
  it('keeps contents out of SQLite and answers every size whole, base64 encoded', async () => {
    // Sizes around the encoder's 768 KiB pieces and its 3-byte groups.
    for (const size of [0, 1, 2, 3, 786_431, 786_432, 786_433, 2_500_001]) {
      const content = randomBytes(size)
      const created = record(
        await upload(
          writerToken(),
          { file: new Blob([content]), resource_class: 'run', resource_id: String(kinase.runId) },
          `reading-${size}.bin`,
        ),
      )
      const id = numberOf(created.id)
      const stored = path.join(sim.core.filesDirectory, String(id))
      expect(fs.readFileSync(stored).equals(content)).toBe(true)
      const answer = await api.writer.get(`${api.main}/files/${id}`)
      expect(Number(answer.headers.get('content-length'))).toBe(answer.bytes.length)
      const file = record(answer)
      expect(file).toMatchObject({ id, name: `reading-${size}.bin`, size })
      expect(Buffer.from(String(file.contents), 'base64').equals(content)).toBe(true)
    }
    const columns = sim.core.db.prepare(`PRAGMA table_info(uploaded_files)`).all() as {
      name: string
    }[]
    expect(columns.map((column) => column.name)).not.toContain('contents')
  })

  it('deletes the contents with the file', async () => {
    const created = record(
      await upload(writerToken(), {
        file: new Blob(['gone soon']),
        resource_class: 'run',
        resource_id: String(kinase.runId),
      }),
    )
    const id = numberOf(created.id)
    const stored = path.join(sim.core.filesDirectory, String(id))
    expect(fs.existsSync(stored)).toBe(true)
    expect((await api.writer.delete(`${api.main}/files/${id}`)).status).toBe(200)
    expect(fs.existsSync(stored)).toBe(false)
  })

  it('keeps contents beside a --db file across restarts, and sweeps those no row names', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-sim-files-'))
    const db = path.join(folder, 'vault.db')
    try {
      const first = await startVaultSim({ seed: 'empty', db })
      let id: number
      const content = randomBytes(100_000)
      try {
        const vault = first.cast.vaults.main.id
        const token = first.cast.users.admin.tokens[0]!
        const entry = record(
          await raw(first.baseUrl, 'POST', `/vaults/${vault}/eln/entries`, {
            token,
            body: { title: 'Kept', project: first.cast.projects.kinase.id },
          }),
        )
        const form = new FormData()
        form.append('file', new Blob([content]), 'kept.bin')
        form.append('resource_class', 'eln_entry')
        form.append('resource_id', String(numberOf(entry.id)))
        const created = await raw(first.baseUrl, 'POST', `/vaults/${vault}/files`, {
          token,
          rawBody: { bytes: form },
        })
        expect(created.status).toBe(200)
        id = numberOf(record(created).id)
        expect(first.core.filesDirectory).toBe(`${db}-files`)
      } finally {
        await first.stop()
      }
      fs.writeFileSync(path.join(`${db}-files`, '999999'), 'no row names this')
      const second = await startVaultSim({ seed: 'empty', db })
      try {
        const answer = await raw(
          second.baseUrl,
          'GET',
          `/vaults/${second.cast.vaults.main.id}/files/${id}`,
          { token: second.cast.users.admin.tokens[0]! },
        )
        expect(answer.status).toBe(200)
        expect(Buffer.from(String(record(answer).contents), 'base64').equals(content)).toBe(true)
        expect(fs.readdirSync(`${db}-files`)).toEqual([String(id)])
      } finally {
        await second.stop()
      }
    } finally {
      fs.rmSync(folder, { recursive: true, force: true })
    }
  })
})
