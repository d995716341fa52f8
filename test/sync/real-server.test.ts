/**
 * Sync against what a real server does that the specification does not say (issue 26, "A real
 * server"): readout cells sent bare and in every real-world form, a `from` range in `value`, a
 * record without an id, kinds refused with 403 or 404, and `/query` forms a server does not serve.
 * Each is made by the simulator (its `bareReadoutCells` and `refusals` faults, or cells written
 * into its database) or by a proxy that edits its answers, and synced over HTTP into a real cache.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { readResultRow } from '../../src-common/analysis/readouts/result-rows.ts'
import { valueTypeOf } from '../../src-common/analysis/readouts/readout-value.ts'
import type { VaultCache } from '../../src-main/store/vault-cache.ts'
import { savedSetAside } from '../../src-main/sync/set-aside.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { cachedIds, clientOf, pull, startDemoSim, temporaryCache } from './support.ts'

let sim: VaultSim
let main: number
/** The ids a clean pull caches, by kind. */
const baseline = new Map<string, number[]>()
const kinds = [
  'readout_rows',
  'plates',
  'runs',
  'protocols',
  'control_layouts',
  'inventory_samples',
]
const disposals: (() => Promise<void>)[] = []

beforeAll(async () => {
  sim = await startDemoSim()
  main = sim.cast.vaults.main.id
  const { cache } = freshCache()
  const result = await pull(clientOf(sim), cache, { vaultIds: [main] })
  expect(result.vaults[0]!.failures).toEqual([])
  for (const kind of kinds) baseline.set(kind, cachedIds(cache, kind, main))
  for (const kind of kinds) expect(baseline.get(kind)!.length, kind).toBeGreaterThan(0)
}, 180_000)

afterEach(() => sim.faults.clear())

afterAll(async () => {
  for (const dispose of disposals) await dispose()
  await sim.stop()
})

function freshCache(): { cache: VaultCache } {
  const { cache, dispose } = temporaryCache()
  disposals.push(dispose)
  return { cache }
}

function lastSyncOf(cache: VaultCache): string | undefined {
  return cache.lastSyncs().find((sync) => sync.vaultId === main)?.lastSyncAt
}

describe('readout cells in the forms real vaults send', () => {
  it('syncs every readout row, each cell kept as given and read as a value', async () => {
    // A Number readout of the main vault, and five of its detail cells given real-world forms.
    const definition = sim.core.db
      .prepare(
        `SELECT readout_definitions.id FROM readout_definitions
         JOIN protocols ON protocols.id = readout_definitions.protocol_id
         WHERE protocols.vault_id = ? AND readout_definitions.data_type = 'Number'
           AND readout_definitions.role = 'measured' LIMIT 1`,
      )
      .get(main) as { id: number }
    const cells = sim.core.db
      .prepare(
        `SELECT readout_cells.row_id FROM readout_cells
         JOIN readout_rows ON readout_rows.id = readout_cells.row_id
         WHERE readout_cells.definition_id = ? AND readout_rows.type = 'detail row'
           AND readout_cells.number_value IS NOT NULL ORDER BY readout_cells.row_id LIMIT 6`,
      )
      .all(definition.id) as { row_id: number }[]
    expect(cells).toHaveLength(6)
    const forms: [text: string | null, modifier: string | null, note: string | null][] = [
      ['1.20E+2', null, null],
      ['>30000', null, null],
      ['ND', null, null],
      [null, null, 'no fit: too few points'],
      ['30000', '>', null],
    ]
    const write = sim.core.db.prepare(
      `UPDATE readout_cells SET number_value = NULL, text_value = ?, modifier = ?, note = ?
       WHERE row_id = ? AND definition_id = ?`,
    )
    forms.forEach(([text, modifier, note], index) =>
      write.run(text, modifier, note, cells[index]!.row_id, definition.id),
    )
    sim.faults.set({ bareReadoutCells: true })
    const { cache } = freshCache()
    const result = await pull(clientOf(sim), cache, { vaultIds: [main] })
    const vault = result.vaults[0]!
    expect(vault.failures).toEqual([])
    expect(vault.setAside).toEqual([])
    expect(cachedIds(cache, 'readout_rows', main)).toEqual(baseline.get('readout_rows'))
    expect(lastSyncOf(cache)).toBeDefined()

    const key = String(definition.id)
    const cached = (rowId: number) =>
      cache.list('readout_rows', main, { ids: [rowId], limit: 1 }).records[0]!
    const plain = cached(cells[5]!.row_id)
    // Bare as sent: a cell with only a value is that value.
    expect(typeof (plain.readouts as Record<string, unknown>)[key]).toBe('number')
    const given = forms.map(
      (_, index) => (cached(cells[index]!.row_id).readouts as Record<string, unknown>)[key],
    )
    expect(given).toEqual([
      '1.20E+2',
      '>30000',
      'ND',
      { note: 'no fit: too few points' },
      { value: '30000', modifier: '>' },
    ])
    const number = { valueType: valueTypeOf('Number') }
    const read = forms.map((_, index) =>
      readResultRow(cached(cells[index]!.row_id), () => number)!.cells.get(definition.id)!,
    )
    expect(read.map((cell) => cell.value)).toEqual([
      { kind: 'number', value: 120, modifier: null, unit: null, text: '1.20E+2' },
      { kind: 'number', value: 30000, modifier: '>', unit: null, text: '30000' },
      { kind: 'text', text: 'ND' },
      { kind: 'empty' },
      { kind: 'number', value: 30000, modifier: '>', unit: null, text: '30000' },
    ])
    expect(read[3]!.note).toBe('no fit: too few points')
  }, 120_000)
})

