import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../../src-sim/index.ts'
import { readZip } from '../../../src-sim/pure/zip-reader.ts'
import { cast, idOf } from '../fixtures.ts'
import { list, raw, record } from '../http.ts'
import { numberOf } from './assay-fixture.ts'

let sim: VaultSim
let api: ReturnType<typeof cast>

beforeAll(async () => {
  sim = await startVaultSim({ seed: 'empty' })
  api = cast(sim)
})

afterAll(() => sim.stop())

async function createEntry(
  title: string,
  project: number | string = api.projects.kinase.id,
): Promise<number> {
  const answer = await api.writer.post(`${api.main}/eln/entries`, {
    title,
    project,
    eln_fields: { Notebook: 'RF-1' },
  })
  expect(answer.status).toBe(200)
  return idOf(record(answer))
}

const act = (id: number, body: Record<string, unknown>) =>
  api.admin.post(`${api.main}/eln/entries/${id}/status`, body)

async function statusOf(id: number): Promise<unknown> {
  const entries = list(await api.admin.post(`${api.main}/eln/entries/query`, {}))
  return entries.find((entry) => entry.id === id)?.status
}

describe('POST /eln/entries', () => {
  it('creates an open entry and answers its status object', async () => {
    const answer = record(
      await api.writer.post(`${api.main}/eln/entries`, {
        title: 'Amide coupling',
        project: api.projects.kinase.name,
      }),
    )
    expect(answer).toEqual({
      id: expect.any(Number),
      name: 'Amide coupling',
      status: 'open',
      author: { id: api.users.writer.id, first_name: 'Rosalind', last_name: 'Franklin' },
      url: expect.stringContaining(`/eln/entries/${numberOf(answer.id)}`),
    })
  })

  it('answers 422 without a title or a writable project, 401 without write permission', async () => {
    expect(
      (await api.writer.post(`${api.main}/eln/entries`, { project: api.projects.kinase.id }))
        .status,
    ).toBe(422)
    const noProject = await api.writer.post(`${api.main}/eln/entries`, { title: 'x' })
    expect(noProject.status).toBe(422)
    expect(record(noProject).error).toContain('project is required')
    expect(
      (
        await api.writer.post(`${api.main}/eln/entries`, {
          title: 'x',
          project: api.projects.confidential.id,
        })
      ).status,
    ).toBe(422)
    expect(
      (
        await api.reader.post(`${api.main}/eln/entries`, {
          title: 'x',
          project: api.projects.kinase.id,
        })
      ).status,
    ).toBe(401)
  })
})

describe('PUT /eln/entries/{id}', () => {
  it('changes supplied attributes and appends text, links and attached files to the body', async () => {
    const id = await createEntry('Suzuki coupling')
    const first = record(
      await api.writer.put(`${api.main}/eln/entries/${id}`, {
        title: 'Suzuki coupling, run 2',
        append_to_body: [{ type: 'text', text: 'Pd(PPh3)4, K2CO3, dioxane/water.' }],
      }),
    )
    expect(first).toMatchObject({
      name: 'Suzuki coupling, run 2',
      eln_fields: { Notebook: 'RF-1' },
    })
    const form = new FormData()
    form.append('file', new Blob(['step,yield\n1,80%\n']), 'yields.csv')
    form.append('resource_class', 'eln_entry')
    form.append('resource_id', String(id))
    const attached = record(
      await raw(sim.baseUrl, 'POST', `${api.main}/files`, {
        token: sim.cast.users.writer.tokens[0]!,
        rawBody: { bytes: form },
      }),
    )
    const second = record(
      await api.writer.put(`${api.main}/eln/entries/${id}`, {
        eln_fields: { Page: '12' },
        append_to_body: [
          { type: 'link', url: 'https://example.org/protocol', label: 'Protocol' },
          { type: 'file', file: attached.id },
        ],
      }),
    )
    expect(second.eln_fields).toEqual({ Notebook: 'RF-1', Page: '12' })
    expect(second.body).toEqual([
      { type: 'text', text: 'Pd(PPh3)4, K2CO3, dioxane/water.' },
      { type: 'link', url: 'https://example.org/protocol', label: 'Protocol' },
      { type: 'file', file: attached.id, name: 'yields.csv' },
    ])
  })

  it('changes nothing, modified_at included, for a body that supplies nothing new', async () => {
    const id = await createEntry('Grignard addition')
    const put = async (body: Record<string, unknown>) =>
      record(await api.writer.put(`${api.main}/eln/entries/${id}`, body))
    const before = await put({ title: 'Grignard addition, dry THF' })
    sim.clock.advance(60_000)
    for (const body of [{}, { title: 'Grignard addition, dry THF' }, { eln_fields: {} }]) {
      expect(await put(body)).toEqual(before)
    }
    const changed = await put({ eln_fields: { Notebook: 'RF-2' } })
    expect(changed.modified_at).not.toBe(before.modified_at)
    expect(changed.eln_fields).toEqual({ Notebook: 'RF-2' })
  })

  it('answers 422 for bad blocks, 404 for an unknown entry, 401 without write permission', async () => {
    const id = await createEntry('Blocks')
    const path = `${api.main}/eln/entries/${id}`
    expect(
      record(await api.writer.put(path, { append_to_body: [{ type: 'video' }] })).error,
    ).toContain("'text', 'link', 'file'")
    expect(
      (await api.writer.put(path, { append_to_body: [{ type: 'link', url: 'not a url' }] })).status,
    ).toBe(422)
    const foreignFile = await api.writer.put(path, {
      append_to_body: [{ type: 'file', file: 999999 }],
    })
    expect(foreignFile.status).toBe(422)
    expect(record(foreignFile).error).toContain('not a file attached to this entry')
    expect((await api.writer.put(`${api.main}/eln/entries/999999`, { title: 'x' })).status).toBe(
      404,
    )
    expect((await api.reader.put(path, { title: 'x' })).status).toBe(401)
  })
})

