import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { WatchActivity } from '../../src-main/shared/events.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'

/**
 * `vault-desk watch` as an instrument PC runs it: the real executable as a child process, headless
 * against the simulator over HTTP, stopped by SIGTERM or SIGINT. Its stdout must be JSON lines
 * only, what it queued must reach the vault, and a stop in the middle of a file must lose nothing.
 */

const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')
const header = 'SMILES,Compound,Concentration (uM),% Inhibition,RLU,Comment'
let sim: VaultSim
let dataDir: string
let folder: string
const children: ChildProcess[] = []

beforeAll(async () => {
  sim = await startDemoSnapshotSim({ port: 0 })
})
afterAll(() => sim.stop())
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-cli-watch-'))
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-cli-instrument-'))
})
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
  fs.rmSync(dataDir, { recursive: true, force: true })
  fs.rmSync(folder, { recursive: true, force: true })
})

const env = () => {
  const { DBUS_SESSION_BUS_ADDRESS: _bus, ...inherited } = process.env
  return { ...inherited, VAULT_DESK_DATA_DIR: dataDir, VD_TOKEN: sim.cast.users.writer.tokens[0]! }
}

function watchArgs(extra: string[] = []): string[] {
  return [
    'watch',
    '--base-url',
    sim.baseUrl,
    '--token-env',
    'VD_TOKEN',
    '--vault',
    String(sim.cast.vaults.main.id),
    '--folder',
    folder,
    '--protocol',
    'Kinase IC50 (ADP-Glo)',
    '--mapping-template',
    'Kinase IC50 import (CSV)',
    '--person',
    'Plate reader 2',
    '--settle',
    '1',
    '--json',
    ...extra,
  ]
}

interface Watching {
  child: ChildProcess
  /** Every stdout line so far, parsed (a line that is not JSON fails the test). */
  lines: WatchActivity[]
  stderr: () => string
  exited: Promise<number | null>
}

function startWatching(): Watching {
  const child = spawn(process.execPath, [bin, ...watchArgs()], { env: env() })
  children.push(child)
  const lines: WatchActivity[] = []
  let pending = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8')
    const parts = pending.split('\n')
    pending = parts.pop()!
    for (const part of parts) lines.push(JSON.parse(part) as WatchActivity)
  })
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      expect(pending, 'stdout ends with a whole line').toBe('')
      resolve(code)
    }),
  )
  return { child, lines, stderr: () => stderr, exited }
}

