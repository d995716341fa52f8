import { createHash } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ReceivedUpload {
  fileName: string
  bytes: number
  sha256: string
}

export interface UploadSink {
  /** Base URL to give a client (`http://127.0.0.1:PORT/api/v1`). */
  readonly baseUrl: string
  readonly received: ReceivedUpload[]
  close(): Promise<void>
}

/**
 * A server of the file attach operation for uploads larger than the simulator can keep (it stores
 * files in SQLite, whose blobs stop at about 512 MiB): it reads the multipart body as it arrives,
 * hashes the file part without keeping it, and answers `{id, name}` as the spec's service does.
 * Everything else answers 404.
 */
export async function uploadSink(): Promise<UploadSink> {
  const received: ReceivedUpload[] = []
  const server = http.createServer((request, response) => {
    const boundary = /boundary=([^\s;]+)/.exec(request.headers['content-type'] ?? '')?.[1]
    if (
      request.method !== 'POST' ||
      !/\/vaults\/\d+\/files$/.test(request.url ?? '') ||
      !boundary
    ) {
      request.resume()
      response.writeHead(404, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ code: 404, error: 'Not found' }))
      return
    }
    const closing = Buffer.from(`\r\n--${boundary}--\r\n`)
    const hash = createHash('sha256')
    let head = Buffer.alloc(0)
    let fileName: string | undefined
    let tail = Buffer.alloc(0)
    let bytes = 0
    request.on('data', (chunk: Buffer) => {
      if (fileName === undefined) {
        head = Buffer.concat([head, chunk])
        const part = head.indexOf('name="file"')
        const start = part < 0 ? -1 : head.indexOf('\r\n\r\n', part)
        if (start < 0) return
        fileName = /filename="([^"]*)"/.exec(head.subarray(part, start).toString())?.[1] ?? ''
        chunk = head.subarray(start + 4)
      }
      // The closing delimiter is held back until the body ends: it is not part of the file.
      const data = Buffer.concat([tail, chunk])
      const keep = Math.min(closing.length, data.length)
      const content = data.subarray(0, data.length - keep)
      hash.update(content)
      bytes += content.length
      tail = Buffer.from(data.subarray(data.length - keep))
    })
    request.on('end', () => {
      const complete = fileName !== undefined && tail.equals(closing)
      if (complete) received.push({ fileName: fileName!, bytes, sha256: hash.digest('hex') })
      response.writeHead(complete ? 200 : 400, { 'content-type': 'application/json' })
      response.end(
        JSON.stringify(
          complete
            ? { id: received.length, name: fileName }
            : { code: 400, error: 'The multipart body has no complete file part' },
        ),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
