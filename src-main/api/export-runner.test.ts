import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  loopbackServer,
  sendJson,
  type LoopbackServer,
} from '../../test/api/support/loopback-server.ts'
import { VaultClient } from './client.ts'
import { ApiError } from './errors.ts'
import { LimiterRegistry } from './limiter-registry.ts'

const token = 'export-test-token-77'

interface FakeExport {
  id: number
  /** Statuses answered by successive progress polls; the last one repeats. */
  statuses: string[]
  body: string
  canceled: boolean
}

/**
 * A tiny service with just enough of the export operations: a molecule query with async=true
 * starts an export, progress answers scripted statuses, the download redirects to a second
 * origin that serves the file, and DELETE cancels.
 */
async function exportService(script: (id: number) => Omit<FakeExport, 'id' | 'canceled'>) {
  const exports = new Map<number, FakeExport>()
  const downloads = await loopbackServer((request, response) => {
    const id = Number(request.url.split('/').pop())
    response.writeHead(200, { 'Content-Type': 'application/octet-stream' })
    response.end(exports.get(id)?.body)
  })
  const api = await loopbackServer((request, response) => {
    const url = new URL(request.url, 'http://x')
    const exportId = Number(url.pathname.split('/').pop())
    if (request.method === 'POST' && url.pathname.endsWith('/molecules/query')) {
      const id = exports.size + 1
      exports.set(id, { id, canceled: false, ...script(id) })
      return sendJson(response, 200, { id: String(id), status: 'new' })
    }
    const found = exports.get(exportId)
    if (!found) return sendJson(response, 404, { code: 404, error: 'Export not found' })
    if (url.pathname.includes('/export_progress/')) {
      const status = found.canceled
        ? 'canceled'
        : found.statuses.length > 1
          ? found.statuses.shift()
          : found.statuses[0]
      return sendJson(response, 200, {
        id: exportId,
        status,
        created_at: '2024-05-01T10:00:00+02:00',
      })
    }
    if (request.method === 'DELETE') {
      found.canceled = true
      return sendJson(response, 200, { id: exportId, status: 'canceled' })
    }
    response.writeHead(302, { Location: `${downloads.origin}/files/${exportId}` })
    response.end()
  })
  servers.push(api, downloads)
  return { api, downloads, exports }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const servers: LoopbackServer[] = []
const directories: string[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
  for (const directory of directories.splice(0))
    fs.rmSync(directory, { recursive: true, force: true })
})