async function waitUntil(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

function line(watching: Watching, type: WatchActivity['type'], fileName?: string) {
  return watching.lines.find(
    (activity) =>
      activity.type === type && (fileName === undefined || activity.fileName === fileName),
  )
}

function csv(compound: string): string {
  const rows = [30, 10, 3, 1].map(
    (x) => `c1ccccc1O,${compound},${x},${(100 / (1 + 1 / x)).toFixed(1)},5000,`,
  )
  return `${[header, ...rows].join('\n')}\n`
}

function slurpsNamed(name: string): number {
  return (
    sim.core.db.prepare('SELECT COUNT(*) AS count FROM slurps WHERE file_name = ?').get(name) as {
      count: number
    }
  ).count
}

describe('vault-desk watch', { timeout: 180_000 }, () => {
  it('queues a settled file, sends it to the vault, and stops cleanly on SIGTERM', async () => {
    const watching = startWatching()
    await waitUntil('it watches', () => Boolean(line(watching, 'started')))
    expect(line(watching, 'started')).toMatchObject({
      folderId: null,
      folder,
      vaultId: sim.cast.vaults.main.id,
      message: `Watching ${folder} for vault ${sim.cast.vaults.main.id}.`,
    })
    // Written in two parts, with a pause, as an instrument appends a plate.
    const file = path.join(folder, 'reader-0001.csv')
    const content = csv('CLI-1')
    fs.writeFileSync(file, content.slice(0, 80))
    await new Promise((resolve) => setTimeout(resolve, 100))
    fs.appendFileSync(file, content.slice(80))
    fs.writeFileSync(path.join(folder, 'method.docx'), 'not data')
    await waitUntil('it queued the file', () =>
      Boolean(line(watching, 'queued', 'reader-0001.csv')),
    )
    await waitUntil('the vault has the import', () => slurpsNamed('reader-0001.csv') === 1)
    await waitUntil('it said what it left alone', () => Boolean(line(watching, 'ignored')))
    const sent = sim.core.db
      .prepare('SELECT contents, options FROM slurps WHERE file_name = ?')
      .get('reader-0001.csv') as { contents: Buffer; options: string }
    expect(Buffer.from(sent.contents).toString('utf8')).toBe(content)
    expect(line(watching, 'ignored', 'method.docx')?.message).toBe(
      'method.docx is not a CSV, SD file or Excel workbook: left alone.',
    )

    watching.child.kill('SIGTERM')
    expect(await watching.exited, watching.stderr()).toBe(0)
    expect(watching.lines.at(-1)).toMatchObject({ type: 'stopped', folder })
    expect(watching.lines.map((activity) => activity.type)).toEqual([
      'started',
      ...watching.lines.slice(1, -1).map((activity) => activity.type),
      'stopped',
    ])
    expect(fs.readFileSync(file, 'utf8')).toBe(content)
  }, 120_000)

  it('stops on SIGINT in the middle of a file without taking it, and takes it at the next run', async () => {
    const first = startWatching()
    await waitUntil('it watches', () => Boolean(line(first, 'started')))
    const file = path.join(folder, 'reader-0002.csv')
    const content = csv('CLI-2')
    fs.writeFileSync(file, content.slice(0, 60))
    first.child.kill('SIGINT')
    expect(await first.exited, first.stderr()).toBe(0)
    expect(first.lines.map((activity) => activity.type)).toEqual(['started', 'stopped'])
    fs.appendFileSync(file, content.slice(60))

    const second = startWatching()
    await waitUntil('the next run queued the file', () =>
      Boolean(line(second, 'queued', 'reader-0002.csv')),
    )
    await waitUntil('the vault has the import', () => slurpsNamed('reader-0002.csv') === 1)
    second.child.kill('SIGINT')
    expect(await second.exited, second.stderr()).toBe(0)

    // A third run finds nothing new: the file is not taken twice.
    const third = startWatching()
    await waitUntil('it watches', () => Boolean(line(third, 'started')))
    fs.writeFileSync(path.join(folder, 'reader-0003.csv'), csv('CLI-3'))
    await waitUntil('the new file is queued', () =>
      Boolean(line(third, 'queued', 'reader-0003.csv')),
    )
    third.child.kill('SIGTERM')
    expect(await third.exited, third.stderr()).toBe(0)
    expect(third.lines.filter((activity) => activity.type === 'queued')).toHaveLength(1)
    expect(slurpsNamed('reader-0002.csv')).toBe(1)
  }, 180_000)

  it('beside the app holding the data folder, queues and leaves the sending to it', async () => {
    // A first run fills the local copy the check reads.
    const first = startWatching()
    await waitUntil('it watches', () => Boolean(line(first, 'started')))
    first.child.kill('SIGTERM')
    expect(await first.exited, first.stderr()).toBe(0)

    const holder = spawn(
      process.execPath,
      [
        path.resolve(import.meta.dirname, '../services/lock-holder-child.ts'),
        dataDir,
        'the Vault Desk app',
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    )
    children.push(holder)
    await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()))
    const beside = startWatching()
    await waitUntil('it watches', () => Boolean(line(beside, 'started')))
    expect(beside.stderr()).toContain('vault-desk watch: queued only: the Vault Desk app (pid')
    fs.writeFileSync(path.join(folder, 'reader-0009.csv'), csv('CLI-9'))
    await waitUntil('it queued the file', () => Boolean(line(beside, 'queued', 'reader-0009.csv')))
    beside.child.kill('SIGTERM')
    expect(await beside.exited, beside.stderr()).toBe(0)
    // Queued in the outbox for the app to send; nothing went to the vault from here.
    expect(slurpsNamed('reader-0009.csv')).toBe(0)
    holder.stdin!.end()
  }, 180_000)

  it('refuses a protocol the vault lacks with exit code 2, naming those it has', async () => {
    const args = watchArgs()
    args[args.indexOf('Kinase IC50 (ADP-Glo)')] = 'Kinase IC99'
    const child = spawn(process.execPath, [bin, ...args], { env: env() })
    children.push(child)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    expect(code, stderr).toBe(2)
    expect(stderr).toMatch(
      /has no protocol "Kinase IC99"\. Its protocols: .*Kinase IC50 \(ADP-Glo\) \(\d+\)/,
    )
    expect(JSON.parse(stdout)).toMatchObject({ error: { code: 'invalid_argument' } })
  }, 120_000)

  it('refuses a missing option or a bad settle time with exit code 2', () => {
    const missing = spawnSync(process.execPath, [bin, 'watch', '--vault', '1', '--json'], {
      encoding: 'utf8',
      env: env(),
    })
    expect(missing.status).toBe(2)
    expect(missing.stderr).toContain(
      'watch needs --vault, --folder, --protocol and --mapping-template.',
    )
    const badSettle = spawnSync(process.execPath, [bin, ...watchArgs(['--settle', 'soon'])], {
      encoding: 'utf8',
      env: env(),
    })
    expect(badSettle.status).toBe(2)
    expect(badSettle.stderr).toContain('--settle takes the seconds a file must stay unchanged')
  })
})
