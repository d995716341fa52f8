import fs from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type {
  CachedRecordPage,
  LinkedCachedRecord,
  OutboxItemView,
  StagedFileView,
} from '../../src-main/ipc/contract.ts'
import type { Services } from '../../src-main/services/index.ts'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { networkSwitch, type NetworkSwitch } from '../outbox/support/network-switch.ts'
import { nextEvent, recordEvents, testServices } from './support.ts'

let sim: VaultSim
let network: NetworkSwitch
let services: Services
let dataDir: string
let dispose: () => Promise<void>
let dispatch: Dispatch
let main: number
let connectionId: string

beforeAll(async () => {
  sim = await startVaultSim({ port: 0, seed: 40 })
  network = await networkSwitch(Number(new URL(sim.baseUrl).port))
  main = sim.cast.vaults.main.id
})
afterAll(async () => {
  await network.close()
  await sim.stop()
})
beforeEach(async () => {
  await network.on()
  ;({ services, dataDir, dispose } = testServices({
    outbox: { retry: { baseDelayMs: 5, maxDelayMs: 40 }, pollMs: 20, progressIntervalMs: 10 },
  }))
  dispatch = createDispatcher(createHandlers(services), services.log)
  const added = await call<{ connection: { id: string } }>('connections.add', {
    name: 'Lab',
    baseUrl: `http://127.0.0.1:${network.port}/api/v1`,
    token: sim.cast.users.admin.tokens[0]!,
    sessionOnly: true,
  })
  connectionId = added.connection.id
  const synced = nextEvent(
    services,
    'sync.changed',
    (state) => state.connectionId === connectionId && !state.running,
  )
  await call('sync.start', { connectionId })
  expect(await synced).toMatchObject({ lastOutcome: 'completed' })
})
afterEach(() => dispose())

