import http from 'node:http'
import https from 'node:https'
import { Readable } from 'node:stream'
import type { Attempt } from './attempt.ts'
import type { StreamedBody } from './streamed-body.ts'

/** Statuses whose answer has no body (a Response refuses one for them). */
const nullBodyStatuses = new Set([101, 103, 204, 205, 304])

/**
 * Sends a request whose body is read from a stream (an upload) with Node's own HTTP client, and
 * answers the reply as a fetch Response.
 *
 * Node 22's fetch keeps the unread half of a tee of every streamed request body for a possible
 * redirect (nodejs/undici#4058), so an upload sent through it ends up whole in memory (see
 * bench/README.md; bench/outbox-memory.bench.ts holds the streamed path to its goal). Here each
 * chunk is written only once the socket has taken the one before it (backpressure), so memory
 * stays at a few chunks whatever the size of the file. Every chunk written restarts the attempt's
 * idle deadline, so a large upload on a slow line is cut off only when nothing moves; the
 * attempt's signal (the deadline or the caller's abort) destroys the request at once.
 *
 * A reply that comes before the body is all sent (a refusal, a 429) stops the sending; the
 * connection is then closed once the reply has been read, never reused. Failures are thrown as
 * fetch's are, a TypeError whose cause carries the system error code.
 */
export function sendStreamed(
  target: URL,
  method: string,
  headers: Record<string, string>,
  body: StreamedBody,
  attempt: Attempt,
): Promise<Response> {
  const signal = attempt.signal
  if (signal.aborted) return Promise.reject(signal.reason as Error)
  return new Promise<Response>((resolve, reject) => {
    const client = target.protocol === 'https:' ? https : http
    const request = client.request(target, { method, headers, signal })
    // A byte stream fills a few buffers used over and over; any other is read as it comes.
    const buffers = new BufferPool()
    let reader: ReadableStreamBYOBReader | ReadableStreamDefaultReader<Uint8Array>
    let next: (
      buffer: Uint8Array<ArrayBuffer> | null,
    ) => Promise<{ done: boolean; value?: Uint8Array | undefined }>
    try {
      const byob = body.stream.getReader({ mode: 'byob' })
      reader = byob
      next = (buffer) =>
        byob.read(buffer ?? new Uint8Array(chunkBytes)) as Promise<{
          done: boolean
          value?: Uint8Array
        }>
    } catch {
      const plain = body.stream.getReader()
      reader = plain
      buffers.disable()
      next = () => plain.read()
    }
    let answered = false
    let bodySent = false
    let settled = false
    const fail = (error: unknown) => {
      if (settled) return
      settled = true
      buffers.close()
      reader.cancel().catch(() => {})
      reject(
        signal.aborted
          ? (signal.reason as Error)
          : new TypeError('the upload failed', { cause: error }),
      )
    }
    request.on('error', fail)
    request.on('response', (incoming) => {
      answered = true
      if (!bodySent) {
        // Answered early: what is left of the body is not sent, and the connection not reused.
        buffers.close()
        reader.cancel().catch(() => {})
        incoming.on('close', () => request.destroy())
      }
      if (settled) {
        incoming.destroy()
        return
      }
      settled = true
      attempt.touch()
      const status = incoming.statusCode ?? 0
      const replyHeaders = new Headers()
      const raw = incoming.rawHeaders
      for (let index = 0; index + 1 < raw.length; index += 2) {
        replyHeaders.append(raw[index]!, raw[index + 1]!)
      }
      const replyBody = nullBodyStatuses.has(status)
        ? null
        : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>)
      if (replyBody === null) incoming.resume()
      try {
        resolve(
          new Response(replyBody, {
            status,
            statusText: incoming.statusMessage ?? '',
            headers: replyHeaders,
          }),
        )
      } catch (error) {
        incoming.destroy()
        reject(new TypeError(`the server's answer cannot be read`, { cause: error }))
      }
    })

    const writeBody = async () => {
      for (;;) {
        const buffer = await buffers.take()
        const { done, value } = await next(buffer)
        if (answered || settled) return
        if (done || !value) break
        attempt.touch()
        const written = value
        if (!request.write(written, () => buffers.give(written))) await drained(request)
        attempt.touch()
      }
      bodySent = true
      await new Promise<void>((resolveEnd) => request.end(resolveEnd))
      attempt.touch()
    }
    writeBody().catch((error: unknown) => {
      if (answered) return
      request.destroy()
      fail(error)
    })
  })
}

const chunkBytes = 64 * 1024
/** Buffers of a byte stream's body that may be with the socket at once. */
const poolSize = 4

/**
 * The buffers of one upload: each is lent to the body's reader, then to the socket, and comes back
 * when the socket has written it. A buffer read into is transferred (the old view detaches), so
 * what comes back is the view the socket was given, over the same memory.
 */
class BufferPool {
  readonly #free: Uint8Array<ArrayBuffer>[] = []
  readonly #waiting: ((buffer: Uint8Array<ArrayBuffer> | null) => void)[] = []
  #made = 0
  #enabled = true

  disable(): void {
    this.#enabled = false
  }

  /** The upload is over: whoever waits for a buffer gets none. */
  close(): void {
    this.#enabled = false
    for (const waiter of this.#waiting.splice(0)) waiter(null)
  }

  /** A buffer to read into (null: the reader brings its own), waiting while all are out. */
  take(): Promise<Uint8Array<ArrayBuffer> | null> {
    if (!this.#enabled) return Promise.resolve(null)
    const free = this.#free.pop()
    if (free) return Promise.resolve(free)
    if (this.#made < poolSize) {
      this.#made++
      return Promise.resolve(new Uint8Array(chunkBytes))
    }
    return new Promise((resolve) => this.#waiting.push(resolve))
  }

  give(written: Uint8Array): void {
    if (!this.#enabled) return
    // Its buffer is one of ours (an ArrayBuffer, never shared), handed back by the BYOB reader.
    const buffer = new Uint8Array(written.buffer as ArrayBuffer, 0, written.buffer.byteLength)
    const waiter = this.#waiting.shift()
    if (waiter) waiter(buffer)
    else this.#free.push(buffer)
  }
}

/**
 * Resolves once the request can take more or the server has answered (the sending stops then),
 * and rejects when the request fails or closes first.
 */
function drained(request: http.ClientRequest): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const cleanUp = () => {
      request.off('drain', onDrain)
      request.off('response', onDrain)
      request.off('error', onError)
      request.off('close', onClose)
    }
    const onDrain = () => {
      cleanUp()
      resolve()
    }
    const onError = (error: Error) => {
      cleanUp()
      reject(error)
    }
    const onClose = () => {
      cleanUp()
      reject(Object.assign(new Error('the connection closed'), { code: 'ECONNRESET' }))
    }
    request.on('drain', onDrain)
    request.on('response', onDrain)
    request.on('error', onError)
    request.on('close', onClose)
  })
}
