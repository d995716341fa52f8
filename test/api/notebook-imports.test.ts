import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { UploadProgress } from '../../src-main/api/multipart.ts'
import { expectApiError, useSim } from './support/sim.ts'

const harness = useSim()
let directory: string

beforeAll(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-api-notebook-'))
})
afterAll(() => {
  fs.rmSync(directory, { recursive: true, force: true })
})

function writeFile(name: string, content: string | Buffer): string {
  const file = path.join(directory, name)
  fs.writeFileSync(file, content)
  return file
}

async function newEntry(title: string) {
  return harness.client('writer').elnEntries.create(harness.vaults.main, {
    title,
    project: harness.projects.kinase,
    eln_fields: {},
  })
}

describe('ELN entries', () => {
  it('creates an entry, appends text, a link and an attached file', async () => {
    const client = harness.client('writer')
    const vault = harness.vaults.main
    const entry = await newEntry('API notebook entry')
    expect(entry).toMatchObject({ name: 'API notebook entry', status: 'open' })
    const attached = await client.files.attach(vault, {
      file: writeFile('spectrum.txt', 'peak at 254 nm\n'),
      resource_class: 'eln_entry',
      resource_id: entry.id,
    })
    const updated = await client.elnEntries.update(vault, entry.id, {
      append_to_body: [
        { type: 'text', text: 'Yield 82%.' },
        { type: 'link', url: 'https://example.org/protocol', label: 'protocol' },
        { type: 'file', file: attached.id },
      ],
    })
    expect(updated.body).toEqual([
      expect.objectContaining({ type: 'text' }),
      expect.objectContaining({ type: 'link' }),
      expect.objectContaining({ type: 'file', file: attached.id }),
    ])
  })

  it('never sends an append again, even after a server error: only setting values is retried', async () => {
    const client = harness.client('writer', {
      retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
    })
    const vault = harness.vaults.main
    const entry = await newEntry('Appended once')
    const put = 'PUT /vaults/{vault_id}/eln/entries/{id}'
    const before = harness.sim.stats.byOperation[put] ?? 0
    // The service appends, then fails while it answers.
    harness.sim.faults.set({
      serverErrorRate: 1,
      serverErrorStatus: 500,
      serverErrorAfterWork: true,
      match: /^PUT \/vaults\/\d+\/eln\/entries\/\d+$/,
    })
    try {
      await expectApiError(
        client.elnEntries.appendToBody(vault, entry.id, [{ type: 'text', text: 'Once.' }]),
        'server',
        500,
      )
      expect(harness.sim.stats.byOperation[put]).toBe(before + 1)
      await expectApiError(
        client.elnEntries.update(vault, entry.id, { title: 'Appended once, renamed' }),
        'server',
        500,
      )
      expect(harness.sim.stats.byOperation[put]).toBe(before + 4)
    } finally {
      harness.sim.faults.clear()
    }
    const row = harness.sim.core.db
      .prepare('SELECT body FROM eln_entries WHERE id = ?')
      .get(entry.id) as { body: string }
    expect(JSON.parse(row.body)).toEqual([{ type: 'text', text: 'Once.' }])
  })

  it('answers 404 for an entry that does not exist', async () => {
    await expectApiError(
      harness.client('writer').elnEntries.update(harness.vaults.main, 999_999, { title: 'x' }),
      'not_found',
      404,
    )
  })

  it('moves an entry through submit and approve, refusing moves its status does not allow', async () => {
    const eln = harness.client('admin').elnEntries
    const vault = harness.vaults.main
    const entry = await newEntry('Witnessed entry')
    await expectApiError(
      eln.changeStatus(vault, entry.id, { status_action: 'approve' }),
      'conflict',
      409,
    )
    await expectApiError(
      eln.changeStatus(vault, entry.id, { status_action: 'submit', witness: 999_999 }),
      'not_found',
      404,
    )
    const submitted = await eln.changeStatus(vault, entry.id, {
      status_action: 'submit',
      witness: harness.sim.cast.users.admin.id,
    })
    expect(submitted.status).toBe('submitted')
    await expectApiError(
      eln.changeStatus(vault, entry.id, { status_action: 'reject' } as never),
      'validation',
      400,
    )
    const approved = await eln.changeStatus(vault, entry.id, { status_action: 'approve' })
    expect(approved.status).toBe('finalized')
  })

  it('answers 400 for an unknown action and 404 for a missing entry', async () => {
    const eln = harness.client('admin').elnEntries
    const entry = await newEntry('Odd action')
    await expectApiError(
      eln.changeStatus(harness.vaults.main, entry.id, { status_action: 'archive' } as never),
      'validation',
      400,
    )
    await expectApiError(
      eln.changeStatus(harness.vaults.main, 999_999, { status_action: 'discard' }),
      'not_found',
      404,
    )
  })

  it('gives administrators a summary of the entries and a ZIP export of them', async () => {
    const eln = harness.client('admin').elnEntries
    const vault = harness.vaults.main
    const summaries = await eln.query(vault, { statuses: ['open'] })
    expect(summaries.length).toBeGreaterThan(0)
    expect(summaries.every((entry) => entry.status === 'open')).toBe(true)
    const zip = path.join(directory, 'entries.zip')
    await (await eln.export(vault, { statuses: ['finalized'] })).saveTo(zip)
    expect(fs.readFileSync(zip).subarray(0, 2).toString()).toBe('PK')
    await expectApiError(harness.client('reader').elnEntries.query(vault), 'authentication', 401)
  })
})

