import type { RawData, WebSocket } from 'ws'
import type { Dispatch } from '../ipc/dispatcher.ts'
import type { EventBus } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'

/** Close codes of RFC 6455 used when a page breaks the protocol. */
const closeCodes = { unsupportedData: 1003, invalidPayload: 1007, policyViolation: 1008 }

type RequestId = number | string

/**
 * The page side of the contract over WebSocket. The page sends `{id, channel, args}` and gets
 * `{id, result}` back, where `result` is exactly what the dispatcher answered (errors are values);
 * events are pushed as `{event, payload}` to every page that is connected.
 */
export class SocketBridge {
  readonly #dispatch: Dispatch
  readonly #log: Logger
  readonly #sockets = new Set<WebSocket>()
  readonly #stopEvents: () => void

  constructor(dispatch: Dispatch, events: EventBus, log: Logger) {
    this.#dispatch = dispatch
    this.#log = log
    this.#stopEvents = events.onAny((event, payload) => this.#broadcast({ event, payload }))
  }

  attach(socket: WebSocket): void {
    this.#sockets.add(socket)
    socket.on('close', () => this.#sockets.delete(socket))
    // ws closes the socket itself after a protocol error (an oversized message, say); without a
    // listener the error event would take the whole process down with it.
    socket.on('error', (error) => this.#log.warn('harness socket failed', { error: error.message }))
    socket.on('message', (data, isBinary) => {
      if (isBinary) {
        socket.close(closeCodes.unsupportedData, 'Binary messages are not supported.')
        return
      }
      void this.#answer(socket, data)
    })
  }

  close(): void {
    this.#stopEvents()
    for (const socket of this.#sockets) socket.terminate()
    this.#sockets.clear()
  }

  async #answer(socket: WebSocket, data: RawData): Promise<void> {
    let message: unknown
    try {
      message = JSON.parse(data.toString())
    } catch {
      socket.close(closeCodes.invalidPayload, 'A request must be JSON.')
      return
    }
    const id = requestId(message)
    if (id === undefined) {
      this.#log.warn('harness page sent a request without a valid id')
      socket.close(
        closeCodes.policyViolation,
        'A request must be an object {id, channel, args} with a number or short string id.',
      )
      return
    }
    const { channel, args } = message as { channel?: unknown; args?: unknown }
    const result = await this.#dispatch(channel, args)
    send(socket, { id, result })
  }

  #broadcast(message: unknown): void {
    for (const socket of this.#sockets) send(socket, message)
  }
}

function requestId(message: unknown): RequestId | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined
  const { id } = message as { id?: unknown }
  if (typeof id === 'number' && Number.isSafeInteger(id)) return id
  if (typeof id === 'string' && id.length > 0 && id.length <= 64) return id
  return undefined
}

function send(socket: WebSocket, message: unknown): void {
  // A page that closed while its request was being answered has nobody left to tell.
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message))
}
