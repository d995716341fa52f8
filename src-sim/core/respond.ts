import fs from 'node:fs'
import type { ServerResponse } from 'node:http'
import type { Reply } from './replies.ts'

/**
 * Writes a reply. `beforeLastByte` runs just before the answer is complete (the in-flight slot
 * is released there, so a client that sends its next request as soon as it has this answer
 * never finds the slot still taken). With `drop`, half of the body is written and the connection
 * is destroyed, as when a network fails mid-response.
 */
export function writeReply(
  response: ServerResponse,
  reply: Reply,
  options: { drop: boolean; beforeLastByte: () => void },
): void {
  if (reply.kind === 'file') {
    writeFile(response, reply.path, reply.contentType, reply.fileName, options)
    return
  }
  if (reply.kind === 'stream') {
    writeStream(response, reply, options).catch(() => response.destroy())
    return
  }
  let status: number
  let parts: readonly Uint8Array[]
  const headers: Record<string, string> = {}
  switch (reply.kind) {
    case 'json':
      status = reply.status
      parts = [Buffer.from(reply.value === undefined ? '' : JSON.stringify(reply.value))]
      headers['content-type'] = 'application/json; charset=utf-8'
      Object.assign(headers, reply.headers)
      break
    case 'bytes':
      status = reply.status
      parts = reply.bytes instanceof Uint8Array ? [reply.bytes] : reply.bytes
      headers['content-type'] = reply.contentType
      Object.assign(headers, reply.headers)
      break
    case 'redirect':
      status = 302
      parts = []
      headers.location = reply.location
      break
    case 'empty':
      status = reply.status
      parts = []
      break
  }
  headers['content-length'] = String(parts.reduce((sum, part) => sum + part.byteLength, 0))
  response.writeHead(status, headers)
  if (options.drop) {
    dropAfterHalf(response, Buffer.concat(parts))
    return
  }
  response.cork()
  for (const part of parts.slice(0, -1)) response.write(part)
  options.beforeLastByte()
  response.end(parts.at(-1))
  response.uncork()
}

function dropAfterHalf(response: ServerResponse, body: Buffer): void {
  const half = body.subarray(0, Math.floor(body.length / 2))
  response.flushHeaders()
  response.write(half, () => response.socket?.destroy())
  if (half.length === 0) response.socket?.destroy()
}

/**
 * Writes a body produced as it goes, a chunk at a time as the connection takes them. The last
 * chunk is held back until the producer is done, so that `beforeLastByte` runs before it.
 */
async function writeStream(
  response: ServerResponse,
  reply: Extract<Reply, { kind: 'stream' }>,
  options: { drop: boolean; beforeLastByte: () => void },
): Promise<void> {
  response.writeHead(reply.status, {
    'content-type': reply.contentType,
    'content-length': String(reply.length),
  })
  const dropAt = options.drop ? Math.floor(reply.length / 2) : Infinity
  let written = 0
  let held: Uint8Array | undefined
  for await (const chunk of reply.chunks()) {
    if (response.destroyed) return
    if (held) {
      if (written + held.length >= dropAt) {
        response.write(held.subarray(0, dropAt - written), () => response.socket?.destroy())
        return
      }
      written += held.length
      if (!response.write(held)) await drained(response)
    }
    held = chunk
  }
  if (options.drop) {
    response.write((held ?? new Uint8Array(0)).subarray(0, Math.max(0, dropAt - written)), () =>
      response.socket?.destroy(),
    )
    return
  }
  options.beforeLastByte()
  response.end(held)
}

function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done)
      response.off('close', done)
      resolve()
    }
    response.on('drain', done)
    response.on('close', done)
  })
}

function writeFile(
  response: ServerResponse,
  path: string,
  contentType: string,
  fileName: string,
  options: { drop: boolean; beforeLastByte: () => void },
): void {
  const size = fs.statSync(path).size
  response.writeHead(200, {
    'content-type': contentType,
    'content-length': String(size),
    'content-disposition': `attachment; filename="${fileName.replaceAll('"', '')}"`,
  })
  if (options.drop) {
    const stream = fs.createReadStream(path, {
      start: 0,
      end: Math.max(0, Math.floor(size / 2) - 1),
    })
    stream.on('data', (chunk) => response.write(chunk))
    stream.on('end', () => response.socket?.destroy())
    return
  }
  // Large chunks: an export file of a big vault is hundreds of megabytes.
  const stream = fs.createReadStream(path, { highWaterMark: 1024 * 1024 })
  stream.on('end', options.beforeLastByte)
  stream.on('error', () => response.socket?.destroy())
  stream.pipe(response)
}
