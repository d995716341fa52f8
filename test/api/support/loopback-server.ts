import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface SeenRequest {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
  body: Buffer
}

export interface LoopbackServer {
  readonly url: string
  readonly origin: string
  readonly requests: SeenRequest[]
  /** Requests being handled right now, and the most there ever were at once. */
  readonly inFlight: number
  readonly maxInFlight: number
  close(): Promise<void>
}

export type LoopbackHandler = (
  request: SeenRequest,
  response: http.ServerResponse,
) => void | Promise<void>

/**
 * A purpose-built HTTP server on 127.0.0.1 for transport tests: it records every request with its
 * headers and body, and counts how many it is handling at once.
 */
export async function loopbackServer(handler: LoopbackHandler): Promise<LoopbackServer> {
  const requests: SeenRequest[] = []
  let inFlight = 0
  let maxInFlight = 0
  const server = http.createServer(async (incoming, response) => {
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    response.on('close', () => inFlight--)
    const chunks: Buffer[] = []
    for await (const chunk of incoming) chunks.push(chunk as Buffer)
    const seen: SeenRequest = {
      method: incoming.method ?? 'GET',
      url: incoming.url ?? '/',
      headers: incoming.headers,
      body: Buffer.concat(chunks),
    }
    requests.push(seen)
    try {
      await handler(seen, response)
    } catch (error) {
      response.statusCode = 500
      response.end(String(error))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const origin = `http://127.0.0.1:${port}`
  return {
    url: `${origin}/api/v1`,
    origin,
    requests,
    get inFlight() {
      return inFlight
    },
    get maxInFlight() {
      return maxInFlight
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export function sendJson(response: http.ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' })
  response.end(JSON.stringify(value))
}
