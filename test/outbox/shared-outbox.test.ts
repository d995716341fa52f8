import { spawn, type ChildProcess } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { AppError } from '../../src-main/shared/app-error.ts'
import { EventBus } from '../../src-main/shared/events.ts'
import { silentLogger } from '../../src-main/shared/logger.ts'
import { Outbox } from '../../src-main/sync/outbox/outbox.ts'
import type { OutboxRepair } from '../../src-main/sync/outbox/outbox-repairs.ts'
import {
  collectionNames,
  damageMiddleLeaf,
  damagePage,
  writeDamagedOutbox,
  writeOutbox,
} from './support/damaged-outbox.ts'
import { connectionId, useOutboxHarness, waitUntil } from './support/outbox-harness.ts'

/**
 * The app and CLI commands share one data folder, and so one outbox.db, which a damaged start
 * replaces with a rebuilt file. Real processes on real files: a process that has the outbox open
 * while another rebuilds it writes to the rebuilt file, never to the replaced one; two processes
 * that find the damage at once rebuild it once, and both go on over the same file.
 */

const harness = useOutboxHarness()
const childScript = path.resolve(import.meta.dirname, 'support', 'shared-outbox-child.ts')
const dataDirs: string[] = []
const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  for (const dir of dataDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-shared-outbox-'))
  dataDirs.push(dir)
  return dir
}

const target = () => ({ connectionId, vaultId: harness.vaultId })

interface Child {
  child: ChildProcess
  /** The next JSON line it prints. */
  next(): Promise<unknown>
  tell(line: string): void
  exited: Promise<number | null>
}

/** A child process of the pinned node, once it printed that it is ready. */
async function startChild(args: string[]): Promise<Child> {
  const child = spawn(process.execPath, [childScript, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, SHARED_OUTBOX_VAULT: String(harness.vaultId) },
  })
  children.push(child)
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const lines: string[] = []
  const readers: ((line: string) => void)[] = []
  let text = ''
  // Decoded across chunks: a long line's multi-byte characters may straddle two.
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => {
    text += chunk
    let end
    while ((end = text.indexOf('\n')) >= 0) {
      const line = text.slice(0, end)
      text = text.slice(end + 1)
      const reader = readers.shift()
      if (reader) reader(line)
      else lines.push(line)
    }
  })
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      const line = lines.shift()
      if (line !== undefined) return resolve(JSON.parse(line))
      readers.push((read) => resolve(JSON.parse(read)))
      void exited.then((code) => reject(new Error(`the child exited with ${code}`)))
    })
  const started: Child = {
    child,
    next,
    tell: (line) => child.stdin!.write(`${line}\n`),
    exited,
  }
  expect(await next()).toEqual({ ready: true })
  return started
}

/** The names of the items in an outbox file, by id, read apart from any outbox. */
function namesIn(file: string): string[] {
  const db = new Database(file, { readonly: true })
  try {
    return db
      .prepare("SELECT payload ->> '$.name' FROM items ORDER BY id")
      .pluck()
      .all() as string[]
  } finally {
    db.close()
  }
}

function repairsIn(file: string): number {
  const db = new Database(file, { readonly: true })
  try {
    return db.prepare('SELECT COUNT(*) FROM repairs').pluck().get() as number
  } finally {
    db.close()
  }
}

function soundFile(file: string): boolean {
  const db = new Database(file, { readonly: true })
  try {
    return db.pragma('quick_check', { simple: true }) === 'ok'
  } finally {
    db.close()
  }
}

/** What the repair leaves in the data folder beside the outbox. */
const leftovers = (dir: string) =>
  fs.readdirSync(dir).filter((name) => /recovering|rebuild\.lock/.test(name))
const damagedCopies = (dir: string) =>
  fs.readdirSync(dir).filter((name) => /^outbox\.damaged-.*\.db$/.test(name))

