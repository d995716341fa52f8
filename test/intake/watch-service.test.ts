import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { WatcherIntake } from '../../src-main/intake/watcher-intake.ts'
import { FolderWatcher } from '../../src-main/intake/watcher.ts'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type { TakenFile, WatchedFolderView } from '../../src-main/ipc/contract.ts'
import type { Services } from '../../src-main/services/index.ts'
import type { OutboxItemView } from '../../src-common/outbox/item-view.ts'
import type { WatchActivity } from '../../src-main/shared/events.ts'
import { silentLogger } from '../../src-main/shared/logger.ts'
import { openAppDatabase } from '../../src-main/store/app-database.ts'
import { WatchRepository } from '../../src-main/store/watch-repository.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { testServices } from '../services/support.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'

/**
 * A watched folder end to end: real services on a temporary data folder, the app database's
 * register, the real outbox, and the simulator over HTTP importing what the folder queued. Files
 * are written the way instruments write them; the test waits for outcomes, never for a time.
 */

const template = 'Kinase IC50 import (CSV)'
const header = 'SMILES,Compound,Concentration (uM),% Inhibition,RLU,Comment'

let sim: VaultSim
let services: Services
let dataDir: string
let dispose: () => Promise<void>
let dispatch: Dispatch
let connectionId: string
let vaultId: number
let protocolId: number
let folder: string
let activities: WatchActivity[]

function start(existingDataDir?: string): void {
  const built = testServices({
    ...(existingDataDir ? { dataDir: existingDataDir } : {}),
    outbox: { retry: { baseDelayMs: 5, maxDelayMs: 40 }, pollMs: 20, progressIntervalMs: 10 },
    watch: { settleMs: 400, scanMs: 150 },
  })
  services = built.services
  dataDir = built.dataDir
  dispose = built.dispose
  dispatch = createDispatcher(createHandlers(services), services.log)
  activities = []
  services.events.on('watch.activity', (activity) => activities.push(activity))
}

beforeAll(async () => {
  sim = await startDemoSnapshotSim({ port: 0 })
  vaultId = sim.cast.vaults.main.id
  protocolId = (
    sim.core.db.prepare("SELECT id FROM protocols WHERE name = 'Kinase IC50 (ADP-Glo)'").get() as {
      id: number
    }
  ).id
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-instrument-'))
  start()
  const added = await call<{ connection: { id: string } }>('connections.add', {
    name: 'Lab',
    baseUrl: sim.baseUrl,
    token: sim.cast.users.writer.tokens[0]!,
    sessionOnly: true,
  })
  connectionId = added.connection.id
  const synced = await services.sync.run(services.runtimes.get(connectionId), {
    vaultIds: [vaultId],
  })
  expect(synced.outcome).toBe('completed')
  services.outbox.start()
  services.watch.start()
}, 120_000)

afterAll(async () => {
  await dispose?.()
  await sim?.stop()
  fs.rmSync(folder, { recursive: true, force: true })
})

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

