import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  loopbackServer,
  sendJson,
  type LoopbackServer,
  type SeenRequest,
} from '../../test/api/support/loopback-server.ts'
import { VaultClient } from './client.ts'
import { ApiError } from './errors.ts'
import { LimiterRegistry } from './limiter-registry.ts'
import type { UploadProgress } from './multipart.ts'

let directory: string
let server: LoopbackServer

beforeEach(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-upload-'))
  server = await loopbackServer((_request, response) =>
    sendJson(response, 200, { id: '41', name: 'spectrum.csv' }),
  )
})

afterEach(async () => {
  await server.close()
  fs.rmSync(directory, { recursive: true, force: true })
})

function clientFor(api: LoopbackServer) {
  return new VaultClient({
    baseUrl: api.url,
    token: 'upload-token-1',
    limiters: new LimiterRegistry(),
  })
}

function formOf(request: SeenRequest): Promise<FormData> {
  return new Response(request.body, {
    headers: { 'content-type': String(request.headers['content-type']) },
  }).formData()
}

describe('multipart uploads', () => {
  it('streams a file from disk with its fields, reporting progress chunk by chunk', async () => {
    const file = path.join(directory, 'spectrum.csv')
    const content = randomBytes(1024 * 1024 + 17)
    fs.writeFileSync(file, content)
    const progress: UploadProgress[] = []
    const answer = await clientFor(server).files.attach(
      3,
      { file, resource_class: 'run', resource_id: 12 },
      { onProgress: (step) => progress.push(step) },
    )
    expect(answer).toEqual({ id: 41, name: 'spectrum.csv' })
    const [request] = server.requests
    expect(request?.url).toBe('/api/v1/vaults/3/files')
    expect(request?.headers['transfer-encoding']).toBeUndefined()
    expect(Number(request?.headers['content-length'])).toBe(request?.body.length)
    const form = await formOf(request!)
    expect(form.get('resource_class')).toBe('run')
    expect(form.get('resource_id')).toBe('12')
    const part = form.get('file') as File
    expect(part.name).toBe('spectrum.csv')
    expect(part.type).toBe('text/csv')
    expect(Buffer.from(await part.arrayBuffer()).equals(content)).toBe(true)
    expect(progress.length).toBeGreaterThan(16)
    expect(progress.at(-1)).toEqual({
      sentBytes: request?.body.length,
      totalBytes: request?.body.length,
    })
    for (let index = 1; index < progress.length; index++) {
      expect(progress[index]!.sentBytes).toBeGreaterThan(progress[index - 1]!.sentBytes)
    }
  })

  it('sends a slurp with its metadata as a JSON part', async () => {
    const file = path.join(directory, 'compounds.sdf')
    fs.writeFileSync(file, 'CCO\n$$$$\n')
    await clientFor(server).slurps.create(3, {
      file,
      metadata: { project: 'Kinase', mapping_template: 7, autoreject: true },
    })
    const form = await formOf(server.requests[0]!)
    expect(JSON.parse(String(form.get('json')))).toEqual({
      project: 'Kinase',
      mapping_template: 7,
      autoreject: true,
    })
    expect(await (form.get('file') as File).text()).toBe('CCO\n$$$$\n')
  })

  it('uploads an empty file', async () => {
    const file = path.join(directory, 'empty.txt')
    fs.writeFileSync(file, '')
    await clientFor(server).files.attach(3, { file, resource_class: 'molecule', resource_id: 1 })
    const part = (await formOf(server.requests[0]!)).get('file') as File
    expect(part.size).toBe(0)
  })

  it('refuses a file that cannot be read before sending anything', async () => {
    const error = await clientFor(server)
      .files.attach(3, {
        file: path.join(directory, 'missing.csv'),
        resource_class: 'run',
        resource_id: 1,
      })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).kind).toBe('validation')
    expect((error as ApiError).message).toContain('files.attach: cannot read the file to upload')
    expect((error as ApiError).message).toContain('ENOENT')
    expect(server.requests).toHaveLength(0)
  })
})
