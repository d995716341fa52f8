import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { deflateSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VaultClient } from '../../src-main/api/client.ts'
import { LimiterRegistry } from '../../src-main/api/limiter-registry.ts'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type { AttachmentView } from '../../src-main/services/attachments-service.ts'
import type { Services } from '../../src-main/services/index.ts'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { smallPdf } from '../support/small-pdf.ts'
import { nextEvent, testServices } from './support.ts'

let sim: VaultSim
let services: Services
let dataDir: string
let dispose: () => Promise<void>
let dispatch: Dispatch
let connectionId: string
let vaultId: number
let moleculeId: number
const sourceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-attachment-sources-'))

/** A real PNG (a 2×1 image, red and blue), made by hand so that Chromium and any viewer read it. */
function png(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([length, body, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(2, 0)
  header.writeUInt32BE(1, 4)
  header.set([8, 2, 0, 0, 0], 8)
  const pixels = Buffer.from([0, 255, 0, 0, 0, 0, 255])
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff
  for (const byte of bytes) {
    crc ^= byte
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1))
  }
  return (crc ^ 0xffffffff) >>> 0
}

const image = png()
const table = 'compound,"IC50, nM",note\r\nVD-1,12.5,"said ""potent"""\r\nVD-2,,µM → nM\r\n'
const spectrum = randomBytes(300_000)
const files: { name: string; bytes: Buffer; id: number }[] = [
  { name: 'plate.png', bytes: image, id: 0 },
  { name: 'ic50.csv', bytes: Buffer.from(table), id: 0 },
  { name: 'spectrum.jdx', bytes: spectrum, id: 0 },
]