async function waitUntil(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

function activityFor(name: string, type: WatchActivity['type']): WatchActivity | undefined {
  return activities.find((activity) => activity.fileName === name && activity.type === type)
}

function csvRows(compound: string): string[] {
  return [30, 10, 3, 1, 0.3, 0.1].map(
    (x) => `c1ccc2c(c1)cccc2O,${compound},${x},${(100 / (1 + 1 / x)).toFixed(1)},5000,`,
  )
}

/** Writes a file as a plate reader does: the header, then rows in chunks with short pauses. */
async function writeSlowly(file: string, lines: readonly string[]): Promise<void> {
  const handle = await fs.promises.open(file, 'w')
  for (const line of lines) {
    await handle.write(`${line}\n`)
    await new Promise((resolve) => setTimeout(resolve, 40))
  }
  await handle.close()
}

describe('a watched folder in the services', () => {
  let watched: WatchedFolderView

  it('is refused with a relative path or a protocol the cache lacks, naming what is wrong', async () => {
    const settings = { protocolId, mappingTemplate: template, project: null, run: {} }
    expect(
      await refusal('watch.add', { connectionId, vaultId, folder: 'data/plates', settings }),
    ).toEqual({
      code: 'invalid_argument',
      message: 'A watched folder is given by its full path, not "data/plates".',
    })
    expect(
      await refusal('watch.add', {
        connectionId,
        vaultId,
        folder,
        settings: { ...settings, protocolId: 999_999 },
      }),
    ).toMatchObject({ code: 'not_found', message: expect.stringContaining('Protocol 999999') })
    expect(await call('watch.list', {})).toEqual([])
  })

  it('queues a clean file once it has settled, and the vault imports it', async () => {
    watched = await call<WatchedFolderView>('watch.add', {
      connectionId,
      vaultId,
      folder,
      settings: { protocolId, mappingTemplate: template, project: null, run: { person: 'Ada' } },
    })
    expect(watched).toMatchObject({ folder, enabled: true, held: 0, project: null })
    await waitUntil('the folder is watched', () =>
      activities.some((activity) => activity.type === 'started'),
    )
    const file = path.join(folder, 'plate-001.csv')
    await writeSlowly(file, [header, ...csvRows('WATCH-1')])
    await waitUntil(
      'the file is queued',
      () => activityFor('plate-001.csv', 'queued') !== undefined,
    )
    const queued = activityFor('plate-001.csv', 'queued')!
    expect(queued).toMatchObject({ folderId: watched.id, connectionId, vaultId, folder })

    const itemId = queued.outboxItemId!
    await waitUntil('the import is sent', () => services.outbox.item(itemId).state === 'sent')
    const item = services.outbox.item(itemId)
    expect(item.file).toEqual({ name: 'plate-001.csv', size: fs.statSync(file).size })
    const today = new Date(fs.statSync(file).mtimeMs)
    expect(item.payload).toEqual({
      // The protocol's only project, since the folder names none.
      project: sim.cast.projects.kinase.id,
      mapping_template: template,
      runs: {
        run_date: `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`,
        person: 'Ada',
      },
    })
    sim.clock.advance(10_000)
    await waitUntil('the import is committed', () => !services.outbox.item(itemId).following)
    expect(services.outbox.item(itemId).result).toMatchObject({ state: 'committed' })
    const rows = sim.core.db
      .prepare(
        `SELECT COUNT(*) AS count FROM readout_rows JOIN runs ON runs.id = readout_rows.run_id
         WHERE runs.person = 'Ada' AND runs.protocol_id = ? AND readout_rows.type = 'detail row'`,
      )
      .get(protocolId) as { count: number }
    expect(rows.count).toBe(6)

    const taken = await call<TakenFile[]>('watch.files', { folderId: watched.id })
    expect(taken).toHaveLength(1)
    expect(taken[0]).toMatchObject({
      fileName: 'plate-001.csv',
      outcome: 'queued',
      outboxItemId: itemId,
      heldCopy: null,
      size: fs.statSync(file).size,
    })
    expect(taken[0]!.sha256).toMatch(/^[0-9a-f]{64}$/)
    // The instrument's file is where it was, untouched.
    expect(fs.readFileSync(file, 'utf8')).toBe(`${[header, ...csvRows('WATCH-1')].join('\n')}\n`)
  }, 60_000)

  it('does not take a copy of a taken file again, under any name', async () => {
    const before = services.outbox.list({ limit: 1000 }).length
    fs.copyFileSync(path.join(folder, 'plate-001.csv'), path.join(folder, 'plate-001 (copy).csv'))
    await waitUntil('the copy is recognised', () =>
      Boolean(activityFor('plate-001 (copy).csv', 'already-taken')),
    )
    expect(activityFor('plate-001 (copy).csv', 'already-taken')!.message).toMatch(
      /^plate-001 \(copy\)\.csv has the same contents as plate-001\.csv, queued .* UTC: not taken again\.$/,
    )
    expect(services.outbox.list({ limit: 1000 })).toHaveLength(before)
  })

  it('holds a file with errors for the person, who queues it anyway or discards it', async () => {
    const lacking = 'SMILES,Compound,Concentration (uM),RLU'
    await writeSlowly(path.join(folder, 'plate-002.csv'), [lacking, 'c1ccccc1O,WATCH-2,10,4000'])
    await writeSlowly(path.join(folder, 'plate-003.csv'), [lacking, 'c1ccccc1N,WATCH-3,10,4100'])
    await waitUntil('both files are held', () =>
      ['plate-002.csv', 'plate-003.csv'].every((name) => activityFor(name, 'held')),
    )
    expect(activityFor('plate-002.csv', 'held')!.message).toMatch(
      /^plate-002\.csv is held: .*% Inhibition.*\. Decide in Vault Desk\.$/,
    )
    const held = await call<TakenFile[]>('watch.files', { folderId: watched.id, held: true })
    expect(held.map((file) => file.fileName).sort()).toEqual(['plate-002.csv', 'plate-003.csv'])
    const second = held.find((file) => file.fileName === 'plate-002.csv')!
    // The template maps "% Inhibition" and "Comment"; the file has neither.
    expect(second.report).toMatchObject({ counts: { 'missing-column': 2 } })
    expect(second.report!.problems).toContainEqual(
      expect.objectContaining({
        kind: 'missing-column',
        severity: 'error',
        column: '% Inhibition',
      }),
    )
    expect(fs.existsSync(second.heldCopy!)).toBe(true)
    expect((await call<WatchedFolderView[]>('watch.list', {}))[0]).toMatchObject({ held: 2 })

    // "Queue" checks again: still an error, so it stays held.
    const again = await call<TakenFile>('watch.decide', {
      takenFileId: second.id,
      decision: 'queue',
    })
    expect(again).toMatchObject({ outcome: 'held', outboxItemId: null })
    expect(
      activities.filter((activity) => activity.fileName === 'plate-002.csv').at(-1),
    ).toMatchObject({
      type: 'held',
      message: expect.stringMatching(/^plate-002\.csv is still held: /),
    })

    const anyway = await call<TakenFile>('watch.decide', {
      takenFileId: second.id,
      decision: 'queue-anyway',
    })
    expect(anyway).toMatchObject({ outcome: 'queued', heldCopy: null })
    expect(services.outbox.item(anyway.outboxItemId!).file?.name).toBe('plate-002.csv')
    expect(fs.existsSync(second.heldCopy!)).toBe(false)

    const third = held.find((file) => file.fileName === 'plate-003.csv')!
    const discarded = await call<TakenFile>('watch.decide', {
      takenFileId: third.id,
      decision: 'discard',
    })
    expect(discarded).toMatchObject({ outcome: 'discarded', outboxItemId: null, heldCopy: null })
    expect(fs.existsSync(path.join(folder, 'plate-003.csv'))).toBe(true)
    expect(
      await refusal('watch.decide', { takenFileId: third.id, decision: 'queue-anyway' }),
    ).toMatchObject({ code: 'conflict', message: 'plate-003.csv is not held: it was discarded.' })
    expect(await call<TakenFile[]>('watch.files', { held: true })).toEqual([])
  }, 60_000)

  it('after a restart, takes only what is new', async () => {
    const itemsBefore = services.outbox.list({ limit: 1000, states: ['queued', 'sending', 'sent'] })
    const registerBefore = await call<TakenFile[]>('watch.files', {})
    // Closed as the app closes, keeping the data folder.
    await services.close()
    // Written while nothing watched.
    fs.writeFileSync(
      path.join(folder, 'plate-004.csv'),
      `${[header, ...csvRows('WATCH-4')].join('\n')}\n`,
    )
    start(dataDir)
    services.watch.start()
    await waitUntil('the new file is queued', () => Boolean(activityFor('plate-004.csv', 'queued')))
    const register = await call<TakenFile[]>('watch.files', {})
    expect(register.map((file) => file.fileName)).toEqual([
      'plate-004.csv',
      ...registerBefore.map((file) => file.fileName),
    ])
    expect(
      activities.filter((activity) => activity.type === 'queued' || activity.type === 'held'),
    ).toHaveLength(1)
    const itemsAfter = services.outbox.list({ limit: 1000, states: ['queued', 'sending', 'sent'] })
    expect(itemsAfter).toHaveLength(itemsBefore.length + 1)
  }, 60_000)

  it('stops watching a removed folder and forgets its settings, keeping what it took', async () => {
    const [current] = await call<WatchedFolderView[]>('watch.list', {})
    expect(await call('watch.remove', { id: current!.id })).toEqual({ removed: true })
    await waitUntil('the watcher stopped', () =>
      activities.some((activity) => activity.type === 'stopped'),
    )
    expect(await call('watch.list', {})).toEqual([])
    expect((await call<TakenFile[]>('watch.files', {})).length).toBeGreaterThan(0)
  })
})

describe('a file that vanishes before it is read', () => {
  it('is skipped quietly, recording and queueing nothing', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-vanish-'))
    const db = openAppDatabase(path.join(dir, 'app.db'))
    try {
      const repository = new WatchRepository(db)
      const said: WatchActivity[] = []
      const logged: string[] = []
      const queued: unknown[] = []
      const intake = new WatcherIntake({
        repository,
        outbox: {
          queue: async (request) => {
            queued.push(request)
            return []
          },
          list: () => [],
        },
        // The file is gone before any check: a check would be a defect.
        checker: {
          check: () => Promise.reject(new Error('a vanished file was checked')),
        },
        copiesDir: path.join(dir, 'copies'),
        defaultProject: () => 1,
        report: (activity) => said.push(activity),
        log: { ...silentLogger, info: (message) => logged.push(message) },
      })
      const handling = await intake.take(
        {
          folderId: null,
          connectionId: 'lab',
          vaultId: 1,
          folder: dir,
          protocolId: 1,
          mappingTemplate: template,
          project: 'Kinase Inhibitors',
          run: {},
        },
        { path: path.join(dir, 'gone.csv'), name: 'gone.csv', size: 120, mtimeMs: Date.now() },
        new AbortController().signal,
      )
      expect(handling).toBe('done')
      expect(said).toEqual([])
      expect(queued).toEqual([])
      expect(logged).toEqual(['a watched file vanished before it was read: skipped'])
      expect(repository.takenFiles()).toEqual([])
      expect(fs.readdirSync(path.join(dir, 'copies'))).toEqual([])
    } finally {
      db.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('a file that changes while it is read', () => {
  it('is waited for, said once, and taken once it has settled', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-changing-'))
    const db = openAppDatabase(path.join(dir, 'app.db'))
    try {
      const repository = new WatchRepository(db)
      const said: WatchActivity[] = []
      const queued: string[] = []
      const intake = new WatcherIntake({
        repository,
        outbox: {
          queue: async (request) => {
            queued.push(path.basename((request as { file: string }).file))
            return [{ id: 7 } as OutboxItemView]
          },
          list: () => [],
        },
        checker: {
          check: async (input) => ({
            fileName: path.basename(input.filePath),
            format: 'csv',
            sha256: null,
            encoding: 'utf-8',
            delimiter: ',',
            rows: 1,
            columns: ['SMILES'],
            problems: [],
            counts: {},
            errors: 0,
            warnings: 0,
          }),
        },
        copiesDir: path.join(dir, 'copies'),
        defaultProject: () => 'Kinase Inhibitors',
        report: (activity) => said.push(activity),
        log: silentLogger,
      })
      const folder = {
        folderId: null,
        connectionId: 'lab',
        vaultId: 1,
        folder: dir,
        protocolId: 1,
        mappingTemplate: template,
        project: null,
        run: {},
      }
      const file = path.join(dir, 'growing.csv')
      fs.writeFileSync(file, 'SMILES\nCCO\n')
      const seen = fs.statSync(file)
      // The instrument writes on after the watcher last looked at the file.
      fs.appendFileSync(file, 'CCN\n')
      const stale = { path: file, name: 'growing.csv', size: seen.size, mtimeMs: seen.mtimeMs }
      const signal = new AbortController().signal
      expect(await intake.take(folder, stale, signal)).toBe('retry')
      expect(await intake.take(folder, stale, signal)).toBe('retry')
      expect(said.map((activity) => [activity.type, activity.message])).toEqual([
        ['waiting', 'growing.csv changed while it was read: waiting for it to settle.'],
      ])
      expect(queued).toEqual([])
      expect(fs.readdirSync(path.join(dir, 'copies'))).toEqual([])

      const settled = fs.statSync(file)
      const now = { path: file, name: 'growing.csv', size: settled.size, mtimeMs: settled.mtimeMs }
      expect(await intake.take(folder, now, signal)).toBe('done')
      expect(queued).toEqual(['growing.csv'])
      expect(repository.takenFiles()).toMatchObject([
        { fileName: 'growing.csv', size: settled.size, outcome: 'queued', outboxItemId: 7 },
      ])
    } finally {
      db.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('a file an instrument holds locked while it writes', () => {
  /**
   * Windows instruments open their file exclusively while writing it: opening it to read fails
   * with a sharing violation (EBUSY, or EPERM/EACCES) although its size can be read. A non-root
   * process gets the real thing from the OS with chmod 000 (EACCES); root reads any file, so as
   * root the sharing violation is injected where the intake opens the instrument's file
   * (`fs.promises.copyFile`, its only read of it). Every other file call is the real one.
   */
  const asRoot = process.getuid?.() === 0

  it('is not taken while locked, said once, and taken whole once released', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-locked-'))
    const watched = path.join(dir, 'reader')
    fs.mkdirSync(watched)
    const db = openAppDatabase(path.join(dir, 'app.db'))
    const file = path.join(watched, 'plate-7.csv')
    const locked = new Set<string>()
    const readAttempts: string[] = []
    const realCopyFile = fs.promises.copyFile.bind(fs.promises)
    const copyFile = vi
      .spyOn(fs.promises, 'copyFile')
      .mockImplementation(async (from, to, mode) => {
        if (String(from) === file) readAttempts.push(locked.has(file) ? 'locked' : 'free')
        if (asRoot && locked.has(String(from))) {
          throw Object.assign(new Error(`EBUSY: resource busy or locked, copyfile '${from}'`), {
            code: 'EBUSY',
          })
        }
        return realCopyFile(from, to, mode)
      })
    const lock = () => {
      locked.add(file)
      if (!asRoot) fs.chmodSync(file, 0o000)
    }
    const release = () => {
      if (!asRoot) fs.chmodSync(file, 0o644)
      locked.delete(file)
    }
    const said: WatchActivity[] = []
    const queued: string[] = []
    const intake = new WatcherIntake({
      repository: new WatchRepository(db),
      outbox: {
        queue: async (request) => {
          // What would be sent: the intake's private copy as it is when queued.
          queued.push(fs.readFileSync((request as { file: string }).file, 'utf8'))
          return [{ id: 11 } as OutboxItemView]
        },
        list: () => [],
      },
      checker: {
        check: async (input) => ({
          fileName: path.basename(input.filePath),
          format: 'csv',
          sha256: null,
          encoding: 'utf-8',
          delimiter: ',',
          rows: 6,
          columns: header.split(','),
          problems: [],
          counts: {},
          errors: 0,
          warnings: 0,
        }),
      },
      copiesDir: path.join(dir, 'copies'),
      defaultProject: () => 'Kinase Inhibitors',
      report: (activity) => said.push(activity),
      log: silentLogger,
    })
    const place = {
      folderId: null,
      connectionId: 'lab',
      vaultId: 1,
      folder: watched,
      protocolId: 1,
      mappingTemplate: template,
      project: null,
      run: {},
    }
    const watcher = new FolderWatcher({
      folder: watched,
      settleMs: 150,
      scanMs: 40,
      onFile: (settled, signal) => intake.take(place, settled, signal),
      onNotice: () => {},
      log: silentLogger,
    })
    const rows = csvRows('VD-LOCK')
    const handle = await fs.promises.open(file, 'w')
    try {
      lock()
      watcher.start()
      // The first half is written, then the instrument pauses (longer than the settle time)
      // with the file still open and locked.
      await handle.write(`${header}\n${rows.slice(0, 3).join('\n')}\n`)
      await waitUntil('the locked file was tried twice', () => readAttempts.length >= 2)
      expect(new Set(readAttempts)).toEqual(new Set(['locked']))
      expect(queued).toEqual([])
      expect(said.map((activity) => [activity.type, activity.message])).toEqual([
        [
          'waiting',
          asRoot
            ? 'plate-7.csv is locked by another program: waiting for it to be released.'
            : 'plate-7.csv cannot be opened: another program holds it, or this account may not read it. Trying again.',
        ],
      ])
      // No part of the half-written file is kept (an attempt under way may hold an empty folder).
      const copies = path.join(dir, 'copies')
      const kept = fs
        .readdirSync(copies, { recursive: true, encoding: 'utf8' })
        .filter((name) => fs.statSync(path.join(copies, name), { throwIfNoEntry: false })?.isFile())
      expect(kept).toEqual([])

      await handle.write(`${rows.slice(3).join('\n')}\n`)
      await handle.close()
      release()
      await waitUntil('the released file was queued', () => queued.length > 0)
      expect(queued).toEqual([`${header}\n${rows.join('\n')}\n`])
      expect(said.filter((activity) => activity.type === 'waiting')).toHaveLength(1)
    } finally {
      await watcher.stop()
      await handle.close().catch(() => {})
      release()
      copyFile.mockRestore()
      db.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('a queueing that a crash interrupted', () => {
  it('is finished at the next start: found in the outbox, or queued from its copy', async () => {
    const { services: fresh, dataDir: freshDir, dispose: disposeFresh } = testServices()
    const db = openAppDatabase(path.join(freshDir, 'app.db'))
    try {
      const repository = new WatchRepository(db)
      const place = { connectionId: 'lab', vaultId: 1, folder: path.join(freshDir, 'instrument') }
      const copiesDir = path.join(freshDir, 'watched-files')
      const copy = (name: string, text: string) => {
        const file = path.join(copiesDir, name.replace('.csv', ''), name)
        fs.mkdirSync(path.dirname(file), { recursive: true })
        fs.writeFileSync(file, text)
        return file
      }
      const record = (name: string, heldCopy: string) =>
        repository.record({
          ...place,
          sha256: name.padEnd(64, '0'),
          fileName: name,
          size: fs.statSync(heldCopy).size,
          takenAt: new Date().toISOString(),
          outcome: 'queued',
          outboxItemId: null,
          report: null,
          heldCopy,
        })!
      // Recorded, then the process died before queueing it.
      const unqueuedCopy = copy('before.csv', 'SMILES\nCCO\n')
      const unqueued = record('before.csv', unqueuedCopy)
      // Recorded and queued, then the process died before recording the item.
      const queuedCopy = copy('after.csv', 'SMILES\nCCN\n')
      const queuedRow = record('after.csv', queuedCopy)
      const [item] = await fresh.outbox.queue({
        connectionId: place.connectionId,
        vaultId: place.vaultId,
        operation: 'slurp.create',
        file: queuedCopy,
        payload: { project: 'Kinase Inhibitors' },
      })
      const intake = new WatcherIntake({
        repository,
        outbox: fresh.outbox,
        checker: { check: () => Promise.reject(new Error('recovery checks nothing again')) },
        copiesDir,
        defaultProject: () => 'Kinase Inhibitors',
        report: () => {},
        log: silentLogger,
      })
      await intake.recover({
        ...place,
        folderId: null,
        protocolId: 1,
        mappingTemplate: template,
        project: null,
        run: {},
      })
      expect(repository.takenFile(queuedRow.id)).toMatchObject({ outboxItemId: item!.id })
      const requeued = repository.takenFile(unqueued.id).outboxItemId!
      expect(requeued).not.toBe(item!.id)
      expect(fresh.outbox.item(requeued)).toMatchObject({
        operation: 'slurp.create',
        file: { name: 'before.csv', size: 11 },
      })
      expect(fresh.outbox.list({ limit: 100 })).toHaveLength(2)
      expect(fs.readdirSync(copiesDir)).toEqual([])
    } finally {
      db.close()
      await disposeFresh()
    }
  })
})