describe('POST /eln/entries/{id}/status with witnessing on', () => {
  it('submits to a witness, rejects and cancels back to open, approves, reopens with a reason', async () => {
    const id = await createEntry('Witnessed')
    const submitted = record(
      await act(id, { status_action: 'submit', witness: api.users.admin.id }),
    )
    expect(submitted).toMatchObject({ status: 'submitted', witness: { id: api.users.admin.id } })
    expect(record(await act(id, { status_action: 'reject', reason: 'Add yields' })).status).toBe(
      'open',
    )
    await act(id, { status_action: 'submit', witness: api.users.admin.id })
    expect(record(await act(id, { status_action: 'cancel' })).status).toBe('open')
    await act(id, { status_action: 'submit', witness: api.users.admin.id })
    const approved = record(await act(id, { status_action: 'approve' }))
    expect(approved.status).toBe('finalized')
    expect(
      (await api.writer.put(`${api.main}/eln/entries/${id}`, { title: 'late edit' })).status,
    ).toBe(422)
    const reopened = record(await act(id, { status_action: 'reopen', reason: 'Typo in the yield' }))
    expect(reopened.status).toBe('open')
    expect(
      (reopened.status_history as { action: string }[]).map((change) => change.action),
    ).toEqual(['submit', 'reject', 'submit', 'cancel', 'submit', 'approve', 'reopen'])
    expect(record(await act(id, { status_action: 'discard' })).status).toBe('discarded')
    expect(await statusOf(id)).toBe('discarded')
  })

  it('answers 409 for moves the current status does not permit', async () => {
    const id = await createEntry('Conflicts')
    const approveOpen = await act(id, { status_action: 'approve' })
    expect(approveOpen.status).toBe(409)
    expect(record(approveOpen).error).toContain('an entry that is open cannot be approved')
    expect((await act(id, { status_action: 'finalize' })).status).toBe(409)
    expect((await act(id, { status_action: 'reopen', reason: 'x' })).status).toBe(409)
  })

  it('answers 400 for a missing or invalid action and for missing witness or reason', async () => {
    const id = await createEntry('Bad requests')
    expect(record(await act(id, {})).error).toContain('status_action is missing')
    const invalid = await act(id, { status_action: 'publish' })
    expect(invalid.status).toBe(400)
    expect((await act(id, { status_action: 'submit' })).status).toBe(400)
    await act(id, { status_action: 'submit', witness: api.users.admin.id })
    expect((await act(id, { status_action: 'reject' })).status).toBe(400)
  })

  it('answers 404 for an unknown entry or witness, and for a witness who may not witness', async () => {
    const id = await createEntry('Witnesses')
    expect(
      (await act(999999, { status_action: 'submit', witness: api.users.admin.id })).status,
    ).toBe(404)
    const unknown = await act(id, { status_action: 'submit', witness: 999999 })
    expect(unknown.status).toBe(404)
    expect(record(unknown).error).toContain('Witness 999999')
    expect((await act(id, { status_action: 'submit', witness: api.users.reader.id })).status).toBe(
      404,
    )
    expect((await act(id, { status_action: 'submit', witness: api.users.writer.id })).status).toBe(
      400,
    )
  })

  it('is reserved for vault administrators', async () => {
    const id = await createEntry('Admins only')
    expect(
      (await api.writer.post(`${api.main}/eln/entries/${id}/status`, { status_action: 'discard' }))
        .status,
    ).toBe(401)
  })
})

