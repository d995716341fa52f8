import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VaultClient } from '../../src-main/api/client.ts'
import { LimiterRegistry } from '../../src-main/api/limiter-registry.ts'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type { AttachmentView } from '../../src-main/services/attachments-service.ts'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { buildDoseResponse, type DoseResponseFixture } from '../sim/domain/assay-fixture.ts'
import { nextEvent, testServices } from './support.ts'

/**
 * Sync finds the files of molecules, runs, protocols and notebook entries without a page being
 * opened: molecules, runs and protocols list theirs in their records (`source_files`, in the lists
 * and the molecules export sync reads too), notebook entries in the vault's entries export
 * (administrators), read again only for entries changed since.
 */

let sim: VaultSim
let admin: VaultClient
let assay: DoseResponseFixture
let vaultId: number
let entryId: number
const sourceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-discovery-sources-'))
const running: { dispose: () => Promise<void> }[] = []

interface Attached {
  id: number
  bytes: Buffer
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

async function attach(
  resourceClass: 'molecule' | 'run' | 'protocol' | 'eln_entry',
  resourceId: number,
  name: string,
  bytes: Buffer,
): Promise<Attached> {
  const source = path.join(sourceDir, name)
  fs.writeFileSync(source, bytes)
  const { id } = await admin.files.attach(vaultId, {
    file: source,
    resource_class: resourceClass,
    resource_id: resourceId,
  })
  return { id, bytes }
}

let moleculeId: number
let moleculeFile: Attached
let runFile: Attached
let protocolFile: Attached
let entryFileInBody: Attached
let entryFileAside: Attached

beforeAll(async () => {
  sim = await startVaultSim({
    port: 0,
    seed: 16,
    exportTiming: { startDelayMs: 0, durationMs: 0 },
  })
  vaultId = sim.cast.vaults.main.id
  admin = new VaultClient({
    baseUrl: sim.baseUrl,
    token: sim.cast.users.admin.tokens[0]!,
    limiters: new LimiterRegistry(),
  })
  assay = buildDoseResponse(sim, {
    projectId: sim.cast.projects.kinase.id,
    name: 'Attachments',
    curves: [],
  })
  runFile = await attach(
    'run',
    assay.runId,
    'plate reader export.csv',
    Buffer.from('well,rlu\nA01,1\n'),
  )
  protocolFile = await attach('protocol', assay.protocolId, 'SOP.txt', Buffer.from('1. Mix.\n'))
  const { id: created } = await admin.molecules.create(vaultId, {
    name: 'VD-files',
    smiles: 'CC(=O)Nc1ccc(O)cc1',
    projects: [sim.cast.projects.kinase.id],
  })
  moleculeId = created
  moleculeFile = await attach('molecule', moleculeId, 'HPLC trace.csv', Buffer.from('t,mAU\n1,2\n'))
  const entry = await admin.elnEntries.create(vaultId, {
    title: 'Amide coupling, batch 4',
    project: sim.cast.projects.kinase.id,
  })
  entryId = Number(entry.id)
  // One file the entry's body shows, one only attached to it: both are the entry's.
  entryFileInBody = await attach('eln_entry', entryId, 'yields.csv', Buffer.from('step,yield\n'))
  await admin.elnEntries.appendToBody(vaultId, entryId, [
    { type: 'file', file: entryFileInBody.id },
  ])
  entryFileAside = await attach('eln_entry', entryId, 'tlc.png', Buffer.from('not really a png'))
})

afterAll(async () => {
  for (const each of running) await each.dispose()
  await sim?.stop()
  fs.rmSync(sourceDir, { recursive: true, force: true })
})

async function connectAndSync(token: string) {
  const started = testServices()
  running.push(started)
  const { services } = started
  const dispatch: Dispatch = createDispatcher(createHandlers(services), services.log)
  const call = async <T>(channel: string, args: unknown): Promise<T> => {
    const result = await dispatch(channel, args)
    if (!result.ok) throw new Error(`${channel} failed: ${result.error.message}`)
    return result.value as T
  }
  const { connection } = await call<{ connection: { id: string } }>('connections.add', {
    name: 'Lab',
    baseUrl: sim.baseUrl,
    token,
    sessionOnly: true,
  })
  const sync = async () => {
    const finished = nextEvent(
      services,
      'sync.changed',
      (state) => state.connectionId === connection.id && !state.running,
    )
    await call('sync.start', { connectionId: connection.id })
    expect(await finished).toMatchObject({ lastOutcome: 'completed' })
  }
  await sync()
  return { services, call, connectionId: connection.id, sync }
}

function statesOf(views: AttachmentView[]) {
  return views.map((view) => [view.fileId, view.name, view.state, view.sha256])
}

describe('sync discovers the files of molecules, runs, protocols and notebook entries', () => {
  it('fetches a molecule’s, a run’s, a protocol’s and an entry’s files with no page opened', async () => {
    const { services, call, connectionId, sync } = await connectAndSync(
      sim.cast.users.admin.tokens[0]!,
    )
    const forRecord = (kind: string, id: number) =>
      call<AttachmentView[]>('attachments.forRecord', { connectionId, vaultId, kind, id })

    // Known from the synced records and the entries export, before anything is fetched.
    const entries = await admin.elnEntries.query(vaultId, {})
    expect(entries.length).toBeGreaterThanOrEqual(1)
    expect(await services.attachments.discoverEntryFiles(connectionId, vaultId)).toBe(
      entries.length,
    )
    expect((await forRecord('eln_entries', entryId)).map((view) => view.fileId)).toEqual(
      [entryFileInBody.id, entryFileAside.id].sort((a, b) => a - b),
    )

    await services.attachments.fetchInBackground(connectionId)
    // Fetched by the background pass: known from the synced records alone, since the molecule's
    // page (which reads it from the vault online) was never opened before.
    expect(statesOf(await forRecord('molecules', moleculeId))).toEqual([
      [moleculeFile.id, 'HPLC trace.csv', 'fetched', sha256(moleculeFile.bytes)],
    ])
    expect(statesOf(await forRecord('runs', assay.runId))).toEqual([
      [runFile.id, 'plate reader export.csv', 'fetched', sha256(runFile.bytes)],
    ])
    expect(statesOf(await forRecord('protocols', assay.protocolId))).toEqual([
      [protocolFile.id, 'SOP.txt', 'fetched', sha256(protocolFile.bytes)],
    ])
    expect(statesOf(await forRecord('eln_entries', entryId))).toEqual(
      [
        [entryFileInBody.id, 'yields.csv', 'fetched', sha256(entryFileInBody.bytes)],
        [entryFileAside.id, 'tlc.png', 'fetched', sha256(entryFileAside.bytes)],
      ].sort((a, b) => Number(a[0]) - Number(b[0])),
    )
    const { path: local } = await call<{ path: string }>('attachments.localPath', {
      connectionId,
      vaultId,
      fileId: entryFileAside.id,
    })
    expect(fs.readFileSync(local).equals(entryFileAside.bytes)).toBe(true)

    // A file attached later, to the run and to the entry, is found at the next pass; the entries
    // export then holds only the entry that changed.
    sim.clock.advance(60 * 60_000)
    const laterRunFile = await attach('run', assay.runId, 'reread.csv', Buffer.from('well\nB02\n'))
    const laterEntryFile = await attach('eln_entry', entryId, 'nmr.txt', Buffer.from('1H NMR\n'))
    await sync()
    expect(await services.attachments.discoverEntryFiles(connectionId, vaultId)).toBe(1)
    await services.attachments.fetchInBackground(connectionId)
    const entryViews = await forRecord('eln_entries', entryId)
    expect(entryViews.find((view) => view.fileId === laterEntryFile.id)).toMatchObject({
      name: 'nmr.txt',
      state: 'fetched',
      sha256: sha256(laterEntryFile.bytes),
    })
    // Files read in earlier passes stay known.
    expect(entryViews.map((view) => view.fileId)).toEqual(
      [entryFileInBody.id, entryFileAside.id, laterEntryFile.id].sort((a, b) => a - b),
    )
    expect(
      (await forRecord('runs', assay.runId)).find((view) => view.fileId === laterRunFile.id),
    ).toMatchObject({ name: 'reread.csv', state: 'fetched', sha256: sha256(laterRunFile.bytes) })
  })

  it('still fetches the run’s files for a key the entries export is refused to', async () => {
    const { services, call, connectionId } = await connectAndSync(sim.cast.users.writer.tokens[0]!)
    expect(await services.attachments.discoverEntryFiles(connectionId, vaultId)).toBeNull()
    await services.attachments.fetchInBackground(connectionId)
    const views = await call<AttachmentView[]>('attachments.forRecord', {
      connectionId,
      vaultId,
      kind: 'runs',
      id: assay.runId,
    })
    expect(views.find((view) => view.fileId === runFile.id)).toMatchObject({
      state: 'fetched',
      sha256: sha256(runFile.bytes),
    })
  })
})
