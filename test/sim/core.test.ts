import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim } from '../../src-sim/index.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { client, list, raw, record } from './http.ts'

let sim: VaultSim
let adminToken: string

beforeAll(async () => {
  sim = await startVaultSim({ seed: 'empty' })
  adminToken = sim.cast.users.admin.tokens[0]!
})

afterAll(() => sim.stop())

describe('authentication', () => {
  it('answers 401 with the error record when the key is missing or unknown', async () => {
    const missing = await raw(sim.baseUrl, 'GET', '/vaults')
    expect(missing.status).toBe(401)
    expect(record(missing)).toEqual({ code: 401, error: expect.stringContaining('X-SVC-Token') })
    const unknown = await raw(sim.baseUrl, 'GET', '/vaults', { token: 'not-a-real-token' })
    expect(unknown.status).toBe(401)
    expect(record(unknown).code).toBe(401)
  })

  it('lists the vaults of the token owner, including one without API access', async () => {
    const answer = await client(sim.baseUrl, sim.cast.users.reader.tokens[0]).get('/vaults')
    expect(answer.status).toBe(200)
    expect(list(answer)).toEqual([{ id: sim.cast.vaults.main.id, name: 'Vault Desk Demo' }])
    const admin = list(await client(sim.baseUrl, adminToken).get('/vaults'))
    expect(admin.map((vault) => vault.id)).toEqual(
      Object.values(sim.cast.vaults).map((vault) => vault.id),
    )
  })

  it('answers 401 for a vault with API access off, an unknown vault, and a vault the user is not in', async () => {
    const admin = client(sim.baseUrl, adminToken)
    expect((await admin.get(`/vaults/${sim.cast.vaults.closed.id}/exports`)).status).toBe(401)
    expect((await admin.get('/vaults/9999/exports')).status).toBe(401)
    const outsider = client(sim.baseUrl, sim.cast.users.outsider.tokens[0])
    expect((await outsider.get(`/vaults/${sim.cast.vaults.main.id}/exports`)).status).toBe(401)
    expect((await outsider.get(`/vaults/${sim.cast.vaults.ai.id}/exports`)).status).toBe(200)
  })
})

describe('routing', () => {
  it('answers 404 for paths outside the API and unknown operations, 405 for a wrong method', async () => {
    expect(
      (await raw(sim.baseUrl.replace('/api/v1', ''), 'GET', '/vaults', { token: adminToken }))
        .status,
    ).toBe(404)
    const unknown = await client(sim.baseUrl, adminToken).get(
      `/vaults/${sim.cast.vaults.main.id}/no_such_thing`,
    )
    expect(unknown.status).toBe(404)
    expect(record(unknown).error).toContain('no_such_thing')
    const wrongMethod = await client(sim.baseUrl, adminToken).put('/vaults', {})
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.get('allow')).toBe('GET')
  })
})

describe('internal failures', () => {
  it('answer 500 with the error record, log the stack, and leave the simulator serving', async () => {
    const logged: string[] = []
    const failing = await startVaultSim({ seed: 'empty', log: (line) => logged.push(line) })
    try {
      failing.core.dependentData = () => {
        throw new Error('hook exploded')
      }
      const admin = client(failing.baseUrl, failing.cast.users.admin.tokens[0])
      const answer = await admin.delete(
        `/vaults/${failing.cast.vaults.main.id}/projects/${failing.cast.projects.gpcr.id}`,
      )
      expect(answer.status).toBe(500)
      expect(record(answer)).toEqual({ code: 500, error: 'Internal simulator error' })
      expect(logged.some((line) => line.includes('hook exploded'))).toBe(true)
      expect((await admin.get('/vaults')).status).toBe(200)
    } finally {
      await failing.stop()
    }
  })
})

describe('the per-user in-flight limit', () => {
  it('refuses a fourth concurrent request of one user across two tokens with 429, and counts it', async () => {
    sim.resetStats()
    sim.faults.set({ latencyMs: 400, match: 'GET /vaults' })
    try {
      const [first, second] = sim.cast.users.writer.tokens
      const answers = await Promise.all(
        [first, first, second, second].map((token, index) =>
          new Promise((resolve) => setTimeout(resolve, index * 20)).then(() =>
            raw(sim.baseUrl, 'GET', '/vaults', { token }),
          ),
        ),
      )
      const statuses = answers.map((answer) => answer.status).sort()
      expect(statuses).toEqual([200, 200, 200, 429])
      const refused = answers.find((answer) => answer.status === 429)!
      expect(record(refused)).toEqual({ code: 429, error: expect.stringContaining('at most 3') })
      expect(sim.stats.concurrencyRejections).toBe(1)
      expect(sim.stats.maxInFlightPerUser).toBe(4)
    } finally {
      sim.faults.clear()
    }
  })

  it('lets other users through while one user is at the limit', async () => {
    sim.resetStats()
    sim.faults.set({ latencyMs: 300, match: 'GET /vaults' })
    try {
      const writer = sim.cast.users.writer.tokens[0]
      const answers = await Promise.all([
        ...[1, 2, 3].map(() => raw(sim.baseUrl, 'GET', '/vaults', { token: writer })),
        raw(sim.baseUrl, 'GET', '/vaults', { token: adminToken }),
      ])
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200])
      expect(sim.stats.concurrencyRejections).toBe(0)
    } finally {
      sim.faults.clear()
    }
  })

  it('never refuses a client that waits for each answer', async () => {
    sim.resetStats()
    const admin = client(sim.baseUrl, adminToken)
    const workers = [0, 1, 2].map(async () => {
      for (let round = 0; round < 15; round++) expect((await admin.get('/vaults')).status).toBe(200)
    })
    await Promise.all(workers)
    expect(sim.stats.concurrencyRejections).toBe(0)
    expect(sim.stats.byOperation['GET /vaults']).toBe(45)
  })
})

