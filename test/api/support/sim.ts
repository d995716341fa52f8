import { afterAll, beforeAll, expect } from 'vitest'
import { VaultClient, type VaultClientOptions } from '../../../src-main/api/client.ts'
import { ApiError, type ApiErrorKind } from '../../../src-main/api/errors.ts'
import { LimiterRegistry } from '../../../src-main/api/limiter-registry.ts'
import { startVaultSim, type VaultSim, type VaultSimOptions } from '../../../src-sim/index.ts'

export type UserKey = 'admin' | 'writer' | 'reader' | 'outsider'

export interface SimHarness {
  readonly sim: VaultSim
  /** A client of `user` with its own limiter registry (tests must not share slots by accident). */
  client(user?: UserKey, options?: Partial<VaultClientOptions>): VaultClient
  token(user?: UserKey): string
  readonly vaults: { main: number; ai: number; closed: number }
  readonly projects: { kinase: number; gpcr: number; confidential: number; aiExploration: number }
}

/**
 * Starts one simulator for the suite (over real HTTP on loopback) and stops it afterwards.
 * Exports run on a fast clock and are polled every few milliseconds.
 */
export function useSim(options: VaultSimOptions = {}): SimHarness {
  let sim: VaultSim | undefined
  beforeAll(async () => {
    sim = await startVaultSim({
      port: 0,
      seed: 'demo',
      exportTiming: { startDelayMs: 5, durationMs: 20 },
      ...options,
    })
  })
  afterAll(async () => {
    await sim?.stop()
  })
  const running = () => {
    if (!sim) throw new Error('The simulator has not started.')
    return sim
  }
  const token = (user: UserKey = 'admin') => running().cast.users[user].tokens[0]!
  return {
    get sim() {
      return running()
    },
    token,
    client: (user = 'admin', clientOptions = {}) =>
      new VaultClient({
        baseUrl: running().baseUrl,
        token: token(user),
        limiters: new LimiterRegistry(),
        exportPolling: { minIntervalMs: 2, maxIntervalMs: 10 },
        retry: { baseDelayMs: 5, maxDelayMs: 50 },
        ...clientOptions,
      }),
    get vaults() {
      const { main, ai, closed } = running().cast.vaults
      return { main: main.id, ai: ai.id, closed: closed.id }
    },
    get projects() {
      const { kinase, gpcr, confidential, aiExploration } = running().cast.projects
      return {
        kinase: kinase.id,
        gpcr: gpcr.id,
        confidential: confidential.id,
        aiExploration: aiExploration.id,
      }
    },
  }
}

/** Awaits a call that must fail, and checks the error's kind and status. */
export async function expectApiError(
  promise: Promise<unknown>,
  kind: ApiErrorKind,
  status?: number,
): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error, `expected the call to fail with ${kind}`).toBeInstanceOf(ApiError)
  const apiError = error as ApiError
  expect({ kind: apiError.kind, status: apiError.status, message: apiError.message }).toMatchObject(
    {
      kind,
      ...(status !== undefined ? { status } : {}),
    },
  )
  return apiError
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of iterable) out.push(item)
  return out
}