describe('POST /eln/entries/{id}/status with witnessing off', () => {
  it('finalizes directly and refuses the witnessed actions with 409', async () => {
    sim.core.db.prepare(`UPDATE vaults SET eln_witnessing = 0 WHERE id = ?`).run(api.vaults.main.id)
    try {
      const id = await createEntry('Unwitnessed')
      const submit = await act(id, { status_action: 'submit', witness: api.users.admin.id })
      expect(submit.status).toBe(409)
      expect(record(submit).error).toContain('submit is not available when witnessing is disabled')
      expect(record(await act(id, { status_action: 'finalize' })).status).toBe('finalized')
      expect((await act(id, { status_action: 'reopen' })).status).toBe(400)
      expect(record(await act(id, { status_action: 'reopen', reason: 'More data' })).status).toBe(
        'open',
      )
    } finally {
      sim.core.db
        .prepare(`UPDATE vaults SET eln_witnessing = 1 WHERE id = ?`)
        .run(api.vaults.main.id)
    }
  })
})

describe('POST /eln/entries/query', () => {
  it('answers the summaries of every available entry to administrators only', async () => {
    const entries = list(await api.admin.post(`${api.main}/eln/entries/query`, {}))
    expect(entries.length).toBeGreaterThan(5)
    expect(Object.keys(entries[0]!).sort()).toEqual(['author', 'id', 'name', 'status', 'url'])
    const discarded = list(
      await api.admin.post(`${api.main}/eln/entries/query`, { statuses: ['discarded'] }),
    )
    expect(discarded.map((entry) => entry.name)).toEqual(['Witnessed'])
    expect(
      (await api.admin.post(`${api.main}/eln/entries/query`, { statuses: ['lost'] })).status,
    ).toBe(422)
    expect((await api.writer.post(`${api.main}/eln/entries/query`, {})).status).toBe(401)
  })

  it('exports every entry with its files as a ZIP when async', async () => {
    const progress = record(await api.admin.post(`${api.main}/eln/entries/query`, { async: true }))
    expect(progress.format).toBe('zip')
    sim.clock.advance(10_000)
    const redirect = await api.admin.get(`${api.main}/exports/${numberOf(progress.id)}`)
    expect(redirect.status).toBe(302)
    const download = await raw(redirect.headers.get('location')!, 'GET', '')
    const names = readZip(download.bytes).map((entry) => entry.name)
    expect(names[0]).toBe('index.json')
    expect(names).toContain('entries/2/entry.json')
    expect(names.some((name) => /^entries\/\d+\/files\/\d+-yields\.csv$/.test(name))).toBe(true)
    const index = JSON.parse(readZip(download.bytes)[0]!.data.toString('utf8')) as unknown[]
    expect(index.length).toBe(
      list(await api.admin.post(`${api.main}/eln/entries/query`, {})).length,
    )
  })
})

describe('GET /eln/entries (deprecated form)', () => {
  it('answers like POST /eln/entries/query, to administrators only', async () => {
    const got = await api.admin.get(`${api.main}/eln/entries`)
    expect(got.status).toBe(200)
    expect(list(got)).toEqual(list(await api.admin.post(`${api.main}/eln/entries/query`, {})))
    const discarded = list(
      await api.admin.get(`${api.main}/eln/entries`, { statuses: 'discarded' }),
    )
    expect(discarded.map((entry) => entry.name)).toEqual(['Witnessed'])
    const unknownStatus = await api.admin.get(`${api.main}/eln/entries`, { statuses: 'lost' })
    expect(unknownStatus.status).toBe(422)
    expect(record(unknownStatus).error).toContain('statuses[0]')
    expect((await api.writer.get(`${api.main}/eln/entries`)).status).toBe(401)
  })
})