async function call<T>(channel: string, args: unknown): Promise<T> {
  const result = await dispatch(channel, args)
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`)
  return result.value as T
}

async function refusal(channel: string, args: unknown): Promise<{ code: string; message: string }> {
  const result = await dispatch(channel, args)
  if (result.ok) throw new Error(`${channel} was expected to fail`)
  return result.error
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const ids = () => files.map((file) => file.id)

beforeAll(async () => {
  sim = await startVaultSim({ port: 0, seed: 'empty' })
  vaultId = sim.cast.vaults.main.id
  const token = sim.cast.users.admin.tokens[0]!
  const client = new VaultClient({ baseUrl: sim.baseUrl, token, limiters: new LimiterRegistry() })
  const { id: created } = await client.molecules.create(vaultId, {
    name: 'VD-7',
    smiles: 'CC(=O)Oc1ccccc1C(=O)O',
    projects: [sim.cast.projects.kinase.id],
  })
  moleculeId = created

  ;({ services, dataDir, dispose } = testServices())
  dispatch = createDispatcher(createHandlers(services), services.log)
  const added = await call<{ connection: { id: string } }>('connections.add', {
    name: 'Lab',
    baseUrl: sim.baseUrl,
    token,
    sessionOnly: true,
  })
  connectionId = added.connection.id
  const finished = nextEvent(
    services,
    'sync.changed',
    (state) => state.connectionId === connectionId && !state.running,
  )
  await call('sync.start', { connectionId })
  expect(await finished).toMatchObject({ lastOutcome: 'completed' })
  // Files attached after the molecule was synced: its record lists them (`source_files`), but
  // attaching leaves its `modified_at`, so only its page, read online, learns of them (files
  // attached before a sync are found by it: attachment-discovery.test.ts).
  for (const file of files) {
    const source = path.join(sourceDir, file.name)
    fs.writeFileSync(source, file.bytes)
    file.id = (
      await client.files.attach(vaultId, {
        file: source,
        resource_class: 'molecule',
        resource_id: created,
      })
    ).id
  }
})

afterAll(async () => {
  await dispose?.()
  await sim?.stop()
  fs.rmSync(sourceDir, { recursive: true, force: true })
})

describe('attachments offline through the contract', () => {
  it('lists a record’s files as not fetched until sync fetches them within the budget', async () => {
    expect(await call('attachments.states', { connectionId, vaultId, fileIds: ids() })).toEqual(
      files.map((file) => expect.objectContaining({ fileId: file.id, name: null })),
    )
    // The molecule's page reads the files it lists: sync knows them from then on.
    const before = await call<AttachmentView[]>('attachments.forRecord', {
      connectionId,
      vaultId,
      kind: 'molecules',
      id: moleculeId,
    })
    expect(before.map((view) => [view.fileId, view.name])).toEqual(
      files.map((file) => [file.id, file.name]),
    )
    expect(before.map((view) => view.state)).toEqual(['not_fetched', 'not_fetched', 'not_fetched'])
    expect(await call('attachments.budget', { connectionId })).toEqual({
      budgetBytes: 1024 ** 3,
      usedBytes: 0,
      fetchedFiles: 0,
    })

    // Room for the image and the table, not for the spectrum.
    await call('attachments.setBudget', { connectionId, budgetBytes: 100_000 })
    await services.attachments.fetchInBackground(connectionId)
    const after = await call<AttachmentView[]>('attachments.states', {
      connectionId,
      vaultId,
      fileIds: ids(),
    })
    expect(after[0]).toMatchObject({
      state: 'fetched',
      name: 'plate.png',
      mimeType: 'image/png',
      size: image.length,
      sha256: sha256(image),
      previewable: true,
    })
    expect(after[1]).toMatchObject({
      state: 'fetched',
      size: Buffer.byteLength(table),
      previewable: true,
    })
    expect(after[1]!.sha256).toBe(sha256(Buffer.from(table)))
    expect(after[2]).toMatchObject({ state: 'over_budget', name: 'spectrum.jdx', size: 300_000 })
    expect(after[2]!.reason).toMatch(/more than the whole attachment budget/)
    const contents = path.join(dataDir, 'attachments', connectionId, 'contents')
    expect(fs.readdirSync(contents).sort()).toEqual(
      [`${vaultId}-${files[0]!.id}.png`, `${vaultId}-${files[1]!.id}.csv`].sort(),
    )
  })

  it('previews an image as a data: URL and a CSV as a table, as the file holds them', async () => {
    const picture = await call<{ kind: string; dataUrl: string }>('attachments.preview', {
      connectionId,
      vaultId,
      fileId: files[0]!.id,
    })
    expect(picture).toEqual({
      kind: 'image',
      mimeType: 'image/png',
      dataUrl: `data:image/png;base64,${image.toString('base64')}`,
    })
    expect(
      await call('attachments.preview', { connectionId, vaultId, fileId: files[1]!.id }),
    ).toEqual({
      kind: 'table',
      rows: [
        ['compound', 'IC50, nM', 'note'],
        ['VD-1', '12.5', 'said "potent"'],
        ['VD-2', '', 'µM → nM'],
      ],
      truncated: false,
    })
  })

  it('fetches one file now beyond the budget, and a smaller budget removes it first', async () => {
    const fetched = await call<AttachmentView>('attachments.fetchNow', {
      connectionId,
      vaultId,
      fileId: files[2]!.id,
      beyondBudget: true,
    })
    expect(fetched).toMatchObject({ state: 'fetched', size: 300_000, sha256: sha256(spectrum) })
    const { path: local } = await call<{ path: string }>('attachments.localPath', {
      connectionId,
      vaultId,
      fileId: files[2]!.id,
    })
    expect(fs.readFileSync(local).equals(spectrum)).toBe(true)
    expect(await call('attachments.budget', { connectionId })).toMatchObject({
      usedBytes: image.length + Buffer.byteLength(table) + 300_000,
      fetchedFiles: 3,
    })
    // A spectrum cannot be previewed; the host without a desktop cannot open files.
    expect(
      await refusal('attachments.preview', { connectionId, vaultId, fileId: files[2]!.id }),
    ).toMatchObject({ code: 'invalid_argument', message: expect.stringMatching(/open it instead/) })
    expect(
      await refusal('attachments.open', { connectionId, vaultId, fileId: files[2]!.id }),
    ).toMatchObject({ code: 'invalid_argument' })

    const evicted = nextEvent(services, 'attachments.changed', (change) =>
      change.fileIds.includes(files[2]!.id),
    )
    await call('attachments.setBudget', { connectionId, budgetBytes: 100_000 })
    expect(await evicted).toEqual({ connectionId, vaultId, fileIds: [files[2]!.id] })
    const states = await call<AttachmentView[]>('attachments.states', {
      connectionId,
      vaultId,
      fileIds: ids(),
    })
    expect(states.map((view) => view.state)).toEqual(['fetched', 'fetched', 'over_budget'])
    expect(states[2]!.reason).toBe('Removed to keep within the attachment budget.')
    expect(fs.existsSync(local)).toBe(false)
  })

  it('removes a file on request and refuses bad arguments clearly', async () => {
    const changed = nextEvent(services, 'attachments.changed')
    const removed = await call<AttachmentView>('attachments.remove', {
      connectionId,
      vaultId,
      fileId: files[0]!.id,
    })
    expect(await changed).toEqual({ connectionId, vaultId, fileIds: [files[0]!.id] })
    expect(removed).toMatchObject({ state: 'over_budget', reason: 'Removed on request.' })
    expect(
      await refusal('attachments.preview', { connectionId, vaultId, fileId: files[0]!.id }),
    ).toMatchObject({ code: 'not_found', message: expect.stringMatching(/fetch it first/) })
    expect(await refusal('attachments.setBudget', { connectionId, budgetBytes: -1 })).toMatchObject(
      { code: 'invalid_argument' },
    )
    expect(
      await refusal('attachments.states', { connectionId, vaultId, fileIds: [0] }),
    ).toMatchObject({ code: 'invalid_argument' })
  })
})

describe('PDF previews', () => {
  it('gives a PDF whole for the window’s viewer and names a false one', async () => {
    const client = new VaultClient({
      baseUrl: sim.baseUrl,
      token: sim.cast.users.admin.tokens[0]!,
      limiters: new LimiterRegistry(),
    })
    const report = smallPdf('Stability report', ['Day 0', 'Day 28'])
    const attachPdf = async (name: string, bytes: Buffer) => {
      const source = path.join(sourceDir, name)
      fs.writeFileSync(source, bytes)
      return (
        await client.files.attach(vaultId, {
          file: source,
          resource_class: 'molecule',
          resource_id: moleculeId,
        })
      ).id
    }
    const reportId = await attachPdf('stability.pdf', report)
    const falseId = await attachPdf('false.pdf', Buffer.from('PK\u0003\u0004 a zip, not a PDF'))
    await call('attachments.forRecord', {
      connectionId,
      vaultId,
      kind: 'molecules',
      id: moleculeId,
    })
    for (const fileId of [reportId, falseId]) {
      expect(
        await call<AttachmentView>('attachments.fetchNow', {
          connectionId,
          vaultId,
          fileId,
          beyondBudget: true,
        }),
      ).toMatchObject({ state: 'fetched', mimeType: 'application/pdf', previewable: true })
    }
    const preview = await call<{ kind: string; mimeType: string; base64: string }>(
      'attachments.preview',
      { connectionId, vaultId, fileId: reportId },
    )
    expect(preview.kind).toBe('pdf')
    expect(preview.mimeType).toBe('application/pdf')
    expect(Buffer.from(preview.base64, 'base64').equals(report)).toBe(true)
    expect(
      await refusal('attachments.preview', { connectionId, vaultId, fileId: falseId }),
    ).toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/^false\.pdf is not a PDF document/),
    })
  })
})

describe('attachments fetched by sync', () => {
  it('fetches the files of known records after each completed pass, in the background', async () => {
    const background = testServices({ background: true })
    try {
      const backgroundDispatch = createDispatcher(
        createHandlers(background.services),
        background.services.log,
      )
      const ask = async <T>(channel: string, args: unknown): Promise<T> => {
        const result = await backgroundDispatch(channel, args)
        if (!result.ok) throw new Error(`${channel} failed: ${result.error.message}`)
        return result.value as T
      }
      const synced = (id: string) =>
        nextEvent(
          background.services,
          'sync.changed',
          (state) => state.connectionId === id && !state.running && state.lastOutcome !== null,
        )
      const added = await ask<{ connection: { id: string } }>('connections.add', {
        name: 'Lab',
        baseUrl: sim.baseUrl,
        token: sim.cast.users.admin.tokens[0]!,
        sessionOnly: true,
      })
      const id = added.connection.id
      // What a record page showing the files reads on each event: its states at that moment.
      const seen: { fileIds: number[]; states: AttachmentView['state'][] }[] = []
      const stopSeeing = background.services.events.on('attachments.changed', (change) => {
        if (change.connectionId !== id || change.vaultId !== vaultId) return
        const states = background.services.attachments.states(id, vaultId, change.fileIds)
        seen.push({ fileIds: change.fileIds, states: states.map((view) => view.state) })
      })
      const first = synced(id)
      await ask('sync.start', { connectionId: id })
      await first
      await ask('attachments.forRecord', {
        connectionId: id,
        vaultId,
        kind: 'molecules',
        id: moleculeId,
      })
      const second = synced(id)
      await ask('sync.start', { connectionId: id })
      expect(await second).toMatchObject({ lastOutcome: 'completed' })
      let views: AttachmentView[] = []
      for (let tries = 0; tries < 300; tries++) {
        views = await ask<AttachmentView[]>('attachments.states', {
          connectionId: id,
          vaultId,
          fileIds: ids(),
        })
        if (views.every((view) => view.state === 'fetched')) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(views.map((view) => [view.state, view.sha256])).toEqual(
        files.map((file) => ['fetched', sha256(file.bytes)]),
      )
      stopSeeing()
      // Each file was announced as its fetch began (fetching) and once it ended (fetched).
      for (const file of files) {
        expect(
          seen.filter((change) => change.fileIds.includes(file.id)).map((c) => c.states),
          file.name,
        ).toEqual([['fetching'], ['fetched']])
      }

      // Removed with its cache, the connection's attachments go too.
      const folder = path.join(background.dataDir, 'attachments', id)
      expect(fs.existsSync(folder)).toBe(true)
      const removed = nextEvent(background.services, 'connections.changed')
      await ask('connections.remove', { connectionId: id, deleteCache: true })
      await removed
      for (let tries = 0; tries < 100 && fs.existsSync(folder); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      expect(fs.existsSync(folder)).toBe(false)
    } finally {
      await background.dispose()
    }
  })
})
