import type { IncomingMessage, ServerResponse } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { authenticate } from './access.ts'
import type { RequestContext } from './context.ts'
import type { SimCore, VaultAccess } from './sim-core.ts'
import type { SimUser } from './users-and-vaults.ts'
import type { FaultDecision } from './faults.ts'
import { HttpError, notFound, tooManyRequests, unauthorized } from './http-error.ts'
import type { InFlightLimit } from './in-flight-limit.ts'
import { readJsonBody } from './json-body.ts'
import { readMultipart } from './multipart.ts'
import type { MultipartForm } from './multipart.ts'
import { Params } from './params.ts'
import { isReply, jsonReply } from './replies.ts'
import type { Reply } from './replies.ts'
import { writeReply } from './respond.ts'
import type { Route, Router } from './router.ts'
import { preparedOnce } from './statements.ts'
import { countStatus } from './stats.ts'

export const apiPrefix = '/api/v1'

/**
 * The request pipeline of the API origin: token, per-user in-flight limit, injected faults,
 * route, vault and role, handler, answer. Every failure becomes the error record `{code, error}`.
 */
export function createApiHandler(sim: SimCore, router: Router, limit: InFlightLimit) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    handle(sim, router, limit, request, response).catch((error: unknown) => {
      // A client that went away mid-request is not a simulator error.
      if (response.destroyed) return
      sim.log(`simulator error: ${(error as Error).stack ?? String(error)}`)
      if (!response.headersSent)
        sendError(response, new HttpError(500, 'Internal simulator error'), () => {})
      else response.destroy()
    })
  }
}

async function handle(
  sim: SimCore,
  router: Router,
  limit: InFlightLimit,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const startedAt = performance.now()
  const method = request.method ?? 'GET'
  const url = new URL(request.url ?? '/', 'http://simulator')
  const path = url.pathname.startsWith(`${apiPrefix}/`)
    ? url.pathname.slice(apiPrefix.length)
    : undefined
  sim.stats.requests++
  let operation = `${method} ${path ?? url.pathname}`
  let user: SimUser | undefined
  let tokenId: number | undefined
  let release = (): void => {}
  response.on('close', () => release())
  response.on('finish', () => {
    countStatus(sim.stats, response.statusCode)
    const elapsedMs = performance.now() - startedAt
    if (tokenId !== undefined) {
      preparedOnce(
        sim.db,
        `INSERT INTO api_executions (token_id, at, seconds) VALUES (?, ?, ?)`,
      ).run(tokenId, sim.clock.nowSeconds(), elapsedMs / 1000)
    }
    sim.log(
      `${method} ${url.pathname}${url.search} ${response.statusCode} ${elapsedMs.toFixed(1)}ms${user ? ` ${user.email}` : ''}`,
    )
  })
  const answer = (reply: Reply, drop = false): void => {
    request.resume()
    writeReply(response, reply, { drop, beforeLastByte: () => release() })
  }
  try {
    if (path === undefined)
      throw new HttpError(
        404,
        `No API operation at ${url.pathname}; the API lives below ${apiPrefix}`,
      )
    const token = request.headers['x-svc-token']
    if (typeof token !== 'string' || token === '')
      throw unauthorized('An API key is required in the X-SVC-Token header')
    const identity = authenticate(sim.db, token)
    if (!identity) throw unauthorized('The API key is not valid')
    user = identity.user
    tokenId = identity.tokenId
    const acquired = limit.tryAcquire(user.id)
    if (!acquired) {
      throw tooManyRequests(
        `Too many concurrent requests: at most ${sim.limits.inFlightPerUser} per user are allowed`,
      )
    }
    release = acquired
    const matched = router.match(method, path)
    if (matched.kind === 'route') operation = matched.route.operation
    sim.stats.byOperation[operation] = (sim.stats.byOperation[operation] ?? 0) + 1
    const fault = sim.faults.decide(`${method} ${path}`)
    if (await injectFault(sim, fault, answer)) return
    if (matched.kind === 'none')
      throw new HttpError(404, `No API operation matches ${method} ${path}`)
    if (matched.kind === 'wrong-method') {
      throw new HttpError(
        405,
        `${method} is not allowed here; allowed: ${matched.allowed.join(', ')}`,
        {
          headers: { allow: matched.allowed.join(', ') },
        },
      )
    }
    const ctx = createContext(sim, request, url, matched.route, matched.params, user, tokenId)
    const result: unknown = await matched.route.handler(ctx)
    if (method !== 'GET' && !matched.route.pattern.endsWith('/query')) sim.dataVersion++
    if (fault.kind === 'server-error' && fault.afterWork) {
      answer(injectedServerError(fault.status, 'after the work was done'))
      return
    }
    answer(isReply(result) ? result : jsonReply(result), fault.kind === 'drop')
  } catch (error) {
    if (!(error instanceof HttpError)) throw error
    request.resume()
    sendError(response, error, () => release())
  }
}

