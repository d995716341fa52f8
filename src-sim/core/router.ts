import type { RequestContext } from './context.ts'

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

export type Handler = (ctx: RequestContext) => unknown

export interface RouteOptions {
  /** Vault administrators only (the spec's list in Authentication, rule 6). */
  admin?: boolean
  /** Administrators and members with write permission (rule 7). */
  write?: boolean
  /**
   * The answer when the vault does not exist or the key may not reach it: 401 (Authentication,
   * rule 8) unless the spec names another for the operation (datasets: 404).
   */
  vaultRefusal?: 401 | 404
}

export interface Route {
  method: Method
  /** The spec's path, e.g. `/vaults/{vault_id}/molecules/{id}`. */
  pattern: string
  /** `METHOD pattern`, the key of stats.byOperation and of the README table. */
  operation: string
  segments: readonly Segment[]
  handler: Handler
  options: RouteOptions
  /** True below /vaults/{vault_id}: the vault and the user's role are checked first. */
  inVault: boolean
  /** The deprecated GET form of a POST /query pair. */
  deprecated: boolean
}

type Segment = { literal: string } | { param: string }

export type RouteMatch =
  | { kind: 'route'; route: Route; params: Record<string, number> }
  | { kind: 'wrong-method'; allowed: Method[] }
  | { kind: 'none' }

/**
 * The operations and their path patterns. `{name}` segments match positive integers only (every
 * path parameter of the spec is an id), so `/molecules/query` never matches `/molecules/{id}`.
 */
export class Router {
  readonly #routes: Route[] = []

  get(pattern: string, handler: Handler, options: RouteOptions = {}): void {
    this.#add('GET', pattern, handler, options, false)
  }

  post(pattern: string, handler: Handler, options: RouteOptions = {}): void {
    this.#add('POST', pattern, handler, options, false)
  }

  put(pattern: string, handler: Handler, options: RouteOptions = {}): void {
    this.#add('PUT', pattern, handler, options, false)
  }

  delete(pattern: string, handler: Handler, options: RouteOptions = {}): void {
    this.#add('DELETE', pattern, handler, options, false)
  }

  /**
   * A query-form pair: `POST pattern/query` with a JSON body (recommended) and `GET pattern` with
   * the same parameters in the query string (deprecated). One handler serves both;
   * `ctx.input()` gives it the parameters from wherever they came.
   */
  query(pattern: string, handler: Handler, options: RouteOptions = {}): void {
    this.#add('POST', `${pattern}/query`, handler, options, false)
    this.#add('GET', pattern, handler, options, true)
  }

  get routes(): readonly Route[] {
    return this.#routes
  }

  match(method: string, path: string): RouteMatch {
    const parts = path.split('/').filter((part) => part !== '')
    const allowed: Method[] = []
    for (const route of this.#routes) {
      const params = matchSegments(route.segments, parts)
      if (!params) continue
      if (route.method === method) return { kind: 'route', route, params }
      allowed.push(route.method)
    }
    return allowed.length > 0 ? { kind: 'wrong-method', allowed } : { kind: 'none' }
  }

  #add(
    method: Method,
    pattern: string,
    handler: Handler,
    options: RouteOptions,
    deprecated: boolean,
  ): void {
    const segments: Segment[] = pattern
      .split('/')
      .filter((part) => part !== '')
      .map((part) => {
        const param = /^\{(\w+)\}$/.exec(part)?.[1]
        return param ? { param } : { literal: part }
      })
    const operation = `${method} ${pattern}`
    if (this.#routes.some((route) => route.operation === operation)) {
      throw new Error(`The operation ${operation} is registered twice`)
    }
    this.#routes.push({
      method,
      pattern,
      operation,
      segments,
      handler,
      options,
      inVault: pattern.startsWith('/vaults/{vault_id}'),
      deprecated,
    })
  }
}

function matchSegments(
  segments: readonly Segment[],
  parts: readonly string[],
): Record<string, number> | undefined {
  if (segments.length !== parts.length) return undefined
  const params: Record<string, number> = {}
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!
    const part = parts[index]!
    if ('literal' in segment) {
      if (segment.literal !== part) return undefined
    } else {
      if (!/^\d{1,15}$/.test(part)) return undefined
      const id = Number(part)
      if (id < 1) return undefined
      params[segment.param] = id
    }
  }
  return params
}
