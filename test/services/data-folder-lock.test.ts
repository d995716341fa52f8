import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  bootTimeMs,
  dataFolderLockName,
  processStartMs,
  describeHolder,
  tryTakeDataFolderLock,
} from '../../src-main/shared/data-folder-lock.ts'
import { createServices } from '../../src-main/services/index.ts'

const holderScript = path.resolve(import.meta.dirname, 'lock-holder-child.ts')
let dataDir: string
const children: ChildProcess[] = []

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-lock-'))
})
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
  fs.rmSync(dataDir, { recursive: true, force: true })
})

interface Answer {
  held: boolean
  pid?: number
  holder?: { pid: number; host: string; holder: string } | null
}

/** A child process of the pinned node that tries the lock; resolves with its first line. */
function startHolder(name = 'a test holder'): Promise<{ child: ChildProcess; answer: Answer }> {
  const child = spawn(process.execPath, [holderScript, dataDir, name], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  children.push(child)
  return new Promise((resolve, reject) => {
    let text = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8')
      const line = text.split('\n')[0]
      if (text.includes('\n')) resolve({ child, answer: JSON.parse(line!) as Answer })
    })
    child.once('exit', (code) => {
      if (!text.includes('\n')) reject(new Error(`the holder exited with ${code} before answering`))
    })
  })
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)))
}

/** The pids holding the outbox's sender lease (outbox.db), read as another process would. */
function senderPids(): number[] {
  const file = path.join(dataDir, 'outbox.db')
  if (!fs.existsSync(file)) return []
  const db = new Database(file, { readonly: true })
  try {
    return db.prepare('SELECT pid FROM sender_lease').pluck().all() as number[]
  } finally {
    db.close()
  }
}

const lockFile = () => path.join(dataDir, dataFolderLockName)

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if (condition()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`never happened: ${what}`)
}