describe('files', () => {
  it('attaches a file with progress, reads it back as base64 and deletes it', async () => {
    const files = harness.client('writer').files
    const vault = harness.vaults.main
    const [run] = (await harness.client().runs.list(vault, { page_size: 1 })).objects
    const content = Buffer.alloc(200_000, 'x')
    const progress: UploadProgress[] = []
    const attached = await files.attach(
      vault,
      { file: writeFile('plate-map.csv', content), resource_class: 'run', resource_id: run!.id },
      { onProgress: (step) => progress.push(step) },
    )
    expect(attached.name).toBe('plate-map.csv')
    expect(progress.at(-1)?.sentBytes).toBe(progress.at(-1)?.totalBytes)
    const read = await files.get(vault, attached.id)
    expect(Buffer.from(read.contents!, 'base64').equals(content)).toBe(true)
    expect((await files.delete(vault, attached.id))?.message).toContain('destroyed')
    await expectApiError(files.get(vault, attached.id), 'not_found', 404)
  })

  it('answers 422 for an attachment to a record that cannot take files', async () => {
    await expectApiError(
      harness.client('writer').files.attach(harness.vaults.main, {
        file: writeFile('note.txt', 'x'),
        resource_class: 'readout_row' as never,
        resource_id: 1,
      }),
      'validation',
      422,
    )
  })
})

describe('slurps', () => {
  const csv = 'Molecule Name,SMILES\nVD-IMPORT-1,CCOc1ccccc1\n'

  it('starts an import, lists and reads it, and deletes the runs it made', async () => {
    const client = harness.client('writer')
    const vault = harness.vaults.main
    const started = await client.slurps.create(vault, {
      file: writeFile('import.csv', csv),
      metadata: { project: harness.projects.kinase, mapping_template: 2 },
    })
    expect(started).toMatchObject({ id: expect.any(Number), state: 'mapping' })
    expect((await client.slurps.get(vault, started.id, { show_events: true })).id).toBe(started.id)
    expect((await client.slurps.list(vault)).map((slurp) => slurp.id)).toContain(started.id)
    expect(await client.runs.deleteImported(vault, started.id)).toMatchObject({
      message: expect.any(String),
    })
    await expectApiError(client.slurps.get(vault, 999_999), 'not_found', 404)
  })

  it('answers 429 when the user has too many imports running, and does not retry it', async () => {
    const client = harness.client('admin')
    const vault = harness.vaults.main
    harness.sim.clock.freeze()
    try {
      const running = (await client.vaultStatus.get(vault)).max_executing_account_slurps ?? 3
      for (let index = 0; index < running; index++) {
        await client.slurps.create(vault, {
          file: writeFile(`busy-${index}.csv`, csv),
          metadata: { project: harness.projects.kinase, mapping_template: 2 },
        })
      }
      const before = harness.sim.stats.requests
      const error = await expectApiError(
        client.slurps.create(vault, {
          file: writeFile('one-too-many.csv', csv),
          metadata: { project: harness.projects.kinase, mapping_template: 2 },
        }),
        'rate_limited',
        429,
      )
      expect(error.retryAfterMs).toBe(5000)
      expect(harness.sim.stats.requests - before).toBe(1)
    } finally {
      harness.sim.clock.resume()
    }
  })
})