describe('fault injection', () => {
  it('injects server errors and 429s by rate, and can be changed while running', async () => {
    const admin = client(sim.baseUrl, adminToken)
    sim.faults.set({ serverErrorRate: 1, serverErrorStatus: 502 })
    expect((await admin.get('/vaults')).status).toBe(502)
    sim.faults.set({ tooManyRequestsRate: 1, retryAfterSeconds: 2 })
    const limited = await admin.get('/vaults')
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('2')
    sim.faults.clear()
    expect((await admin.get('/vaults')).status).toBe(200)
    expect(sim.stats.injected.serverErrors).toBeGreaterThanOrEqual(1)
    expect(sim.stats.injected.tooManyRequests).toBeGreaterThanOrEqual(1)
  })

  it('injects a server error after the work was done, when asked', async () => {
    const admin = client(sim.baseUrl, adminToken)
    const project = { name: `After the work ${Date.now()}`, description: 'injected' }
    sim.faults.set({
      serverErrorRate: 1,
      serverErrorStatus: 500,
      serverErrorAfterWork: true,
      match: /^POST \/vaults\/\d+\/projects$/,
    })
    try {
      const failed = await admin.post(`/vaults/${sim.cast.vaults.main.id}/projects`, project)
      expect(failed.status).toBe(500)
      expect(JSON.stringify(failed.json)).toContain('after the work was done')
    } finally {
      sim.faults.clear()
    }
    const listed = await admin.get(`/vaults/${sim.cast.vaults.main.id}/projects`)
    expect(JSON.stringify(listed.json)).toContain(project.name)
  })

  it('applies a rate between 0 and 1 to roughly that share of requests, repeatably', async () => {
    const admin = client(sim.baseUrl, adminToken)
    const run = async () => {
      sim.faults.set({ serverErrorRate: 0.5, seed: 7 })
      const statuses: number[] = []
      for (let index = 0; index < 40; index++) statuses.push((await admin.get('/vaults')).status)
      sim.faults.clear()
      return statuses
    }
    const first = await run()
    const failures = first.filter((status) => status === 503).length
    expect(failures).toBeGreaterThan(8)
    expect(failures).toBeLessThan(32)
    expect(await run()).toEqual(first)
  })

  it('drops the connection mid-response', async () => {
    sim.faults.set({ dropRate: 1 })
    try {
      await expect(raw(sim.baseUrl, 'GET', '/vaults', { token: adminToken })).rejects.toThrow()
    } finally {
      sim.faults.clear()
    }
    expect((await client(sim.baseUrl, adminToken).get('/vaults')).status).toBe(200)
  })

  it('hangs requests until the client gives up, holding the user slot meanwhile', async () => {
    sim.faults.set({ hangRate: 1, match: 'GET /vaults' })
    const controller = new AbortController()
    const hung = raw(sim.baseUrl, 'GET', '/vaults', {
      token: adminToken,
      signal: controller.signal,
    })
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(sim.stats.inFlight).toBe(1)
    controller.abort()
    await expect(hung).rejects.toThrow()
    sim.faults.clear()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(sim.stats.inFlight).toBe(0)
  })

  it('rejects fault settings that make no sense', () => {
    expect(() => sim.faults.set({ serverErrorRate: 2 })).toThrow(/serverErrorRate/)
    expect(() => sim.faults.set({ serverErrorStatus: 404 })).toThrow(/5xx/)
  })
})

describe('the clock', () => {
  it('moves when a test advances it and stands still when frozen', () => {
    const before = sim.clock.nowSeconds()
    sim.clock.advance(3_600_000)
    expect(sim.clock.nowSeconds() - before).toBeGreaterThanOrEqual(3600)
    sim.clock.freeze()
    const frozen = sim.clock.nowMicros()
    expect(sim.clock.nowMicros()).toBe(frozen)
    sim.clock.set(new Date('2030-01-02T03:04:05Z'))
    expect(sim.clock.nowSeconds()).toBe(Date.UTC(2030, 0, 2, 3, 4, 5) / 1000)
    sim.clock.resume()
    sim.clock.set(Date.now())
  })
})
