import { Random } from './random.ts'

/**
 * Misbehaviour injected for reliability tests. Rates are probabilities per request (0..1),
 * drawn from a seeded generator so that a run repeats. Settings may change while the simulator
 * runs; `match` limits them to requests whose `METHOD /path` (path below /api/v1, or
 * `/download/...` on the download origin) contains the string or matches the pattern.
 */
export interface FaultSettings {
  /** Added before each answer, in milliseconds. */
  latencyMs?: number
  /** Up to this much more, uniformly. */
  latencyJitterMs?: number
  serverErrorRate?: number
  /** Status of injected server errors (default 503). */
  serverErrorStatus?: number
  /**
   * Injected server errors answer after the handler has done its work (committed, as a service
   * failing while it writes its answer), instead of before it: a client that sends the request
   * again does the work twice.
   */
  serverErrorAfterWork?: boolean
  tooManyRequestsRate?: number
  /** Retry-After of injected 429s, in seconds; absent means no header. */
  retryAfterSeconds?: number
  /** Connections destroyed after half of the answer was written. */
  dropRate?: number
  /** Requests never answered (until the client gives up or the simulator stops). */
  hangRate?: number
  match?: string | RegExp
  seed?: number
  /**
   * Requests a real server refuses where this one answers, whatever `match` says: each is
   * answered `status` with the error record when its `METHOD /path` matches. 403 and 404 for a
   * kind an administrator or an inventory vault serves, 404 or 405 for a `/query` form a server
   * does not have.
   */
  refusals?: readonly Refusal[]
  /**
   * Readout cells that have only a value are sent as that value, bare (`12`, `">30000"`), as
   * real vaults' protocol data sends them, instead of `{value}`.
   */
  bareReadoutCells?: boolean
}

export interface Refusal {
  match: string | RegExp
  status: 401 | 403 | 404 | 405
}

export type FaultDecision =
  | { kind: 'none'; latencyMs: number }
  | { kind: 'hang'; latencyMs: number }
  | { kind: 'server-error'; latencyMs: number; status: number; afterWork: boolean }
  | { kind: 'too-many-requests'; latencyMs: number; retryAfterSeconds: number | undefined }
  | { kind: 'drop'; latencyMs: number }
  | { kind: 'refusal'; latencyMs: number; status: number }

const rateKeys = ['serverErrorRate', 'tooManyRequestsRate', 'dropRate', 'hangRate'] as const

export class Faults {
  #settings: FaultSettings = {}
  #random = new Random(1)

  constructor(initial: FaultSettings = {}) {
    this.set(initial)
  }

  get settings(): Readonly<FaultSettings> {
    return this.#settings
  }

  /** Replaces the settings (an empty object turns every fault off). */
  set(settings: FaultSettings): void {
    validateFaults(settings)
    this.#settings = { ...settings }
    this.#random = new Random(settings.seed ?? 1)
  }

  clear(): void {
    this.set({})
  }

  decide(operation: string): FaultDecision {
    const settings = this.#settings
    const refusal = settings.refusals?.find((candidate) => matches(candidate.match, operation))
    if (refusal) return { kind: 'refusal', latencyMs: 0, status: refusal.status }
    if (!matches(settings.match, operation)) return { kind: 'none', latencyMs: 0 }
    const latencyMs =
      (settings.latencyMs ?? 0) +
      (settings.latencyJitterMs ? this.#random.next() * settings.latencyJitterMs : 0)
    if (this.#draw(settings.hangRate)) return { kind: 'hang', latencyMs }
    if (this.#draw(settings.serverErrorRate)) {
      return {
        kind: 'server-error',
        latencyMs,
        status: settings.serverErrorStatus ?? 503,
        afterWork: settings.serverErrorAfterWork === true,
      }
    }
    if (this.#draw(settings.tooManyRequestsRate)) {
      return { kind: 'too-many-requests', latencyMs, retryAfterSeconds: settings.retryAfterSeconds }
    }
    if (this.#draw(settings.dropRate)) return { kind: 'drop', latencyMs }
    return { kind: 'none', latencyMs }
  }

  #draw(rate: number | undefined): boolean {
    if (!rate) return false
    return rate >= 1 || this.#random.next() < rate
  }
}

function matches(match: string | RegExp | undefined, operation: string): boolean {
  if (match === undefined) return true
  return typeof match === 'string' ? operation.includes(match) : match.test(operation)
}

function validateFaults(settings: FaultSettings): void {
  for (const key of rateKeys) {
    const rate = settings[key]
    if (rate !== undefined && !(rate >= 0 && rate <= 1)) {
      throw new Error(`Fault setting ${key} must be between 0 and 1, got ${rate}`)
    }
  }
  for (const key of ['latencyMs', 'latencyJitterMs', 'retryAfterSeconds'] as const) {
    const value = settings[key]
    if (value !== undefined && !(value >= 0 && Number.isFinite(value))) {
      throw new Error(`Fault setting ${key} must be a non-negative number, got ${value}`)
    }
  }
  for (const refusal of settings.refusals ?? []) {
    if (![401, 403, 404, 405].includes(refusal.status)) {
      throw new Error(
        `Fault setting refusals: status must be 401, 403, 404 or 405, got ${refusal.status}`,
      )
    }
  }
  const status = settings.serverErrorStatus
  if (status !== undefined && !(Number.isInteger(status) && status >= 500 && status <= 599)) {
    throw new Error(`Fault setting serverErrorStatus must be a 5xx status, got ${status}`)
  }
}
