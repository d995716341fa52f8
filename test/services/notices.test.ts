import { spawn, type ChildProcess } from 'node:child_process'
import Database from 'better-sqlite3'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDispatcher } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import { createServices, type Services } from '../../src-main/services/index.ts'
import type { AppNotice } from '../../src-main/shared/app-notices.ts'
import type { AppEvents } from '../../src-main/shared/events.ts'
import { cacheFile } from '../../src-main/store/cache-files.ts'
import { cacheMigrations } from '../../src-main/store/cache-migrations.ts'
import { NewerSchemaError } from '../../src-main/store/migrations.ts'
import { damagePages } from '../store/fixtures/damaged-pages.ts'
import { moleculeRecords } from '../store/fixtures/molecule-records.ts'
import {
  collectionNames,
  damageMiddleLeaf,
  writeDamagedOutbox,
  writeOutbox,
} from '../outbox/support/damaged-outbox.ts'

/**
 * What happened before any window listened, or lasts while it runs, is kept as a notice the
 * window asks for when it starts, until the person dismisses it: through the services and the
 * IPC contract as a window reaches them.
 */

const holderScript = path.resolve(import.meta.dirname, 'lock-holder-child.ts')
const rebuildScript = path.resolve(import.meta.dirname, 'cache-rebuild-child.ts')
const sharedOutboxScript = path.resolve(
  import.meta.dirname,
  '../outbox/support/shared-outbox-child.ts',
)

/** Overwrites a closed cache's header, as a lost write would leave it: SQLite finds it at open. */
function overwriteHeader(file: string): void {
  const handle = fs.openSync(file, 'r+')
  try {
    fs.writeSync(handle, Buffer.alloc(100, 0x5a), 0, 100, 0)
  } finally {
    fs.closeSync(handle)
  }
}
let dataDir: string
const opened: Services[] = []
const children: ChildProcess[] = []

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-notices-'))
})
afterEach(async () => {
  for (const services of opened.splice(0)) await services.close()
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
  fs.rmSync(dataDir, { recursive: true, force: true })
})

function start(host: 'cli' | 'web'): {
  services: Services
  ask: (channel: 'app.notices' | 'app.dismissNotice', args?: object) => Promise<unknown>
  told: AppNotice[][]
} {
  const services = createServices({ host, dataDir, chemWorkers: 1 })
  opened.push(services)
  const told: AppNotice[][] = []
  services.events.on('notices.changed', ({ notices }) => told.push(notices))
  const dispatch = createDispatcher(createHandlers(services), services.log)
  return { services, ask: (channel, args = {}) => dispatch(channel, args), told }
}

async function stop(services: Services): Promise<void> {
  opened.splice(opened.indexOf(services), 1)
  await services.close()
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 300; tries++) {
    if (condition()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`never happened: ${what}`)
}