function clientFor(api: LoopbackServer) {
  return new VaultClient({
    baseUrl: api.url,
    token,
    limiters: new LimiterRegistry(),
    exportPolling: { minIntervalMs: 1, maxIntervalMs: 5 },
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
  })
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`)
  return error
}

const molecules = [
  { id: 1, name: 'aspirin', created_at: '2024-05-01T10:00:00+02:00' },
  { id: '2', name: 'caffeine', created_at: '2024-05-01T08:00:00.123Z' },
]

describe('exports', () => {
  it('polls until finished, then streams the records from the download origin without the token', async () => {
    const { api, downloads } = await exportService(() => ({
      statuses: ['new', 'started', 'started', 'finished'],
      body: JSON.stringify(molecules),
    }))
    const seen: string[] = []
    const finished = await clientFor(api).molecules.export(
      1,
      { names: ['aspirin'] },
      { onProgress: (progress) => seen.push(String(progress.status)) },
    )
    expect(seen).toEqual(['new', 'new', 'started', 'started', 'finished'])
    const records = []
    for await (const record of finished.records()) records.push(record)
    expect(records).toEqual([
      { id: 1, name: 'aspirin', created_at: '2024-05-01T08:00:00Z' },
      { id: 2, name: 'caffeine', created_at: '2024-05-01T08:00:00.123Z' },
    ])
    const start = api.requests[0]!
    expect(JSON.parse(start.body.toString())).toEqual({ names: ['aspirin'], async: true })
    expect(api.requests.every((request) => request.headers['x-svc-token'] === token)).toBe(true)
    expect(downloads.requests).toHaveLength(1)
    expect(downloads.requests[0]?.headers['x-svc-token']).toBeUndefined()
  })

  it('gives each record the text it came as, unless reading it changed the record', async () => {
    const texts = [
      '{"id": 1, "name": "aspirin", "created_at": "2024-05-01T08:00:00Z", "extra": [1, {"a": "}"}]}',
      '{"id":"2","name":"caffeine"}',
      '{"id":3,"created_at":"2024-05-01T10:00:00+02:00"}',
      '{"id":4,"name":"ünïcødé ✓"}',
    ]
    const { api } = await exportService(() => ({
      statuses: ['finished'],
      body: `[\n  ${texts.join(',\n  ')}\n]`,
    }))
    const finished = await clientFor(api).molecules.export(1, {})
    const read = []
    for await (const entry of finished.recordsWithText()) read.push(entry)
    expect(read.map(({ text }) => text)).toEqual([texts[0], undefined, undefined, texts[3]])
    for (const { record, text } of read) if (text) expect(JSON.parse(text)).toEqual(record)
    expect(read[1]?.record).toEqual({ id: 2, name: 'caffeine' })
  })

  it.each(['failed', 'error', 'canceled'])(
    'reports an export that ends with status %s instead of waiting for it',
    async (status) => {
      const { api, downloads } = await exportService(() => ({
        statuses: ['started', status],
        body: '[]',
      }))
      const error = await failure(clientFor(api).molecules.export(1, {}))
      expect(error.kind).toBe('export_failed')
      expect(error.message).toBe(`molecules.export: export 1 ended with status "${status}".`)
      expect(downloads.requests).toHaveLength(0)
    },
  )

  it('cancels the export on the server when the caller gives up', async () => {
    const { api, exports } = await exportService(() => ({ statuses: ['started'], body: '[]' }))
    const controller = new AbortController()
    const running = failure(clientFor(api).molecules.export(1, {}, { signal: controller.signal }))
    while (!api.requests.some((request) => request.url.includes('export_progress'))) await delay(2)
    controller.abort()
    expect((await running).kind).toBe('cancelled')
    while (!exports.get(1)?.canceled) await delay(2)
    expect(api.requests.at(-1)?.method).toBe('DELETE')
  })

  it('queues locally rather than run more than 3 exports at once', async () => {
    let nextStatus = 'started'
    const { api, exports } = await exportService(() => ({ statuses: [nextStatus], body: '[]' }))
    const client = clientFor(api)
    const runs = Array.from({ length: 5 }, () => client.molecules.export(1, {}))
    const polls = () => api.requests.filter((request) => request.url.includes('export_progress'))
    // The first three keep answering "started"; a fourth start would show up among these polls.
    while (polls().length < 30) await delay(2)
    expect(exports.size).toBe(3)
    nextStatus = 'finished'
    for (const running of exports.values()) running.statuses = ['finished']
    // An export holds its place until its file is read: these give theirs back unread.
    const finished = await Promise.all(
      runs.map((run) =>
        run.then((done) => {
          done.release()
          return done
        }),
      ),
    )
    expect(finished.map((run) => run.exportId).sort()).toEqual([1, 2, 3, 4, 5])
  })

  it('saves a CSV export to a file as it arrives', async () => {
    const csv = 'id,name\n1,aspirin\n2,caffeine\n'.repeat(5000)
    const { api } = await exportService(() => ({ statuses: ['finished'], body: csv }))
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-export-'))
    directories.push(directory)
    const finished = await clientFor(api).molecules.export(1, {}, { format: 'csv' })
    const file = path.join(directory, 'molecules.csv')
    const { bytes } = await finished.saveTo(file)
    expect(bytes).toBe(Buffer.byteLength(csv))
    expect(fs.readFileSync(file, 'utf8')).toBe(csv)
    expect(fs.existsSync(`${file}.part`)).toBe(false)
    expect(JSON.parse(api.requests[0]!.body.toString())).toMatchObject({ format: 'csv' })
  })

  it('names the fault in a malformed JSON export instead of crashing', async () => {
    const { api } = await exportService(() => ({
      statuses: ['finished'],
      body: '[{"id": 1}, {"id": 2,, }]',
    }))
    const finished = await clientFor(api).molecules.export(1, {})
    const records: unknown[] = []
    const error = await failure(
      (async () => {
        for await (const record of finished.records()) records.push(record)
      })(),
    )
    expect(records).toEqual([{ id: 1 }])
    expect(error.kind).toBe('bad_response')
    expect(error.message).toBe(
      'molecules.export: export 1: malformed JSON at character 12: record 1 is not valid JSON' +
        error.message.slice(error.message.indexOf(' (')),
    )
  })

  it('drops unread the records read already another way, and still names a record by its place', async () => {
    const { api } = await exportService(() => ({
      statuses: ['finished'],
      // The first two are never parsed: the broken one would otherwise be a fault.
      body: '[{"id": 1, "name": broken}, {"id":2}, {"id":3,"name":"caffeine"}, {"id":"x"}]',
    }))
    const finished = await clientFor(api).molecules.export(1, {})
    const read: unknown[] = []
    for await (const { record } of finished.recordsWithText({}, { skipThroughId: 2 })) {
      read.push(record)
    }
    expect(read).toEqual([{ id: 3, name: 'caffeine' }])
    expect(finished.setAside).toEqual([{ index: 3, reason: 'id: expected an integer, got "x"' }])
  })

  it('sets aside a record that cannot be read, naming it, and reads the rest', async () => {
    const { api } = await exportService(() => ({
      statuses: ['finished'],
      body: JSON.stringify([{ id: 1 }, { id: 'not-an-id' }, { id: 3, name: { odd: true } }]),
    }))
    const finished = await clientFor(api).molecules.export(1, {})
    const read: unknown[] = []
    for await (const record of finished.records()) read.push(record)
    expect(read).toEqual([{ id: 1 }, { id: 3, name: { odd: true } }])
    expect(finished.setAside).toEqual([
      { index: 1, reason: 'id: expected an integer, got "not-an-id"' },
    ])
  })
})