describe('an outbox shared by two processes', () => {
  it('keeps what another process queues while this one rebuilds it: in the rebuilt file', async () => {
    const dir = dataDir()
    const file = path.join(dir, 'outbox.db')
    const names = collectionNames(400)
    await writeOutbox(dir, names, target())
    // A CLI command opens the outbox while it is sound, and keeps it open.
    const other = await startChild(['queue', dir])
    damageMiddleLeaf(file)
    other.tell('go')

    // The app starts, finds the damage, and rebuilds the file while the other process queues.
    const { outbox } = harness.open({ dataDir: dir, tuning: { pageCheck: 'worker' } })
    await outbox.ready()
    const recovery = outbox.recovery!
    expect(recovery).not.toBeNull()
    expect(recovery.unreadable).toBeGreaterThan(0)
    // The other process goes on queueing after the file was replaced, then stops.
    other.tell('stop 5')
    const { queued, refused } = (await other.next()) as { queued: string[]; refused: string[] }
    expect(await other.exited).toBe(0)
    expect(refused).toEqual([])
    expect(queued.length).toBeGreaterThanOrEqual(5)

    // Every item it queued is in the file now at the path, after what was recovered; nothing it
    // wrote went to the replaced file alone.
    expect(soundFile(file)).toBe(true)
    const inFile = namesIn(file)
    const recovered = inFile.filter((name) => names.includes(name))
    // Only the damaged page's items are gone (its own queued after the damage came back).
    expect(recovered.length + recovery.unreadable).toBe(names.length)
    expect(inFile.filter((name) => !names.includes(name))).toEqual(queued)
    // The app reads them too, from the same file.
    expect(
      outbox
        .list()
        .map((item) => item.payload.name as string)
        .filter((name) => !names.includes(name)),
    ).toEqual(queued)
    expect(damagedCopies(dir)).toHaveLength(1)
    expect(leftovers(dir)).toEqual([])
  }, 120_000)

  it('two processes opening one damaged outbox at once: rebuilt once, both on the same file', async () => {
    const dir = dataDir()
    const file = path.join(dir, 'outbox.db')
    const names = collectionNames(2_000)
    await writeDamagedOutbox(dir, names, target())
    // The app (its check in a worker) and a CLI command (its check on its own thread).
    const app = await startChild(['open', dir, 'worker'])
    const cli = await startChild(['open', dir, 'inline'])
    app.tell('go')
    cli.tell('go')
    type Report = { recovery: OutboxRepair; queued: string; names: string[] }
    const reports = (await Promise.all([app.next(), cli.next()])) as Report[]
    app.tell('close')
    cli.tell('close')
    expect(await Promise.all([app.exited, cli.exited])).toEqual([0, 0])

    // One rebuild: one copy aside, one repair recorded, and both tell that one.
    expect(damagedCopies(dir)).toHaveLength(1)
    expect(leftovers(dir)).toEqual([])
    expect(soundFile(file)).toBe(true)
    expect(repairsIn(file)).toBe(1)
    const [first, second] = reports as [Report, Report]
    expect(first.recovery).not.toBeNull()
    expect(second.recovery).toEqual(first.recovery)
    expect(path.basename(first.recovery.movedTo)).toBe(damagedCopies(dir)[0])
    expect(first.recovery.recovered + first.recovery.unreadable).toBe(names.length)

    // Nothing lost: what was recovered, and what each queued after, in the one file.
    const inFile = namesIn(file)
    const recovered = inFile.filter((name) => names.includes(name))
    expect(recovered).toHaveLength(first.recovery.recovered)
    expect(inFile.filter((name) => !names.includes(name)).sort()).toEqual(
      [first.queued, second.queued].sort(),
    )
    for (const [index, report] of reports.entries()) {
      expect({
        process: index === 0 ? 'app' : 'cli',
        recovered: report.names.filter((name) => names.includes(name)),
      }).toEqual({ process: index === 0 ? 'app' : 'cli', recovered })
      expect(report.names).toContain(report.queued)
    }
  }, 180_000)

  it('an idle outbox goes over to a file another process repaired, and says so at once', async () => {
    const dir = dataDir()
    const names = collectionNames(240)
    await writeOutbox(dir, names, target())
    // Opened, never started nor read again: nothing of its own would look at the file.
    const { outbox } = harness.open({ dataDir: dir, tuning: { replacedPollMs: 50 } })
    const told = new Promise<OutboxRepair>((resolve) => outbox.onRepaired(resolve))

    damageMiddleLeaf(path.join(dir, 'outbox.db'))
    const cli = await startChild(['open', dir, 'inline'])
    cli.tell('go')
    const { recovery } = (await cli.next()) as { recovery: OutboxRepair }
    cli.tell('close')
    expect(await cli.exited).toBe(0)

    expect(await told).toEqual(recovery)
    expect(outbox.recovery).toEqual(recovery)
  }, 120_000)

  it('takes over the repair claim of a process that died while repairing', async () => {
    const dir = dataDir()
    const file = path.join(dir, 'outbox.db')
    const names = collectionNames(240)
    await writeDamagedOutbox(dir, names, target())
    // Its claim names a process that no longer runs, and a fresh file it never finished.
    const dead = spawn(process.execPath, ['-e', ''])
    const pid = dead.pid!
    await new Promise((resolve) => dead.once('exit', resolve))
    fs.writeFileSync(
      `${file}.rebuild.lock`,
      JSON.stringify({
        pid,
        host: os.hostname(),
        startedAt: new Date().toISOString(),
        holder: 'a repair of the outbox',
      }),
    )
    fs.writeFileSync(`${file}.recovering`, 'half written')

    const { outbox } = harness.open({ dataDir: dir })
    const recovery = outbox.recovery!
    expect(recovery).not.toBeNull()
    expect(recovery.recovered + recovery.unreadable).toBe(names.length)
    expect(leftovers(dir)).toEqual([])
    expect(soundFile(file)).toBe(true)
    const [added] = await outbox.queue({
      ...target(),
      operation: 'collection.create',
      payload: { name: 'Queued after the takeover' },
    })
    expect(namesIn(file).at(-1)).toBe('Queued after the takeover')
    expect(added!.state).toBe('queued')
  }, 60_000)
})