describe('the notices a window asks for when it starts', () => {
  it('keep an outbox repaired at a start until the person dismisses it, over restarts', async () => {
    const names = collectionNames(240)
    await writeDamagedOutbox(dataDir, names, { connectionId: 'lab', vaultId: 1 })

    // The CLI repairs it (no window anywhere)...
    const cli = start('cli')
    const recovery = cli.services.outbox.recovery!
    expect(recovery.unreadable).toBeGreaterThan(0)
    await stop(cli.services)

    // ...and the window started later is told, with where the damaged copy is and what to do.
    const app = start('cli')
    expect(app.services.outbox.recovery).toBeNull()
    const answer = (await app.ask('app.notices')) as { ok: true; value: AppNotice[] }
    expect(answer.ok).toBe(true)
    expect(answer.value).toHaveLength(1)
    const [notice] = answer.value
    expect(notice).toMatchObject({
      kind: 'outbox-repaired',
      severity: 'error',
      title: 'The outbox was damaged and has been repaired',
      path: recovery.movedTo,
      at: recovery.repairedAt,
    })
    expect(fs.existsSync(notice!.path!)).toBe(true)
    expect(notice!.details).toContain(`${recovery.recovered} items were recovered`)
    expect(notice!.details).toContain(`${recovery.unreadable} could not be read`)
    expect(notice!.details).toContain(recovery.details)
    expect(notice!.advice).toMatch(/do again the work of the items that could not be read/)
    expect(app.services.outbox.list()).toHaveLength(recovery.recovered)

    // Not read yet: still there at the next start.
    await stop(app.services)
    const next = start('cli')
    expect(next.services.notices.list()).toEqual([notice])
    expect(await next.ask('app.dismissNotice', { id: notice!.id })).toEqual({
      ok: true,
      value: { dismissed: true },
    })
    expect(next.told).toEqual([[]])
    expect(next.services.notices.list()).toEqual([])
    // Twice is no error (two windows); a notice never shown is.
    expect(await next.ask('app.dismissNotice', { id: notice!.id })).toMatchObject({ ok: true })
    for (const id of [`outbox-repaired:${recovery.id + 1}`, 'outbox-repaired:x', 'nothing']) {
      expect(await next.ask('app.dismissNotice', { id })).toMatchObject({
        ok: false,
        error: { code: 'not_found', message: expect.stringContaining(id) },
      })
    }
    await stop(next.services)
    expect(start('cli').services.notices.list()).toEqual([])
  }, 120_000)

  it('tell an open window at once when another process repairs the outbox', async () => {
    const names = collectionNames(240)
    await writeOutbox(dataDir, names, { connectionId: 'lab', vaultId: 1 })
    const app = start('web')
    await app.services.outbox.ready()
    expect(app.services.notices.list()).toEqual([])

    // A CLI command finds the outbox damaged and rebuilds it while the window is open.
    damageMiddleLeaf(path.join(dataDir, 'outbox.db'))
    const cli = spawn(process.execPath, [sharedOutboxScript, 'open', dataDir, 'inline'], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, SHARED_OUTBOX_VAULT: '1' },
    })
    children.push(cli)
    const lines = readline.createInterface({ input: cli.stdout! })[Symbol.asyncIterator]()
    expect(JSON.parse((await lines.next()).value as string)).toEqual({ ready: true })
    cli.stdin!.write('go\n')
    const { recovery } = JSON.parse((await lines.next()).value as string) as {
      recovery: { id: number; movedTo: string; unreadable: number }
    }
    expect(recovery.unreadable).toBeGreaterThan(0)
    cli.stdin!.write('close\n')

    // Nothing in the app reads the outbox or its notices: the window is told all the same.
    await until(() => app.told.length > 0, 'the window is told of the repair')
    expect(app.told.at(-1)).toEqual([
      expect.objectContaining({
        id: `outbox-repaired:${recovery.id}`,
        kind: 'outbox-repaired',
        path: recovery.movedTo,
      }),
    ])
    expect(app.services.outbox.recovery).toMatchObject({ movedTo: recovery.movedTo })
  }, 120_000)

  it('name the process that holds the data folder while it does, and go when it lets go', async () => {
    const child = spawn(process.execPath, [holderScript, dataDir, "'vault-desk sync'"], {
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    children.push(child)
    const first = await new Promise<string>((resolve) =>
      child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))),
    )
    expect(JSON.parse(first)).toMatchObject({ held: true, pid: child.pid })

    const app = start('web')
    const [held] = app.services.notices.list()
    expect(held).toMatchObject({
      kind: 'data-folder-held',
      severity: 'warning',
      path: path.join(dataDir, 'vault-desk.lock'),
    })
    expect(held!.details).toContain(`'vault-desk sync' (pid ${child.pid} on ${os.hostname()}`)
    expect(held!.details).toContain(dataDir)
    expect(held!.advice).toMatch(/Let it finish, or close it/)

    // Dismissed, it stays dismissed while the same process holds the folder...
    expect(await app.services.notices.dismiss(held!.id)).toEqual({ dismissed: true })
    expect(app.services.notices.list()).toEqual([])
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    expect(app.services.notices.list()).toEqual([])

    // ...and the folder is taken over once it lets go.
    child.stdin!.end()
    await until(() => {
      const lock = path.join(dataDir, 'vault-desk.lock')
      return fs.existsSync(lock) && fs.readFileSync(lock, 'utf8').includes(`"pid":${process.pid}`)
    }, 'the window takes the folder over')
    expect(app.services.notices.list()).toEqual([])
  }, 60_000)

  it('tell a held folder until it is free, when not dismissed', async () => {
    const child = spawn(process.execPath, [holderScript, dataDir, "'vault-desk send'"], {
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    children.push(child)
    await new Promise((resolve) => child.stdout!.once('data', resolve))
    const app = start('web')
    expect(app.services.notices.list().map((notice) => notice.kind)).toEqual(['data-folder-held'])
    child.stdin!.end()
    await until(() => app.told.some((notices) => notices.length === 0), 'the notice goes')
    expect(app.services.notices.list()).toEqual([])
  }, 60_000)

  it('keep a cache set aside and rebuilt until dismissed, told after the window starts', async () => {
    const baseUrl = 'http://127.0.0.1:9/lab-vault'
    const first = start('cli')
    const { id } = first.services.runtimes.headless(baseUrl, 'token-1')
    first.services.runtimes
      .headless(baseUrl, 'token-1')
      .cache.applyPage('molecules', 1, moleculeRecords(400), { cursor: 'page 1' })
    await stop(first.services)
    damagePages(cacheFile(dataDir, id))

    // Its first page is intact: the damage is found by the check of every page, in a worker,
    // after the start; no window need listen then.
    const app = start('cli')
    const rebuilt: AppEvents['cache.rebuilt'][] = []
    app.services.events.on('cache.rebuilt', (event) => rebuilt.push(event))
    app.services.runtimes.headless(baseUrl, 'token-1')
    expect(app.services.notices.list()).toEqual([])
    await app.services.runtimes.verifyOnce(id)
    expect(rebuilt).toHaveLength(1)
    const [damage] = rebuilt
    expect(damage!.reason).toBe('damaged')

    // The window that starts now asks, and is told.
    const answer = (await app.ask('app.notices')) as { ok: true; value: AppNotice[] }
    expect(answer.ok).toBe(true)
    expect(answer.value).toHaveLength(1)
    const [notice] = answer.value
    expect(notice).toMatchObject({
      kind: 'cache-rebuilt',
      severity: 'warning',
      title: `The local copy of “${baseUrl}” was damaged and is being synced again`,
      path: damage!.movedTo,
    })
    expect(fs.existsSync(notice!.path!)).toBe(true)
    expect(notice!.details).toContain(`SQLite found: ${damage!.details.replace(/\.$/, '')}.`)
    expect(notice!.details).toMatch(/outbox is kept apart and was not touched/)
    expect(notice!.advice).toMatch(/Nothing is lost/)
    expect(app.told).toEqual([[notice]])

    // Kept until dismissed, twice being no error (two windows).
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(app.services.notices.list()).toEqual([notice])
    for (let times = 0; times < 2; times++) {
      expect(await app.ask('app.dismissNotice', { id: notice!.id })).toEqual({
        ok: true,
        value: { dismissed: true },
      })
    }
    expect(app.services.notices.list()).toEqual([])
    expect(app.told.at(-1)).toEqual([])
    expect(await app.ask('app.dismissNotice', { id: 'cache-rebuilt:other.db' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    })
    await stop(app.services)

    // A cache a newer Vault Desk wrote is not damaged: refused untouched, never set aside or told.
    const fresh = new Database(cacheFile(dataDir, id))
    fresh.pragma(`user_version = ${cacheMigrations.length + 3}`)
    fresh.close()
    const later = start('cli')
    expect(() => later.services.runtimes.headless(baseUrl, 'token-1')).toThrow(NewerSchemaError)
    expect(later.services.notices.list()).toEqual([])
    expect(later.told).toEqual([])
  }, 120_000)
})

describe('a cache set aside and rebuilt, kept in the data folder', () => {
  const noticesFolder = () => path.join(dataDir, 'notices')

  /** Makes `services` find the cache of `baseUrl` damaged as it opens and rebuild it. */
  async function rebuildAsDamaged(services: Services, baseUrl: string): Promise<string> {
    const { id } = services.runtimes.headless(baseUrl, 'token-1')
    await services.runtimes.close(id)
    overwriteHeader(cacheFile(dataDir, id))
    const rebuilt: AppEvents['cache.rebuilt'][] = []
    const listening = services.events.on('cache.rebuilt', (event) => rebuilt.push(event))
    services.runtimes.headless(baseUrl, 'token-1')
    listening()
    expect(rebuilt).toHaveLength(1)
    return rebuilt[0]!.movedTo
  }

  it('is told by every process on the folder, later ones too, until dismissed in one', async () => {
    const first = start('cli')
    const firstCopy = await rebuildAsDamaged(first.services, 'http://127.0.0.1:9/first')
    const [kept] = first.services.notices.list()
    expect(kept).toMatchObject({ kind: 'cache-rebuilt', path: firstCopy })
    // The CLI ends before any window asked.
    await stop(first.services)

    // Two processes started after it (the app, a CLI command beside it) both tell it, as it was.
    const app = start('cli')
    const beside = start('cli')
    expect(app.services.notices.list()).toEqual([kept])
    expect(beside.services.notices.list()).toEqual([kept])
    if (process.platform !== 'win32') {
      expect(fs.statSync(noticesFolder()).mode & 0o777).toBe(0o700)
      for (const name of fs.readdirSync(noticesFolder())) {
        expect(fs.statSync(path.join(noticesFolder(), name)).mode & 0o777).toBe(0o600)
      }
    }

    // A rebuild in one while both run is told to the other's window as it happens.
    const secondCopy = await rebuildAsDamaged(beside.services, 'http://127.0.0.1:9/second')
    await until(
      () => app.told.some((notices) => notices.some((notice) => notice.path === secondCopy)),
      'the app is told of the rebuild the other process made',
    )
    const both = app.services.notices.list()
    expect(both.map((notice) => notice.path)).toEqual([firstCopy, secondCopy])
    expect(beside.services.notices.list()).toEqual(both)

    // Dismissed in the app, gone from the other too, which is told; again there is no error.
    expect(await app.ask('app.dismissNotice', { id: kept!.id })).toEqual({
      ok: true,
      value: { dismissed: true },
    })
    expect(app.services.notices.list()).toEqual([both[1]])
    await until(
      () => JSON.stringify(beside.told.at(-1)) === JSON.stringify([both[1]]),
      'the other process is told of the dismissal',
    )
    expect(beside.services.notices.list()).toEqual([both[1]])
    expect(await beside.ask('app.dismissNotice', { id: kept!.id })).toMatchObject({ ok: true })
    expect(await beside.ask('app.dismissNotice', { id: 'cache-rebuilt:none.db' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    })
    await stop(app.services)
    await stop(beside.services)

    // Kept over restarts: the one not dismissed, and only it.
    expect(start('cli').services.notices.list()).toEqual([both[1]])
  }, 120_000)

  it('is told in the window of the app when a CLI process rebuilds a cache', async () => {
    const baseUrl = 'http://127.0.0.1:9/cli'
    const first = start('cli')
    const { id } = first.services.runtimes.headless(baseUrl, 'token-1')
    await stop(first.services)
    overwriteHeader(cacheFile(dataDir, id))

    const app = start('web')
    expect(app.services.notices.list()).toEqual([])
    const child = spawn(process.execPath, [rebuildScript, dataDir, baseUrl, 'token-1'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    children.push(child)
    let printed = ''
    child.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')))
    const code = await new Promise((resolve) => child.once('exit', resolve))
    expect(code).toBe(0)
    const [told] = JSON.parse(printed) as AppNotice[]
    expect(told).toMatchObject({
      kind: 'cache-rebuilt',
      title: `The local copy of “${baseUrl}” was damaged and is being synced again`,
    })
    await until(
      () => app.told.some((notices) => notices.some((notice) => notice.id === told!.id)),
      "the app's window is told of the CLI's rebuild",
    )
    expect(app.services.notices.list()).toEqual([told])
  }, 60_000)

  it('sets a damaged notice file aside with a warning and tells the others', async () => {
    const first = start('cli')
    const copy = await rebuildAsDamaged(first.services, 'http://127.0.0.1:9/lab')
    await stop(first.services)
    const damaged = path.join(noticesFolder(), 'cache-rebuilt%3Ahalf.json')
    fs.writeFileSync(damaged, '{"id": "cache-rebuilt:half", "keptAt": "2026-')
    const foreign = path.join(noticesFolder(), 'other.json')
    fs.writeFileSync(foreign, '[1, 2]')

    const app = start('cli')
    expect(app.services.notices.list().map((notice) => notice.path)).toEqual([copy])
    const names = fs.readdirSync(noticesFolder())
    expect(names.filter((name) => name.endsWith('.json'))).toHaveLength(1)
    for (const stem of ['cache-rebuilt%3Ahalf.json.unreadable-', 'other.json.unreadable-']) {
      expect(names.some((name) => name.startsWith(stem))).toBe(true)
    }
    await stop(app.services)
    const log = fs.readFileSync(path.join(dataDir, 'logs', 'vault-desk.log'), 'utf8')
    const warnings = log
      .split('\n')
      .filter((line) => line.includes('a kept notice could not be read and was set aside'))
    expect(warnings).toHaveLength(2)
    expect(warnings.join('\n')).toContain('it is not JSON')
    expect(warnings.join('\n')).toContain(damaged.replace(/\\/g, '\\\\'))
  }, 60_000)

  it('is told by this process alone when the data folder cannot keep it', async () => {
    fs.mkdirSync(dataDir, { recursive: true })
    fs.writeFileSync(noticesFolder(), 'a file where the folder should be')
    const app = start('cli')
    const copy = await rebuildAsDamaged(app.services, 'http://127.0.0.1:9/lab')
    const [notice] = app.services.notices.list()
    expect(notice).toMatchObject({ kind: 'cache-rebuilt', path: copy })
    expect(app.told).toEqual([[notice]])
    expect(await app.ask('app.dismissNotice', { id: notice!.id })).toMatchObject({ ok: true })
    expect(app.services.notices.list()).toEqual([])
    await stop(app.services)
    const log = fs.readFileSync(path.join(dataDir, 'logs', 'vault-desk.log'), 'utf8')
    expect(log).toContain('a notice cannot be kept in the data folder')
  }, 60_000)
})