async function call<T>(channel: string, args: unknown): Promise<T> {
  const result = await dispatch(channel, args)
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`)
  return result.value as T
}

async function refusal(channel: string, args: unknown): Promise<{ code: string; message: string }> {
  const result = await dispatch(channel, args)
  if (result.ok) throw new Error(`${channel} was expected to fail`)
  return result.error
}

async function waitUntil(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Hands a file over as bytes, as the browser window does, in chunks of `chunk` bytes. */
async function stage(name: string, contents: Buffer, chunk = 4): Promise<string> {
  const staged = await call<StagedFileView>('outbox.stageFile', { name, size: contents.length })
  for (let offset = 0; offset < contents.length; offset += chunk) {
    const data = contents.subarray(offset, offset + chunk).toString('base64')
    await call('outbox.stageChunk', { stagedId: staged.stagedId, offset, data })
  }
  return staged.stagedId
}

const list = (kind: string, options: object = {}) =>
  call<CachedRecordPage>('records.list', { connectionId, vaultId: main, kind, ...options })

const simRow = <T>(sql: string, ...args: unknown[]) =>
  sim.core.db.prepare(sql).get(...args) as T | undefined

describe('browsing with changes waiting in the outbox', () => {
  it('shows pending changes and offline records, marked, and tells when they come and go', async () => {
    const firstPage = await list('molecules', { limit: 3 })
    const molecule = firstPage.rows[0]!
    const moleculeId = molecule.id as number
    const project = (await list('projects')).rows[0]!
    await network.off()
    const events = recordEvents(services)

    await call('outbox.queue', {
      connectionId,
      vaultId: main,
      operation: 'molecule.update',
      payload: { molecule: moleculeId, changes: { description: 'Recrystallised offline' } },
    })
    const spectrum = await stage('spectrum one.csv', Buffer.from('ppm,intensity\n7.26,100\n'))
    const attached = await call<OutboxItemView[]>('outbox.queueStaged', {
      request: {
        connectionId,
        vaultId: main,
        operation: 'file.attach',
        file: `staged:${spectrum}`,
        target: { kind: 'molecule', ref: { id: moleculeId } },
      },
    })
    expect(attached).toEqual([
      expect.objectContaining({
        state: 'queued',
        file: { name: 'spectrum one.csv', size: 23 },
        summary: `Attach spectrum one.csv to molecule ${moleculeId}`,
      }),
    ])
    // Queued means copied into the outbox: the staged bytes are gone.
    await waitUntil(
      'the staged file is deleted',
      () => fs.readdirSync(path.join(dataDir, 'outbox', 'staged')).length === 0,
    )
    await call('outbox.queue', {
      connectionId,
      vaultId: main,
      operation: 'eln.create',
      payload: { title: 'Offline synthesis notes', project: project.id },
    })
    await waitUntil('records.changed tells the kinds', () => {
      const kinds = events
        .filter((event) => event.name === 'records.changed')
        .flatMap((event) => (event.payload as { kinds: string[] }).kinds)
      return ['molecules', 'files', 'eln_entries'].every((kind) => kinds.includes(kind))
    })

    const molecules = await list('molecules', { limit: 3 })
    expect(molecules.total).toBe(firstPage.total)
    expect(molecules.rows[0]).toMatchObject({
      id: moleculeId,
      json: { name: molecule.json.name, description: 'Recrystallised offline' },
      pending: { state: 'queued', createdBy: null, itemIds: [expect.any(Number)] },
    })
    expect(molecules.rows[1]).not.toHaveProperty('pending')

    const detail = await call<LinkedCachedRecord>('records.get', {
      connectionId,
      vaultId: main,
      kind: 'molecules',
      id: moleculeId,
    })
    expect(detail.record).toMatchObject({ json: { description: 'Recrystallised offline' } })
    expect(detail.links.files).toEqual([
      expect.objectContaining({
        id: null,
        json: expect.objectContaining({ name: 'spectrum one.csv' }),
        pending: expect.objectContaining({ state: 'queued' }),
      }),
    ])

    // The entry written offline comes first, and answers the list's filters as a cached one.
    const entries = await list('eln_entries')
    expect(entries.rows[0]).toMatchObject({
      id: null,
      json: { name: 'Offline synthesis notes', status: 'open' },
      pending: { createdBy: expect.any(Number) },
    })
    expect(entries.total).toBe(entries.rows.length)
    expect((await list('eln_entries', { text: 'synth' })).rows).toHaveLength(1)
    expect((await list('eln_entries', { text: 'kinase' })).rows).toHaveLength(0)
    expect((await list('eln_entries', { filters: { status: 'open' } })).total).toBe(1)
    expect((await list('eln_entries', { filters: { status: 'finalized' } })).total).toBe(0)
    expect((await list('eln_entries', { filters: { project_id: project.id } })).total).toBe(1)
    expect((await list('eln_entries', { offset: 1 })).rows).toEqual([])

    // Back online, everything arrives once; the marks go, and the pages are told.
    const before = events.length
    await network.on()
    services.outbox.start()
    await waitUntil('the outbox has sent everything', () => services.outbox.counts().pending === 0)
    await waitUntil('the molecule is shown as the server has it', async () => {
      const page = await list('molecules', { limit: 1 })
      return page.rows[0]!.pending === undefined
    })
    // The pages are told a few times a second, not at once (the outbox gathers its changes).
    await waitUntil('the entries page is told', () =>
      events
        .slice(before)
        .some(
          (event) =>
            event.name === 'records.changed' &&
            (event.payload as { kinds: string[] }).kinds.includes('eln_entries'),
        ),
    )
    expect(
      simRow<{ description: string }>('SELECT description FROM molecules WHERE id = ?', moleculeId),
    ).toEqual({ description: 'Recrystallised offline' })
    expect(
      sim.core.db
        .prepare('SELECT resource_id FROM uploaded_files WHERE name = ?')
        .all('spectrum one.csv'),
    ).toEqual([{ resource_id: moleculeId }])
    expect(
      simRow<{ count: number }>(
        'SELECT COUNT(*) AS count FROM eln_entries WHERE title = ?',
        'Offline synthesis notes',
      ),
    ).toEqual({ count: 1 })
    const sentEntries = await list('eln_entries')
    expect(sentEntries.rows[0]).toMatchObject({ json: { name: 'Offline synthesis notes' } })
    expect(sentEntries.rows[0]!.id).toEqual(expect.any(Number))
    expect(sentEntries.rows[0]).not.toHaveProperty('pending')

    // Newest first: the three items went out concurrently, in no set order.
    const history = await call<OutboxItemView[]>('outbox.history', {})
    expect(history.map((item) => item.operation).sort()).toEqual([
      'eln.create',
      'file.attach',
      'molecule.update',
    ])
    const times = history.map((item) => item.updatedAt)
    expect(times).toEqual([...times].sort().reverse())
    expect(await call('outbox.history', { limit: 1 })).toEqual([history[0]])
    expect(history.every((item) => item.state === 'sent')).toBe(true)
  })

  it('refuses bad bytes and bad names clearly, and keeps a staged file until it is queued', async () => {
    expect((await refusal('outbox.stageFile', { name: '../notes.txt', size: 3 })).message).toMatch(
      /not a file name/,
    )
    expect((await refusal('outbox.stageFile', { name: 'a\\b.txt', size: 3 })).code).toBe(
      'invalid_argument',
    )
    expect((await refusal('outbox.stageFile', { name: 'x.txt', size: -1 })).code).toBe(
      'invalid_argument',
    )
    const staged = await call<StagedFileView>('outbox.stageFile', { name: 'hits.csv', size: 6 })
    const stagedId = staged.stagedId
    expect(staged).toEqual({ stagedId, name: 'hits.csv', size: 6, received: 0, complete: false })
    const chunk = (offset: number, text: string) =>
      dispatch('outbox.stageChunk', {
        stagedId,
        offset,
        data: Buffer.from(text).toString('base64'),
      })
    expect(await chunk(2, 'ab')).toMatchObject({
      ok: false,
      error: { message: 'The next chunk of hits.csv starts at byte 0, not 2.' },
    })
    expect(
      await refusal('outbox.stageChunk', { stagedId, offset: 0, data: 'not base64!' }),
    ).toEqual({ code: 'invalid_argument', message: 'A chunk must be base64 (RFC 4648, padded).' })
    expect(await chunk(0, 'a,b\n')).toMatchObject({ ok: true, value: { received: 4 } })
    expect(await chunk(4, 'toolong')).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('goes past its end') },
    })
    const request = {
      connectionId,
      vaultId: main,
      operation: 'slurp.create',
      file: `staged:${stagedId}`,
      payload: { project: 'Kinase Inhibitors' },
    }
    expect((await refusal('outbox.queueStaged', { request })).message).toBe(
      'hits.csv is not complete: 4 of 6 bytes arrived.',
    )
    expect(await chunk(4, '1\n')).toMatchObject({ ok: true, value: { complete: true } })
    expect(
      (
        await refusal('outbox.queueStaged', {
          request: { ...request, file: path.join(dataDir, 'app.db') },
        })
      ).message,
    ).toMatch(/^Give each file as staged:<id>/)
    // A refusal leaves the staged file, so that the person can correct the request.
    const { payload: _payload, ...settings } = request
    expect(
      (
        await refusal('outbox.queueStaged', {
          request: {
            ...settings,
            operation: 'file.attach',
            target: { kind: 'readout_row', ref: { id: 999_999 } },
          },
        })
      ).message,
    ).toMatch(/^Readout row 999999 is not in the local copy/)
    expect(services.outbox.counts().pending).toBe(0)
    await network.off()
    const queued = await call<OutboxItemView[]>('outbox.queueStaged', { request })
    expect(queued).toEqual([
      expect.objectContaining({ operation: 'slurp.create', file: { name: 'hits.csv', size: 6 } }),
    ])
    // Queued once: the same staged file cannot be queued again.
    expect((await refusal('outbox.queueStaged', { request })).code).toBe('not_found')
    expect(await call('outbox.unstageFile', { stagedId })).toEqual({ discarded: false })

    const other = await call<StagedFileView>('outbox.stageFile', { name: 'gone.sdf', size: 1 })
    expect(await call('outbox.unstageFile', { stagedId: other.stagedId })).toEqual({
      discarded: true,
    })
    await waitUntil('the dropped file is deleted', () => {
      const staged = path.join(dataDir, 'outbox', 'staged')
      return !fs.existsSync(staged) || fs.readdirSync(staged).length === 0
    })
  })
  it('pauses a queue whose token the vault refuses, says so in the connection status, and resumes', async () => {
    const token = sim.cast.users.writer.tokens[0]!
    const writer = await call<{ connection: { id: string } }>('connections.add', {
      name: 'Writer',
      baseUrl: `http://127.0.0.1:${network.port}/api/v1`,
      token,
      sessionOnly: true,
    })
    const writerId = writer.connection.id
    const project = (await list('projects')).rows.find(
      (candidate) => candidate.json.name === 'Kinase Inhibitors',
    )!
    const renewed = `${token}-renewed`
    sim.core.db.prepare('UPDATE api_tokens SET token = ? WHERE token = ?').run(renewed, token)
    const asked = nextEvent(
      services,
      'connections.needsToken',
      (event) => event.connectionId === writerId,
    )
    services.outbox.start()
    const [item] = await call<OutboxItemView[]>('outbox.queue', {
      connectionId: writerId,
      vaultId: main,
      operation: 'eln.create',
      payload: { title: 'Written with a stale token', project: project.id },
    })
    expect(await asked).toMatchObject({ name: 'Writer' })
    const writerStatus = async () =>
      (
        await call<{ connectionId: string; needsNewToken: boolean }[]>('connections.status', {})
      ).find((status) => status.connectionId === writerId)
    await waitUntil('the connection says it needs a new token', async () =>
      Boolean((await writerStatus())?.needsNewToken),
    )
    expect(services.outbox.item(item!.id)).toMatchObject({
      state: 'queued',
      lastError: expect.any(String),
    })

    await call('connections.updateToken', {
      connectionId: writerId,
      token: renewed,
      sessionOnly: true,
    })
    await waitUntil('the entry is sent', () => services.outbox.item(item!.id).state === 'sent')
    expect((await writerStatus())?.needsNewToken).toBe(false)
    expect(
      simRow<{ count: number }>(
        'SELECT COUNT(*) AS count FROM eln_entries WHERE title = ?',
        'Written with a stale token',
      ),
    ).toEqual({ count: 1 })
  })
})
