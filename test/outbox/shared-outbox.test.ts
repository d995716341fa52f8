import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import type { OutboxRepair } from '../../src-main/sync/outbox/outbox-repairs.ts'
import {
  collectionNames,
  damageMiddleLeaf,
  writeDamagedOutbox,
  writeOutbox,
} from './support/damaged-outbox.ts'
import { connectionId, useOutboxHarness } from './support/outbox-harness.ts'

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