/**
 * The simulator behind a proxy that edits JSON answers: `edit` gets the request's `METHOD path`
 * and the parsed answer, and gives back what to send.
 */
async function editingProxy(
  edit: (request: string, body: unknown) => unknown,
): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const target = new URL(sim.baseUrl)
  const server = http.createServer((request, response) => {
    const forwarded = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
      },
      (answer) => {
        const chunks: Buffer[] = []
        answer.on('data', (chunk: Buffer) => chunks.push(chunk))
        answer.on('end', () => {
          let body = Buffer.concat(chunks)
          const headers = { ...answer.headers }
          if (String(headers['content-type']).includes('json') && body.length > 0) {
            const path = new URL(request.url ?? '/', 'http://proxy').pathname
            const edited = edit(`${request.method} ${path}`, JSON.parse(body.toString('utf8')))
            body = Buffer.from(JSON.stringify(edited))
            delete headers['transfer-encoding']
            headers['content-length'] = String(body.length)
          }
          response.writeHead(answer.statusCode ?? 502, headers)
          response.end(body)
        })
      },
    )
    forwarded.on('error', () => response.destroy())
    request.pipe(forwarded)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

describe('records and members the readers do not expect', () => {
  it('sets aside a readout row without an id, keeps a range given in value, and syncs the rest', async () => {
    let removedId: number | undefined
    const proxy = await editingProxy((request, body) => {
      const record = body as { objects?: Record<string, unknown>[] }
      if (/^POST .*\/readout_rows\/query$/.test(request) && Array.isArray(record.objects)) {
        const first = record.objects[0]
        // Not the one-record page that asks the count.
        if (removedId === undefined && record.objects.length > 1 && typeof first?.id === 'number') {
          removedId = first.id
          delete first.id
        }
      }
      if (/dose_response_calculations$/.test(request) && Array.isArray(body)) {
        for (const calculation of body as Record<string, unknown>[]) {
          calculation.fit_parameters = { max: { modifier: 'from', value: { min: 90, max: 110 } } }
        }
      }
      return body
    })
    try {
      const { cache } = freshCache()
      // Pages, not an export (whose download the proxy does not see).
      const result = await pull(clientOf(sim, 'admin', { baseUrl: proxy.baseUrl }), cache, {
        vaultIds: [main],
        exportThreshold: Number.MAX_SAFE_INTEGER,
      })
      const vault = result.vaults[0]!
      expect(vault.failures).toEqual([])
      expect(vault.setAside).toEqual([
        { kind: 'readout_rows', count: 1, reasons: ['id: expected an integer, got nothing'] },
      ])
      expect(removedId).toBeDefined()
      expect(cachedIds(cache, 'readout_rows', main)).toEqual(
        baseline.get('readout_rows')!.filter((id) => id !== removedId),
      )
      expect(lastSyncOf(cache)).toBeDefined()
      // The status command reads the report from the cache's sync state.
      expect(savedSetAside(cache, main, ['readout_rows', 'plates'])).toEqual(vault.setAside)
      const calculations = cache.list('dose_response_calculations', main, { limit: 5 }).records
      expect(calculations.length).toBeGreaterThan(0)
      expect(calculations[0]!.fit_parameters).toEqual({
        max: { modifier: 'from', value: { min: 90, max: 110 } },
      })
    } finally {
      await proxy.close()
    }
  }, 120_000)
})