describe('the data folder lock', () => {
  it('lets one of several processes starting at once hold it, and names it to the others', async () => {
    const started = await Promise.all(Array.from({ length: 6 }, () => startHolder()))
    const holders = started.filter(({ answer }) => answer.held)
    expect(holders).toHaveLength(1)
    const holderPid = holders[0]!.answer.pid
    for (const { answer } of started.filter(({ answer }) => !answer.held)) {
      expect(answer.holder).toMatchObject({ pid: holderPid, host: os.hostname() })
    }
    const file = JSON.parse(fs.readFileSync(lockFile(), 'utf8')) as { pid: number }
    expect(file.pid).toBe(holderPid)
    if (process.platform !== 'win32') expect(fs.statSync(lockFile()).mode & 0o777).toBe(0o600)
  })

  it('is released when its holder ends, and taken by the next', async () => {
    const first = await startHolder()
    expect(first.answer.held).toBe(true)
    expect((await startHolder()).answer.held).toBe(false)
    first.child.stdin!.end()
    expect(await exited(first.child)).toBe(0)
    expect(fs.existsSync(lockFile())).toBe(false)
    expect((await startHolder()).answer.held).toBe(true)
  })

  it("takes over a killed holder's lock, once among several trying", async () => {
    const killed = await startHolder()
    expect(killed.answer.held).toBe(true)
    killed.child.kill('SIGKILL')
    await exited(killed.child)
    // The dead holder's file is still there: only its pid tells it is stale.
    expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8'))).toMatchObject({
      pid: killed.child.pid,
    })
    const next = await Promise.all(Array.from({ length: 4 }, () => startHolder()))
    const winners = next.filter(({ answer }) => answer.held)
    expect(winners).toHaveLength(1)
    expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid).toBe(winners[0]!.answer.pid)
  })

  it('counts a holder on another host as alive and names the host, and a damaged file as held while it is fresh', () => {
    const other = {
      pid: 1,
      host: 'lab-07.example',
      startedAt: '2026-11-29T09:14:00.000Z',
      holder: 'the Vault Desk app',
    }
    fs.writeFileSync(lockFile(), JSON.stringify(other))
    const attempt = tryTakeDataFolderLock(dataDir, 'this test')
    expect(attempt).toEqual({ held: false, holder: other })
    expect(describeHolder(other)).toBe(
      'the Vault Desk app (pid 1 on lab-07.example, since 2026-11-29 09:14 UTC)',
    )
    fs.writeFileSync(lockFile(), '{"pid": 12')
    expect(tryTakeDataFolderLock(dataDir, 'this test')).toEqual({ held: false, holder: null })
    // Left unfinished long ago (its writer died between creating and writing it): taken over.
    const longAgo = new Date(Date.now() - 60_000)
    fs.utimesSync(lockFile(), longAgo, longAgo)
    const taken = tryTakeDataFolderLock(dataDir, 'this test')
    expect(taken.held).toBe(true)
    if (taken.held) taken.lock.release()
    expect(fs.existsSync(lockFile())).toBe(false)
  })

  it.runIf(fs.existsSync('/proc/self/stat'))(
    'takes over a lock whose pid was reused by a later process, or that is older than this boot',
    async () => {
      // A process that runs now, started after the lock below was taken: not its holder.
      const runner = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'])
      children.push(runner)
      await expect.poll(() => processStartMs(runner.pid!)).not.toBeNull()
      const lockTaken = new Date(processStartMs(runner.pid!)! - 60_000).toISOString()
      const reused = { pid: runner.pid!, host: os.hostname(), startedAt: lockTaken, holder: 'x' }
      fs.writeFileSync(lockFile(), JSON.stringify(reused))
      const taken = tryTakeDataFolderLock(dataDir, 'this test')
      expect(taken.held).toBe(true)
      if (taken.held) taken.lock.release()

      // The same process, had it taken the lock after it started, holds it.
      const sinceStart = new Date(processStartMs(runner.pid!)! + 5_000).toISOString()
      const live = { ...reused, startedAt: sinceStart }
      fs.writeFileSync(lockFile(), JSON.stringify(live))
      expect(tryTakeDataFolderLock(dataDir, 'this test')).toEqual({ held: false, holder: live })

      // A lock from before the machine booted, whatever runs as its pid now (init here).
      const beforeBoot = new Date(bootTimeMs() - 3_600_000).toISOString()
      fs.writeFileSync(lockFile(), JSON.stringify({ ...live, pid: 1, startedAt: beforeBoot }))
      const again = tryTakeDataFolderLock(dataDir, 'this test')
      expect(again.held).toBe(true)
      if (again.held) again.lock.release()
    },
  )

  it('never removes a lock that is no longer the one it took', () => {
    const taken = tryTakeDataFolderLock(dataDir, 'this test')
    if (!taken.held) throw new Error('expected to hold the lock')
    const someoneElse = {
      pid: 1,
      host: 'elsewhere',
      startedAt: new Date().toISOString(),
      holder: 'x',
    }
    fs.writeFileSync(lockFile(), JSON.stringify(someoneElse))
    taken.lock.release()
    expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8'))).toEqual(someoneElse)
  })

  it('keeps a host that stays up from syncing while another process holds the folder, then hands it over', async () => {
    const cliSync = await startHolder("'vault-desk sync'")
    expect(cliSync.answer.held).toBe(true)
    const services = createServices({ host: 'web', dataDir, chemWorkers: 1 })
    try {
      expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid).toBe(cliSync.answer.pid)
      // Its outbox does not send (it holds no sender lease) while the folder is someone else's.
      expect(senderPids()).not.toContain(process.pid)
      cliSync.child.stdin!.end()
      await exited(cliSync.child)
      await until(
        () =>
          fs.existsSync(lockFile()) &&
          fs.readFileSync(lockFile(), 'utf8').includes(`"pid":${process.pid}`),
        'the preview takes the folder over',
      )
      expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).holder).toBe(
        'the Vault Desk browser preview',
      )
      await until(() => senderPids().includes(process.pid), 'its outbox starts sending')
    } finally {
      await services.close()
    }
    expect(fs.existsSync(lockFile())).toBe(false)
  }, 20_000)
})
