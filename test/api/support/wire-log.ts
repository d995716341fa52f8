import diagnostics from 'node:diagnostics_channel'

export interface WireRequest {
  origin: string
  path: string
  /** The request head exactly as it was written to the socket. */
  head: string
}

/**
 * Records every HTTP request this process sends, as undici writes it to the socket: the way to
 * prove what reached which origin, whatever the client code believes it did.
 */
export function recordWire(): { requests: WireRequest[]; stop(): void } {
  const requests: WireRequest[] = []
  const listener = (message: unknown) => {
    const { request, headers } = message as {
      request: { origin: string; path: string }
      headers: string
    }
    requests.push({ origin: String(request.origin), path: request.path, head: headers })
  }
  diagnostics.subscribe('undici:client:sendHeaders', listener)
  return { requests, stop: () => diagnostics.unsubscribe('undici:client:sendHeaders', listener) }
}
