import fs from 'node:fs'
import type { IncomingMessage } from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { HttpError } from './http-error.ts'
import { readMultipart } from './multipart.ts'

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'multipart-test-'))
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }))

const boundary = '----vaultsim7MA4YWxkTrZu0gW'
const fileBytes = Buffer.from(Array.from({ length: 70_000 }, (_, index) => (index * 31) % 256))

function body(): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="json"\r\n\r\n{"project": "Kinase Inhibitors"}\r\n`,
    ),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="plate.csv"\r\nContent-Type: text/csv\r\n\r\n`,
    ),
    fileBytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
}

/** A request whose body arrives in pieces of `size` bytes, so delimiters straddle chunks. */
function request(
  bytes: Buffer,
  size: number,
  contentType = `multipart/form-data; boundary=${boundary}`,
): IncomingMessage {
  const chunks: Buffer[] = []
  for (let offset = 0; offset < bytes.length; offset += size)
    chunks.push(bytes.subarray(offset, offset + size))
  return Object.assign(Readable.from(chunks), {
    headers: { 'content-type': contentType },
  }) as unknown as IncomingMessage
}

const limits = { directory, maxFileBytes: 1_000_000, maxFieldBytes: 1000 }

describe('readMultipart', () => {
  it('parses fields into memory and streams files to disk, whatever the chunk boundaries', async () => {
    for (const size of [1, 7, 41, 4096, 1_000_000]) {
      const form = await readMultipart(request(body(), size), limits)
      expect(form.fields.get('json')).toBe('{"project": "Kinase Inhibitors"}')
      const file = form.files.get('file')!
      expect(file).toMatchObject({
        fileName: 'plate.csv',
        contentType: 'text/csv',
        size: fileBytes.length,
      })
      expect(fs.readFileSync(file.path).equals(fileBytes)).toBe(true)
      form.discard()
      expect(fs.existsSync(file.path)).toBe(false)
    }
  })

  it('answers 413 past the file limit and 400 for a missing boundary or a truncated body, leaving no files', async () => {
    const refuse = async (message: RegExp, status: number, run: () => Promise<unknown>) => {
      const error = await run().catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(HttpError)
      expect((error as HttpError).status).toBe(status)
      expect((error as HttpError).message).toMatch(message)
    }
    await refuse(/larger than the 1000-byte limit/, 413, () =>
      readMultipart(request(body(), 500), { ...limits, maxFileBytes: 1000 }),
    )
    await refuse(/boundary/, 400, () =>
      readMultipart(request(body(), 500, 'multipart/form-data'), limits),
    )
    await refuse(/ended before its closing boundary/, 400, () =>
      readMultipart(request(body().subarray(0, 5000), 500), limits),
    )
    expect(fs.readdirSync(directory)).toEqual([])
  })
})