const sha256 = (file: string) =>
  crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')

/** An outbox with a few items whose header is then lost: SQLite refuses it as it opens it. */
async function outboxDamagedInItsHeader(dir: string): Promise<string> {
  const file = path.join(dir, 'outbox.db')
  await writeOutbox(dir, collectionNames(40), target())
  damagePage(file, 1)
  return file
}

/** Whether `promise` has settled by the time the event loop has run timers for `ms`. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false
  promise.then(
    () => (settled = true),
    () => (settled = true),
  )
  await new Promise((resolve) => setTimeout(resolve, ms))
  return settled
}

describe('a process that finds another repairing the outbox', () => {
  it('in the app, opens at once, says who repairs, and lands what it queues in the rebuilt file', async () => {
    const dir = dataDir()
    const file = await outboxDamagedInItsHeader(dir)
    const asFound = sha256(file)
    // Another real process holds the claim of a repair, as one repairing a large outbox does.
    const holder = await startChild(['hold', dir])
    const waits: string[] = []
    const { outbox } = harness.open({
      dataDir: dir,
      tuning: { pageCheck: 'worker', onRepairWait: (message) => waits.push(message) },
    })
    // The constructor neither repaired nor waited (before, it waited on this thread for the
    // holder): the file is as found, and the outbox is not ready while the claim is held.
    expect(sha256(file)).toBe(asFound)
    expect(outbox.recovery).toBeNull()
    const queued = outbox.queue({
      ...target(),
      operation: 'collection.create',
      payload: { name: 'Queued while another process repairs' },
    })
    await waitUntil('the outbox says whom it waits for', () => waits.length > 0)
    expect(waits).toHaveLength(1)
    expect(waits[0]).toMatch(
      new RegExp(
        `another process is repairing it: a repair of the outbox \\(pid ${holder.child.pid} `,
      ),
    )
    // Reads answer at once, honestly: nothing to show yet, and why.
    expect(() => outbox.list()).toThrow(
      expect.objectContaining({
        code: 'storage',
        message: expect.stringMatching(
          new RegExp(
            `damaged \\(.+\\)\\. Another process is repairing it: .*pid ${holder.child.pid} `,
          ),
        ),
      }) as Error,
    )
    expect(outbox.pendingList(connectionId, harness.vaultId, 'collections')).toEqual([])
    expect(await settledWithin(outbox.ready(), 200)).toBe(false)
    expect(await settledWithin(queued, 0)).toBe(false)

    holder.tell('release')
    expect(await holder.next()).toEqual({ released: true })
    await outbox.ready()
    const [item] = await queued
    expect(item!.state).toBe('queued')
    // The header took every row with it; what was queued meanwhile is in the rebuilt file.
    expect(outbox.recovery).toMatchObject({ recovered: 0 })
    expect(soundFile(file)).toBe(true)
    expect(namesIn(file)).toEqual(['Queued while another process repairs'])
    expect(outbox.list().map((listed) => listed.payload.name)).toEqual([
      'Queued while another process repairs',
    ])
    expect(damagedCopies(dir)).toHaveLength(1)
    expect(sha256(path.join(dir, damagedCopies(dir)[0]!))).toBe(asFound)
    expect(leftovers(dir)).toEqual([])
  }, 120_000)

  it('in the app, sends once the repair is over, never waiting on the write lock it holds', async () => {
    const dir = dataDir()
    const { outbox, events } = harness.open({ dataDir: dir, tuning: { pageCheck: 'worker' } })
    await outbox.ready()
    const [item] = await outbox.queue({
      ...target(),
      operation: 'collection.create',
      payload: { name: 'Sent after the other repair' },
    })
    // A repair elsewhere holds the claim and SQLite's write lock on the file for longer than
    // SQLite's busy timeout (5 s): a write started meanwhile (before: taking the sender's lease)
    // stood this thread still that long, then failed as "cannot save".
    const holder = await startChild(['hold', dir, 'writes'])
    expect(outbox.start()).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 6_000))
    expect(outbox.counts()).toMatchObject({ queued: 1, sending: 0 })
    holder.tell('release')
    expect(await holder.exited).toBe(0)
    await waitUntil('the item is sent', () => outbox.item(item!.id).state === 'sent')
    expect(events.filter((event) => event.name === 'storage.failed')).toEqual([])
    expect(outbox.unwritable).toBeNull()
  }, 60_000)

  it('on its own thread (the CLI), gives up after its wait with the holder named, changing nothing', async () => {
    const dir = dataDir()
    const file = await outboxDamagedInItsHeader(dir)
    const asFound = sha256(file)
    const holder = await startChild(['hold', dir])
    const waits: string[] = []
    const open = () =>
      new Outbox({
        dataDir: dir,
        connection: () => {
          throw new AppError('not_found', 'This outbox is only opened, never sent.')
        },
        connectionName: () => 'Lab vault',
        events: new EventBus(),
        log: silentLogger,
        pageCheck: 'inline',
        repairWaitMs: 300,
        onRepairWait: (message) => waits.push(message),
      })
    expect(open).toThrow(
      expect.objectContaining({
        code: 'storage',
        message: expect.stringMatching(
          new RegExp(
            `still repairing it after 1 s: a repair of the outbox \\(pid ${holder.child.pid} .*Nothing was changed here`,
          ),
        ),
      }) as Error,
    )
    expect(waits).toEqual([expect.stringMatching(/Waiting up to 1 s for it to finish/)])
    expect(sha256(file)).toBe(asFound)
    expect(damagedCopies(dir)).toEqual([])
    holder.tell('release')
    expect(await holder.exited).toBe(0)
  }, 60_000)

  it('in the vault-desk command, says on stderr whom it waits for, then goes on', async () => {
    const dir = dataDir()
    await outboxDamagedInItsHeader(dir)
    const holder = await startChild(['hold', dir])
    const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')
    const { DBUS_SESSION_BUS_ADDRESS: _bus, ...inherited } = process.env
    const cli = spawn(process.execPath, [bin, 'outbox', 'list', '--json'], {
      env: { ...inherited, VAULT_DESK_DATA_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.push(cli)
    let stdout = ''
    let stderr = ''
    cli.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => cli.once('close', resolve))
    await waitUntil('the command says whom it waits for', () => stderr.includes('Waiting'))
    expect(stderr).toMatch(
      new RegExp(
        `^vault-desk: The outbox at .+outbox\\.db is damaged and another process is repairing it: a repair of the outbox \\(pid ${holder.child.pid} .*\\)\\. Waiting up to 10 min for it to finish…$`,
        'm',
      ),
    )
    holder.tell('release')
    expect(await exited).toBe(0)
    // It went on once the claim was let go: the outbox it found damaged, repaired by it.
    expect(JSON.parse(stdout)).toEqual([])
    expect(damagedCopies(dir)).toHaveLength(1)
    expect(leftovers(dir)).toEqual([])
  }, 120_000)
})