describe('kinds a server refuses with 403 or 404', () => {
  it('marks them not available, syncs the rest and advances the last sync', async () => {
    sim.faults.set({
      refusals: [
        { match: /^(POST|GET) \/vaults\/\d+\/inventory_samples(\/query)?$/, status: 404 },
        { match: /^GET \/vaults\/\d+\/users$/, status: 403 },
        { match: /^GET \/vaults\/\d+\/status$/, status: 403 },
      ],
    })
    const { cache } = freshCache()
    const first = await pull(clientOf(sim), cache, { vaultIds: [main] })
    const vault = first.vaults[0]!
    expect(vault.failures).toEqual([])
    expect(vault.refused).toEqual(['users', 'inventory_samples', 'vault_status'])
    expect(lastSyncOf(cache)).toBeDefined()
    expect(cachedIds(cache, 'plates', main)).toEqual(baseline.get('plates'))
    // Not asked again on the next pass, until the retry interval has passed.
    sim.resetStats()
    const again = await pull(clientOf(sim), cache, { vaultIds: [main], refreshAll: true })
    expect(again.vaults[0]!.refused).toEqual(['users', 'inventory_samples', 'vault_status'])
    expect(sim.stats.injected.refusals).toBe(0)
  }, 120_000)
})

describe('list forms a server does not serve', () => {
  it('falls back to the GET form on 404 or 405 and remembers it for the vault', async () => {
    const postForms = {
      plates: /^POST \/vaults\/\d+\/plates\/query$/,
      runs: /^POST \/vaults\/\d+\/runs\/query$/,
      protocols: /^POST \/vaults\/\d+\/protocols\/query$/,
      control_layouts: /^POST \/vaults\/\d+\/control_layouts\/query$/,
      inventory_samples: /^POST \/vaults\/\d+\/inventory_samples\/query$/,
    }
    sim.faults.set({
      refusals: Object.values(postForms).map((match, index) => ({
        match,
        status: index % 2 === 0 ? (405 as const) : (404 as const),
      })),
    })
    const { cache } = freshCache()
    const result = await pull(clientOf(sim), cache, { vaultIds: [main] })
    const vault = result.vaults[0]!
    expect(vault.failures).toEqual([])
    expect(vault.refused).toEqual([])
    for (const kind of Object.keys(postForms)) {
      expect(cachedIds(cache, kind, main), kind).toEqual(baseline.get(kind))
      expect(cache.cursor(kind, main, 'list-form'), kind).toEqual({ form: 'get' })
    }
    sim.resetStats()
    await pull(clientOf(sim), cache, { vaultIds: [main], refreshAll: true })
    expect(sim.stats.injected.refusals).toBe(0)
    expect(sim.stats.byOperation['GET /vaults/{vault_id}/plates']).toBeGreaterThan(0)
  }, 120_000)
})
