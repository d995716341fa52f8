import { afterEach, describe, expect, it } from 'vitest'
import { VaultClient } from '../../src-main/api/client.ts'
import { LimiterRegistry } from '../../src-main/api/limiter-registry.ts'
import { collect, expectApiError, useSim } from './support/sim.ts'
import { recordWire } from './support/wire-log.ts'

const harness = useSim()

afterEach(() => {
  harness.sim.faults.clear()
  harness.sim.resetStats()
})

describe('the client against the simulator', () => {
  it('lets 50 concurrent callers in two clients of one user cause no 429', async () => {
    harness.sim.faults.set({ latencyMs: 15, latencyJitterMs: 10 })
    const limiters = new LimiterRegistry()
    const windows = [harness.client('admin', { limiters }), harness.client('admin', { limiters })]
    const calls = Array.from({ length: 50 }, (_, index) =>
      index % 2 === 0
        ? windows[index % 2]!.vaults.list()
        : windows[index % 2]!.vaults.list({ priority: 'background' }),
    )
    const answers = await Promise.all(calls)
    expect(answers.every((vaults) => vaults.length === 3)).toBe(true)
    expect(harness.sim.stats.concurrencyRejections).toBe(0)
    expect(harness.sim.stats.maxInFlightPerUser).toBeLessThanOrEqual(3)
    expect(harness.sim.stats.maxInFlightPerUser).toBeGreaterThanOrEqual(2)
    expect(harness.sim.stats.byStatus['429']).toBeUndefined()
  })

  it('recovers from injected server errors and dropped connections', async () => {
    harness.sim.faults.set({ serverErrorRate: 0.25, dropRate: 0.25, seed: 7 })
    const client = harness.client('admin', {
      retry: { attempts: 8, baseDelayMs: 1, maxDelayMs: 10 },
    })
    const answers = await Promise.all(Array.from({ length: 30 }, () => client.vaults.list()))
    expect(answers.every((vaults) => vaults.length === 3)).toBe(true)
    expect(harness.sim.stats.injected.serverErrors).toBeGreaterThan(0)
    expect(harness.sim.stats.injected.drops).toBeGreaterThan(0)
  })

  it('retries a 429 with Retry-After and succeeds', async () => {
    harness.sim.faults.set({ tooManyRequestsRate: 0.5, retryAfterSeconds: 0, seed: 3 })
    const client = harness.client('admin', { retry: { attempts: 10 } })
    const answers = await Promise.all(Array.from({ length: 10 }, () => client.vaults.list()))
    expect(answers).toHaveLength(10)
    expect(harness.sim.stats.injected.tooManyRequests).toBeGreaterThan(0)
  })

  it('gives up on a request the server never answers, freeing its slot', async () => {
    harness.sim.faults.set({ hangRate: 1, match: 'GET /vaults' })
    const client = harness.client('admin', { timeoutMs: 100, retry: { attempts: 2 } })
    const error = await expectApiError(client.vaults.list(), 'network')
    expect(error.message).toContain('within 100 ms')
    harness.sim.faults.clear()
    expect(await client.vaults.list()).toHaveLength(3)
  })

  it('marks the connection as needing a new token when the token is refused', async () => {
    const client = new VaultClient({
      baseUrl: harness.sim.baseUrl,
      token: 'revoked-token-0000',
      limiters: new LimiterRegistry(),
    })
    const heard: string[] = []
    client.onNeedsNewToken((rejection) => heard.push(rejection.operation))
    await expectApiError(client.vaults.list(), 'authentication', 401)
    expect(client.needsNewToken).toBe(true)
    expect(heard).toEqual(['vaults.list'])
    client.setToken(harness.token('admin'))
    expect(client.needsNewToken).toBe(false)
    expect(await client.vaults.list()).toHaveLength(3)
  })

  it('keeps the token when only a vault is closed to it', async () => {
    const client = harness.client('admin')
    await expectApiError(client.projects.list(harness.vaults.closed), 'authentication', 401)
    expect(client.needsNewToken).toBe(false)
    // Data sets answer 404 there (spec: "404 when unauthorized or not found").
    await expectApiError(client.dataSets.list(harness.vaults.closed), 'not_found', 404)
    expect(client.needsNewToken).toBe(false)
  })

  it('sends the token to the service and never to the download origin', async () => {
    const wire = recordWire()
    try {
      const client = harness.client('admin')
      const finished = await client.molecules.export(harness.vaults.main, {
        names: ['does-not-exist'],
      })
      expect(await collect(finished.records())).toEqual([])
    } finally {
      wire.stop()
    }
    const token = harness.token('admin')
    const service = new URL(harness.sim.baseUrl).origin
    const downloads = wire.requests.filter(
      (request) => request.origin === harness.sim.downloadBaseUrl,
    )
    const toService = wire.requests.filter((request) => request.origin === service)
    expect(downloads).toHaveLength(1)
    expect(downloads[0]!.head).not.toContain(token)
    expect(downloads[0]!.head.toLowerCase()).not.toContain('x-svc-token')
    expect(toService.length).toBeGreaterThan(1)
    expect(toService.every((request) => request.head.includes(`X-SVC-Token: ${token}`))).toBe(true)
  })
})
