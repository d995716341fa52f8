import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import type http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { VaultClient } from '../../src-main/api/client.ts'
import { ApiError } from '../../src-main/api/errors.ts'
import { LimiterRegistry } from '../../src-main/api/limiter-registry.ts'
import {
  attachmentFolders,
  fetchAttachment,
  type AttachmentFolders,
} from '../../src-main/sync/attachments/fetcher.ts'
import { loopbackServer, type LoopbackServer } from '../api/support/loopback-server.ts'
import { useSim } from '../api/support/sim.ts'

const harness = useSim({ seed: 'empty' })
let directory: string
let folders: AttachmentFolders

beforeAll(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-attachments-'))
})
afterAll(() => {
  fs.rmSync(directory, { recursive: true, force: true })
})

let round = 0
function freshFolders(): AttachmentFolders {
  folders = attachmentFolders(path.join(directory, `connection-${++round}`))
  return folders
}

const listing = (folder: string) => (fs.existsSync(folder) ? fs.readdirSync(folder) : [])
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

describe('fetching an attachment from the simulator', () => {
  it('streams the contents to a private file, with their size and SHA-256', async () => {
    const client = harness.client('writer')
    const vaultId = harness.vaults.main
    const entry = await client.elnEntries.create(vaultId, {
      title: 'Spectra',
      project: harness.projects.kinase,
      eln_fields: {},
    })
    const bytes = randomBytes(1_500_001)
    const source = path.join(directory, 'spectrum.bin')
    fs.writeFileSync(source, bytes)
    const attached = await client.files.attach(vaultId, {
      file: source,
      filename: 'NMR spectrum.JDX',
      resource_class: 'eln_entry',
      resource_id: entry.id,
    })
    const outcome = await fetchAttachment({
      files: client.files,
      folders: freshFolders(),
      vaultId,
      fileId: attached.id,
    })
    expect(outcome).toMatchObject({
      state: 'fetched',
      name: 'NMR spectrum.JDX',
      declaredSize: bytes.length,
      size: bytes.length,
      sha256: sha256(bytes),
      storedAs: `${vaultId}-${attached.id}.jdx`,
    })
    const stored = fs.readFileSync(outcome.path)
    expect(stored.equals(bytes)).toBe(true)
    if (process.platform !== 'win32') {
      expect(fs.statSync(outcome.path).mode & 0o777).toBe(0o600)
      expect(fs.statSync(folders.contents).mode & 0o777).toBe(0o700)
    }
    expect(listing(folders.partial)).toEqual([])
  })

  it('answers not found for a file the vault does not have, leaving nothing', async () => {
    const error = await fetchAttachment({
      files: harness.client('writer').files,
      folders: freshFolders(),
      vaultId: harness.vaults.main,
      fileId: 987_654,
    }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).kind).toBe('not_found')
    expect(listing(folders.partial)).toEqual([])
    expect(listing(folders.contents)).toEqual([])
  })
})

describe('an answer that is not what the vault promised', () => {
  let server: LoopbackServer
  let answer: (response: http.ServerResponse) => void | Promise<void>

  beforeAll(async () => {
    server = await loopbackServer((_request, response) => answer(response))
  })
  afterAll(() => server.close())
  afterEach(() => {
    answer = (response) => {
      response.end()
    }
  })

  const client = () =>
    new VaultClient({
      baseUrl: server.url,
      token: 'test-token-0000',
      limiters: new LimiterRegistry(),
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
    })

  function fileAnswer(contents: string, size: number): string {
    return `{"id":5,"class":"uploaded file","name":"plate.csv","mime_type":{"string":"text/csv"},"size":${size},"contents":"${contents}"}`
  }

  it('sets a file of the wrong size aside and reports it', async () => {
    const bytes = randomBytes(90)
    answer = (response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' })
      response.end(fileAnswer(bytes.toString('base64'), 100))
    }
    const outcome = await fetchAttachment({
      files: client().files,
      folders: freshFolders(),
      vaultId: 1,
      fileId: 5,
    })
    expect(outcome).toMatchObject({ state: 'quarantined', size: 90, declaredSize: 100 })
    expect(outcome.state === 'quarantined' && outcome.reason).toBe(
      'the vault gave its size as 100 bytes, but 90 bytes arrived',
    )
    expect(listing(folders.contents)).toEqual([])
    expect(listing(folders.partial)).toEqual([])
    expect(fs.readFileSync(outcome.path).equals(bytes)).toBe(true)
    expect(path.dirname(outcome.path)).toBe(folders.quarantine)
  })

  it('sets aside an answer that ends early, inside its contents', async () => {
    const base64 = randomBytes(3000).toString('base64')
    answer = (response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' })
      response.end(fileAnswer(base64, 3000).slice(0, -1500))
    }
    const outcome = await fetchAttachment({
      files: client().files,
      folders: freshFolders(),
      vaultId: 1,
      fileId: 5,
    })
    expect(outcome.state).toBe('quarantined')
    expect(outcome.state === 'quarantined' && outcome.reason).toMatch(
      /^the vault's answer ended early: the answer ended inside the contents/,
    )
    expect(listing(folders.contents)).toEqual([])
    expect(listing(folders.quarantine)).toHaveLength(1)
  })

  it('sets aside an answer that is not a file, naming what is wrong', async () => {
    answer = (response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' })
      response.end(fileAnswer('QUJD*RA==', 4))
    }
    const outcome = await fetchAttachment({
      files: client().files,
      folders: freshFolders(),
      vaultId: 1,
      fileId: 5,
    })
    expect(outcome.state === 'quarantined' && outcome.reason).toMatch(/"\*", not base64/)
    expect(listing(folders.contents)).toEqual([])
  })

  it('leaves no partial file when cancelled midway', async () => {
    let hold: () => void = () => {}
    answer = (response) =>
      new Promise<void>((resolve) => {
        hold = resolve
        response.writeHead(200, { 'Content-Type': 'application/json' })
        // Half the contents, then nothing until the test lets go.
        response.write(fileAnswer(randomBytes(600_000).toString('base64'), 1_200_000).slice(0, -2))
      }).then(() => {
        response.end()
      })
    const controller = new AbortController()
    const fetching = fetchAttachment({
      files: client().files,
      folders: freshFolders(),
      vaultId: 1,
      fileId: 5,
      signal: controller.signal,
    }).catch((caught: unknown) => caught)
    await waitFor(() => listing(folders.partial).length === 1)
    const partial = path.join(folders.partial, listing(folders.partial)[0]!)
    await waitFor(() => fs.statSync(partial).size > 0)
    controller.abort()
    const error = await fetching
    hold()
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).kind).toBe('cancelled')
    expect(listing(folders.partial)).toEqual([])
    expect(listing(folders.contents)).toEqual([])
    expect(listing(folders.quarantine)).toEqual([])
  })

  it('leaves no partial file when the connection breaks', async () => {
    answer = (response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' })
      response.write(fileAnswer(randomBytes(300_000).toString('base64'), 300_000).slice(0, -1000))
      setTimeout(() => response.socket?.destroy(), 20)
    }
    const error = await fetchAttachment({
      files: client().files,
      folders: freshFolders(),
      vaultId: 1,
      fileId: 5,
    }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).kind).toBe('network')
    expect(listing(folders.partial)).toEqual([])
    expect(listing(folders.contents)).toEqual([])
  })
})

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 500) throw new Error('the condition never held')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