/** Applies an injected fault; true when it answered (or will never answer) the request. */
async function injectFault(
  sim: SimCore,
  fault: FaultDecision,
  answer: (reply: Reply) => void,
): Promise<boolean> {
  if (fault.latencyMs > 0) {
    sim.stats.injected.latency++
    await sleep(fault.latencyMs)
  }
  switch (fault.kind) {
    case 'hang':
      sim.stats.injected.hangs++
      return true
    case 'server-error':
      sim.stats.injected.serverErrors++
      if (fault.afterWork) return false
      answer(injectedServerError(fault.status))
      return true
    case 'too-many-requests':
      sim.stats.injected.tooManyRequests++
      answer(
        jsonReply(
          { code: 429, error: 'Injected: too many requests' },
          429,
          fault.retryAfterSeconds === undefined
            ? undefined
            : { 'retry-after': String(fault.retryAfterSeconds) },
        ),
      )
      return true
    case 'drop':
      sim.stats.injected.drops++
      return false
    case 'refusal':
      sim.stats.injected.refusals++
      answer(
        jsonReply(
          { code: fault.status, error: `Injected: refused with ${fault.status}` },
          fault.status,
          fault.status === 405 ? { allow: 'GET' } : undefined,
        ),
      )
      return true
    case 'none':
      return false
  }
}

function injectedServerError(status: number, when?: string): Reply {
  return jsonReply(
    { code: status, error: when ? `Injected server error ${when}` : 'Injected server error' },
    status,
  )
}

function sendError(response: ServerResponse, error: HttpError, beforeLastByte: () => void): void {
  if (response.headersSent) {
    response.destroy()
    return
  }
  writeReply(response, jsonReply(error.toRecord(), error.status, error.headers), {
    drop: false,
    beforeLastByte,
  })
}

function createContext(
  sim: SimCore,
  request: IncomingMessage,
  url: URL,
  route: Route,
  pathParams: Record<string, number>,
  user: SimUser,
  tokenId: number,
): RequestContext {
  let access: VaultAccess | undefined
  if (route.inVault) {
    access = sim.accessFor(user.id, tokenId, pathParams.vault_id ?? 0)
    if (!access) {
      throw route.options.vaultRefusal === 404
        ? notFound(`Vault ${pathParams.vault_id ?? 0}`)
        : unauthorized()
    }
    if (route.options.admin && !access.isAdmin) {
      throw unauthorized(
        'The API key is not authorized for this operation: it is reserved for vault administrators',
      )
    }
    if (route.options.write && !access.canWrite) {
      throw unauthorized(
        'The API key is not authorized for this operation: it needs write permission in the vault',
      )
    }
  }
  let input: Promise<Params> | undefined
  return {
    sim,
    db: sim.db,
    user,
    tokenId,
    method: route.method,
    operation: route.operation,
    search: url.searchParams,
    pathId(name) {
      const value = pathParams[name]
      if (value === undefined)
        throw new Error(`The route ${route.pattern} has no path parameter ${name}`)
      return value
    },
    get access(): VaultAccess {
      if (!access) throw new Error(`The route ${route.pattern} is not below /vaults/{vault_id}`)
      return access
    },
    input() {
      input ??=
        route.method === 'GET' || route.method === 'DELETE'
          ? Promise.resolve(Params.fromSearchParams(url.searchParams, user.timeZone))
          : readJsonBody(request, sim.limits.maxJsonBodyBytes).then((body) =>
              Params.fromBody(body, user.timeZone),
            )
      return input
    },
    queryParams: () => Params.fromSearchParams(url.searchParams, user.timeZone),
    multipart(): Promise<MultipartForm> {
      return readMultipart(request, {
        directory: sim.dataDirectory,
        maxFileBytes: sim.limits.maxUploadBytes,
        maxFieldBytes: 1_048_576,
      })
    },
  }
}
