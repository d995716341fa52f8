import fs from 'node:fs'
import type { IncomingMessage } from 'node:http'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { HttpError, badRequest } from './http-error.ts'

export interface UploadedFile {
  field: string
  fileName: string
  contentType: string
  size: number
  /** Where the bytes were streamed; the caller keeps or deletes the file. */
  path: string
}

export interface MultipartForm {
  fields: Map<string, string>
  files: Map<string, UploadedFile>
  /** Deletes the streamed files that the handler did not keep. */
  discard(): void
}

export interface MultipartLimits {
  directory: string
  maxFileBytes: number
  maxFieldBytes: number
}

/**
 * Parses multipart/form-data as it arrives. File parts stream to disk (files may be large),
 * other parts are kept in memory up to a small limit.
 */
export async function readMultipart(
  request: IncomingMessage,
  limits: MultipartLimits,
): Promise<MultipartForm> {
  const contentType = request.headers['content-type'] ?? ''
  const boundaryMatch = /^multipart\/form-data\s*;.*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(
    contentType,
  )
  const boundary = boundaryMatch?.[1] ?? boundaryMatch?.[2]
  if (!boundary) {
    throw badRequest(
      `Expected a multipart/form-data body with a boundary, got content type '${contentType}'`,
    )
  }
  const parser = new MultipartParser(boundary, limits)
  try {
    for await (const chunk of request) parser.push(chunk as Buffer)
    return parser.finish()
  } catch (error) {
    parser.abort()
    throw error
  }
}

type State = 'preamble' | 'headers' | 'body' | 'after-delimiter' | 'done'

interface OpenPart {
  field: string
  fileName: string | undefined
  contentType: string
  size: number
  chunks: Buffer[]
  fd: number | undefined
  path: string | undefined
}

class MultipartParser {
  readonly #delimiter: Buffer
  readonly #limits: MultipartLimits
  readonly #fields = new Map<string, string>()
  readonly #files = new Map<string, UploadedFile>()
  #buffer: Buffer = Buffer.alloc(0)
  #state: State = 'preamble'
  #part: OpenPart | undefined

  constructor(boundary: string, limits: MultipartLimits) {
    this.#delimiter = Buffer.from(`\r\n--${boundary}`)
    this.#limits = limits
    // The first delimiter has no leading CRLF; prefixing one lets a single search find it.
    this.#buffer = Buffer.from('\r\n')
  }

  push(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk])
    this.#run()
  }

  finish(): MultipartForm {
    if (this.#state !== 'done') {
      throw badRequest('The multipart body ended before its closing boundary')
    }
    const files = this.#files
    return {
      fields: this.#fields,
      files,
      discard: () => {
        for (const file of files.values()) fs.rmSync(file.path, { force: true })
      },
    }
  }

  abort(): void {
    this.#closePartFile()
    if (this.#part?.path) fs.rmSync(this.#part.path, { force: true })
    for (const file of this.#files.values()) fs.rmSync(file.path, { force: true })
  }

  #run(): void {
    for (;;) {
      if (this.#state === 'preamble') {
        const index = this.#buffer.indexOf(this.#delimiter)
        if (index < 0) {
          this.#keepTail(this.#delimiter.length)
          return
        }
        this.#buffer = this.#buffer.subarray(index + this.#delimiter.length)
        this.#state = 'after-delimiter'
      } else if (this.#state === 'after-delimiter') {
        if (this.#buffer.length < 2) return
        const marker = this.#buffer.subarray(0, 2).toString('latin1')
        if (marker === '--') {
          this.#state = 'done'
          this.#buffer = Buffer.alloc(0)
          return
        }
        if (marker !== '\r\n') throw badRequest('Malformed multipart body: bad boundary line')
        this.#buffer = this.#buffer.subarray(2)
        this.#state = 'headers'
      } else if (this.#state === 'headers') {
        const end = this.#buffer.indexOf('\r\n\r\n')
        if (end < 0) {
          if (this.#buffer.length > 16_384)
            throw badRequest('Malformed multipart body: part headers too long')
          return
        }
        this.#openPart(this.#buffer.subarray(0, end).toString('utf8'))
        this.#buffer = this.#buffer.subarray(end + 4)
        this.#state = 'body'
      } else if (this.#state === 'body') {
        const index = this.#buffer.indexOf(this.#delimiter)
        if (index < 0) {
          // Everything except a possible partial delimiter at the end belongs to the part.
          const safe = Math.max(0, this.#buffer.length - this.#delimiter.length)
          this.#appendToPart(this.#buffer.subarray(0, safe))
          this.#buffer = this.#buffer.subarray(safe)
          return
        }
        this.#appendToPart(this.#buffer.subarray(0, index))
        this.#closePart()
        this.#buffer = this.#buffer.subarray(index + this.#delimiter.length)
        this.#state = 'after-delimiter'
      } else {
        return
      }
    }
  }

  #keepTail(length: number): void {
    if (this.#buffer.length > length)
      this.#buffer = this.#buffer.subarray(this.#buffer.length - length)
  }

  #openPart(headerText: string): void {
    const headers = new Map<string, string>()
    for (const line of headerText.split('\r\n')) {
      const colon = line.indexOf(':')
      if (colon > 0)
        headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
    }
    const disposition = headers.get('content-disposition') ?? ''
    const field = /\bname="([^"]*)"/i.exec(disposition)?.[1]
    if (field === undefined) throw badRequest('Malformed multipart body: a part has no name')
    const fileName = /\bfilename="([^"]*)"/i.exec(disposition)?.[1]
    const part: OpenPart = {
      field,
      fileName,
      contentType: headers.get('content-type') ?? 'application/octet-stream',
      size: 0,
      chunks: [],
      fd: undefined,
      path: undefined,
    }
    if (fileName !== undefined) {
      part.path = path.join(this.#limits.directory, `upload-${randomUUID()}`)
      part.fd = fs.openSync(part.path, 'w')
    }
    this.#part = part
  }

  #appendToPart(bytes: Buffer): void {
    const part = this.#part
    if (!part || bytes.length === 0) return
    part.size += bytes.length
    if (part.fd !== undefined) {
      if (part.size > this.#limits.maxFileBytes) {
        throw new HttpError(
          413,
          `The file part '${part.field}' is larger than the ${this.#limits.maxFileBytes}-byte limit`,
        )
      }
      fs.writeSync(part.fd, bytes)
    } else {
      if (part.size > this.#limits.maxFieldBytes) {
        throw new HttpError(
          413,
          `The form field '${part.field}' is larger than the ${this.#limits.maxFieldBytes}-byte limit`,
        )
      }
      part.chunks.push(Buffer.from(bytes))
    }
  }

  #closePartFile(): void {
    if (this.#part?.fd !== undefined) {
      fs.closeSync(this.#part.fd)
      this.#part.fd = undefined
    }
  }

  #closePart(): void {
    const part = this.#part
    if (!part) return
    this.#closePartFile()
    if (part.path !== undefined) {
      const previous = this.#files.get(part.field)
      if (previous) fs.rmSync(previous.path, { force: true })
      this.#files.set(part.field, {
        field: part.field,
        fileName: part.fileName ?? part.field,
        contentType: part.contentType,
        size: part.size,
        path: part.path,
      })
    } else {
      this.#fields.set(part.field, Buffer.concat(part.chunks).toString('utf8'))
    }
    this.#part = undefined
  }
}