describe('batch move jobs, vault status and users', () => {
  it('creates, reads, lists and cancels a job; a second cancel answers 405', async () => {
    const client = harness.client('admin')
    const vault = harness.vaults.main
    const [first, second] = (await client.molecules.query(vault, { page_size: 2 })).objects
    const batchId = (first!.batches![0] as { id: number }).id
    harness.sim.clock.freeze()
    try {
      const job = await client.batchMoveJobs.create(vault, { batch: batchId, molecule: second!.id })
      expect(job).toMatchObject({ batch: batchId, molecule: second!.id })
      expect((await client.batchMoveJobs.get(vault, job.id)).id).toBe(job.id)
      expect((await client.batchMoveJobs.list(vault)).map((item) => item.id)).toContain(job.id)
      expect((await client.batchMoveJobs.cancel(vault, job.id)).status).toBe('canceled')
      const again = await expectApiError(
        client.batchMoveJobs.cancel(vault, job.id),
        'conflict',
        405,
      )
      expect(again.details).toMatchObject({ id: job.id, status: 'canceled' })
    } finally {
      harness.sim.clock.resume()
    }
  })

  it('keeps batch move jobs and vault status to administrators', async () => {
    const reader = harness.client('reader')
    await expectApiError(reader.batchMoveJobs.list(harness.vaults.main), 'authentication', 401)
    await expectApiError(reader.vaultStatus.get(harness.vaults.main), 'authentication', 401)
    expect(reader.needsNewToken).toBe(false)
  })

  it('answers 404 for a job that does not exist', async () => {
    await expectApiError(
      harness.client().batchMoveJobs.get(harness.vaults.main, 999_999),
      'not_found',
      404,
    )
  })

  it('reports the state of background processing', async () => {
    const status = await harness.client().vaultStatus.get(harness.vaults.main)
    expect(status.application_status).toMatchObject({ processors_available: expect.any(Boolean) })
  })
})

describe('deep learning', () => {
  const aspirin = 'CC(=O)Oc1ccccc1C(=O)O'

  it('suggests bioisosteres, grouped and flat, fragments, and ranks similar molecules', async () => {
    const ai = harness.client().deepLearning
    const vault = harness.vaults.ai
    const grouped = await ai.bioisosteres(vault, { structure: aspirin, number_suggestions: 3 })
    expect(grouped.fragments).toEqual(expect.any(Array))
    const flat = await ai.flatBioisosteres(vault, { structure: aspirin })
    expect(flat.suggestions).toEqual(expect.any(Array))
    const fragments = await ai.fragmentation(vault, { structure: aspirin })
    expect(fragments.fragments).toEqual(expect.any(Array))
    const similar = await ai.similarity(vault, { structure: aspirin, number_results: 3 })
    expect(Object.keys(similar).length).toBeGreaterThan(0)
  })

  it('answers 400 for a structure it cannot read', async () => {
    await expectApiError(
      harness.client().deepLearning.bioisosteres(harness.vaults.ai, { structure: 'not a smiles' }),
      'validation',
      400,
    )
  })

  it('answers 401 in a vault without deep learning, keeping the token', async () => {
    const client = harness.client()
    await expectApiError(
      client.deepLearning.similarity(harness.vaults.main, { structure: aspirin }),
      'authentication',
      401,
    )
    expect(client.needsNewToken).toBe(false)
  })
})
