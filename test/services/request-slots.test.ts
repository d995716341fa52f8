import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { LimiterRegistry } from '../../src-main/api/limiter-registry.ts'
import { Limiter } from '../../src-main/api/limiter.ts'
import {
  limitersForDataFolder,
  RequestSlotFolder,
  requestSlotsFolderName,
} from '../../src-main/services/request-slots.ts'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { VaultClient } from '../../src-main/api/index.ts'
import { burst, exportBurst, type BurstOutcome } from './request-burst.ts'

const childScript = path.resolve(import.meta.dirname, 'request-slots-child.ts')
const origin = 'https://vault.example'
let dataDir: string
const children: ChildProcess[] = []

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-slots-'))
})
afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const slotsFolder = () => path.join(dataDir, requestSlotsFolderName)

/** A child process of the pinned node; resolves with it once it printed its first line. */
function startChild(
  args: string[],
): Promise<{ child: ChildProcess; first: unknown; next: () => Promise<unknown> }> {
  const child = spawn(process.execPath, [childScript, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  children.push(child)
  const lines: string[] = []
  const waiting: ((line: string) => void)[] = []
  let text = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8')
    let end
    while ((end = text.indexOf('\n')) >= 0) {
      const line = text.slice(0, end)
      text = text.slice(end + 1)
      const reader = waiting.shift()
      if (reader) reader(line)
      else lines.push(line)
    }
  })
  const line = () =>
    new Promise<unknown>((resolve, reject) => {
      const queued = lines.shift()
      if (queued !== undefined) return resolve(JSON.parse(queued))
      waiting.push((text) => resolve(JSON.parse(text)))
      child.once('exit', (code) => reject(new Error(`the child exited with ${code}`)))
    })
  return line().then((first) => ({ child, first, next: line }))
}

describe('request slot files', () => {
  it('give as many slots as the limit across holders, private, and take a freed one back', () => {
    const folder = new RequestSlotFolder(slotsFolder())
    const other = new RequestSlotFolder(slotsFolder())
    const mine = folder.slotsFor(origin, 3)
    const theirs = other.slotsFor(origin, 3)
    const first = mine.tryTake()!
    expect(theirs.tryTake()).not.toBeNull()
    expect(mine.tryTake()).not.toBeNull()
    expect(theirs.tryTake()).toBeNull()
    expect(mine.tryTake()).toBeNull()
    // Another server's slots are its own.
    expect(folder.slotsFor('https://other.example', 3).tryTake()).not.toBeNull()
    first.release()
    first.release()
    expect(theirs.tryTake()).not.toBeNull()
    expect(theirs.tryTake()).toBeNull()
    if (process.platform !== 'win32') {
      expect(fs.statSync(slotsFolder()).mode & 0o777).toBe(0o700)
      for (const name of fs.readdirSync(slotsFolder())) {
        expect(fs.statSync(path.join(slotsFolder(), name)).mode & 0o777).toBe(0o600)
      }
    }
  })

  it("take over a killed process's slots at once", async () => {
    const { child, first } = await startChild(['hold', dataDir, origin, '60000'])
    expect(first).toMatchObject({ held: 3 })
    const slots = new RequestSlotFolder(slotsFolder()).slotsFor(origin, 3)
    expect(slots.tryTake()).toBeNull()
    child.kill('SIGKILL')
    await new Promise((resolve) => child.once('exit', resolve))
    // Their files are still there, naming the dead pid: only that tells they are free.
    expect(fs.readdirSync(slotsFolder()).filter((name) => name.endsWith('.lock'))).toHaveLength(3)
    const taken = [slots.tryTake(), slots.tryTake(), slots.tryTake()]
    expect(taken.every((slot) => slot !== null)).toBe(true)
    expect(slots.tryTake()).toBeNull()
  })

  it('take over the slots of a live process that stopped renewing them once their lease ends', async () => {
    const leaseMs = 600
    const { child, first } = await startChild(['hold', dataDir, origin, String(leaseMs)])
    expect(first).toMatchObject({ held: 3 })
    const limiter = new Limiter(
      3,
      new RequestSlotFolder(slotsFolder(), { timing: { leaseMs, pollMs: 50 } }).slotsFor(origin, 3),
    )
    // While it renews them, they stay its own.
    await new Promise((resolve) => setTimeout(resolve, leaseMs * 2))
    expect(limiter.active).toBe(0)
    let granted = false
    const waiting = limiter.acquire().then((slot) => {
      granted = true
      return slot
    })
    await new Promise((resolve) => setTimeout(resolve, leaseMs))
    expect(granted).toBe(false)
    // A frozen process: alive, but its timers no longer run.
    child.kill('SIGSTOP')
    try {
      const slot = await waiting
      expect(limiter.active).toBe(1)
      slot.release()
    } finally {
      child.kill('SIGCONT')
    }
  })

  it('free an unreadable slot file only once it is older than a write takes', () => {
    const mine = new RequestSlotFolder(slotsFolder()).slotsFor(origin, 1)
    const theirs = new RequestSlotFolder(slotsFolder()).slotsFor(origin, 1)
    expect(theirs.tryTake()).not.toBeNull()
    // Its holder died while writing it.
    const [file] = fs.readdirSync(slotsFolder())
    const full = path.join(slotsFolder(), file!)
    fs.writeFileSync(full, '{"pid": 12')
    expect(mine.tryTake()).toBeNull()
    const past = new Date(Date.now() - 60_000)
    fs.utimesSync(full, past, past)
    expect(mine.tryTake()).not.toBeNull()
  })

  it('let requests go on, limited in this process, when the folder cannot be written', async () => {
    const problems: unknown[] = []
    fs.writeFileSync(slotsFolder(), 'a file where the folder should be')
    const limiter = new Limiter(
      3,
      new RequestSlotFolder(slotsFolder(), {
        onProblem: (error) => problems.push(error),
      }).slotsFor(origin, 3),
    )
    const slots = await Promise.all([limiter.acquire(), limiter.acquire(), limiter.acquire()])
    expect(limiter.active).toBe(3)
    expect(problems).toHaveLength(1)
    for (const slot of slots) slot.release()
  })
})

describe('the per-user request limit against the simulator', () => {
  let sim: VaultSim
  let tokens: [string, string]

  beforeAll(async () => {
    sim = await startVaultSim({ seed: 'empty' })
    const [first, second] = sim.cast.users.writer.tokens
    tokens = [first!, second!]
  })
  afterAll(() => sim.stop())
  beforeEach(() => {
    sim.resetStats()
    // Long enough for the requests of both processes to overlap.
    sim.faults.set({ latencyMs: 300, match: 'GET /vaults' })
  })
  afterEach(() => sim.faults.clear())

  it('keeps two tokens of one user in one process within 3 requests in flight', async () => {
    const limiters = new LimiterRegistry()
    const outcomes = await Promise.all(
      tokens.map((token) => burst({ baseUrl: sim.baseUrl, token, limiters }, 5)),
    )
    expect(outcomes).toEqual([
      { ok: 5, failed: [] },
      { ok: 5, failed: [] },
    ])
    expect(sim.stats.concurrencyRejections).toBe(0)
    expect(sim.stats.maxInFlightPerUser).toBe(3)
  })

  /** The app (this process) and a CLI-like child on one data folder, each with its own token. */
  async function twoProcesses(sharing: 'shared' | 'alone'): Promise<BurstOutcome[]> {
    const count = 6
    const { child, first, next } = await startChild([
      'burst',
      dataDir,
      sim.baseUrl,
      tokens[1],
      String(count),
      sharing,
    ])
    expect(first).toEqual({ ready: true })
    const limiters = sharing === 'shared' ? limitersForDataFolder(dataDir) : new LimiterRegistry()
    child.stdin!.write('go\n')
    const mine = await burst({ baseUrl: sim.baseUrl, token: tokens[0], limiters }, count)
    return [mine, (await next()) as BurstOutcome]
  }

  it('keeps two processes on one data folder within 3 requests in flight together', async () => {
    const outcomes = await twoProcesses('shared')
    expect(outcomes).toEqual([
      { ok: 6, failed: [] },
      { ok: 6, failed: [] },
    ])
    expect(sim.stats.concurrencyRejections).toBe(0)
    expect(sim.stats.maxInFlightPerUser).toBe(3)
    // Every slot was given back.
    expect(fs.readdirSync(slotsFolder()).filter((name) => name.endsWith('.lock'))).toEqual([])
  })

  it('is refused with 429 by the simulator when two processes count alone', async () => {
    const outcomes = await twoProcesses('alone')
    const failed = outcomes.flatMap((outcome) => outcome.failed)
    expect(failed.length).toBeGreaterThan(0)
    expect(new Set(failed)).toEqual(new Set([429]))
    expect(sim.stats.concurrencyRejections).toBe(failed.length)
  })
})

describe('the per-user limit of 3 running exports across processes', () => {
  let sim: VaultSim
  let tokens: [string, string]
  let vaultId: number
  const exportSlotFiles = () =>
    fs.existsSync(slotsFolder())
      ? fs.readdirSync(slotsFolder()).filter((name) => /^exports-.*\.lock$/.test(name))
      : []

  beforeAll(async () => {
    // No queue: the simulator refuses an export beyond the 3 running, as a strict service may.
    sim = await startVaultSim({
      seed: 'empty',
      exportTiming: { startDelayMs: 0, durationMs: 1_500 },
      exportLimits: { queued: 0 },
    })
    const [first, second] = sim.cast.users.writer.tokens
    tokens = [first!, second!]
    vaultId = sim.cast.vaults.main.id
  })
  afterAll(() => sim.stop())
  beforeEach(() => sim.resetStats())

  function client(limiters: LimiterRegistry, token = tokens[0]): VaultClient {
    return new VaultClient({
      baseUrl: sim.baseUrl,
      token,
      limiters,
      retry: { attempts: 1 },
      exportPolling: { minIntervalMs: 50, maxIntervalMs: 100 },
    })
  }

  it('is kept by the simulator: a 4th running export of one user answers 429', async () => {
    const start = (token: string) =>
      fetch(`${sim.baseUrl}/vaults/${vaultId}/molecules/query`, {
        method: 'POST',
        headers: { 'X-SVC-Token': token, 'Content-Type': 'application/json' },
        body: JSON.stringify({ async: true }),
      })
    const statuses: number[] = []
    // Two tokens of one user: the limit is the user's.
    for (const token of [tokens[0], tokens[1], tokens[0], tokens[1]]) {
      statuses.push((await start(token)).status)
    }
    expect(statuses).toEqual([200, 200, 200, 429])
    expect(sim.stats.exportQueueRejections).toBe(1)
    sim.clock.advance(60_000)
  })

  it("holds an export's place from its start until its file is read, or it is let go", async () => {
    const exports = client(limitersForDataFolder(dataDir))
    const read = await exports.molecules.export(vaultId, {})
    // Finished on the server, not yet downloaded: still the user's running export here.
    expect(exportSlotFiles()).toHaveLength(1)
    const dropped = await exports.molecules.export(vaultId, {})
    expect(exportSlotFiles()).toHaveLength(2)
    dropped.release()
    dropped.release()
    expect(exportSlotFiles()).toHaveLength(1)
    for await (const _ of read.records()) void _
    expect(exportSlotFiles()).toEqual([])
  })

  /** The app (this process) and a CLI-like child on one data folder, each with its own token. */
  async function twoProcesses(sharing: 'shared' | 'alone'): Promise<BurstOutcome[]> {
    const count = 3
    const { child, first, next } = await startChild([
      'exports',
      dataDir,
      sim.baseUrl,
      tokens[1],
      String(vaultId),
      String(count),
      sharing,
    ])
    expect(first).toEqual({ ready: true })
    const limiters = sharing === 'shared' ? limitersForDataFolder(dataDir) : new LimiterRegistry()
    child.stdin!.write('go\n')
    const mine = await exportBurst(
      { baseUrl: sim.baseUrl, token: tokens[0], limiters },
      vaultId,
      count,
    )
    return [mine, (await next()) as BurstOutcome]
  }

  it('keeps two processes on one data folder within 3 running exports together', async () => {
    const outcomes = await twoProcesses('shared')
    expect(outcomes).toEqual([
      { ok: 3, failed: [] },
      { ok: 3, failed: [] },
    ])
    expect(sim.stats.exportQueueRejections).toBe(0)
    expect(sim.stats.maxRunningExportsPerUser).toBe(3)
    expect(exportSlotFiles()).toEqual([])
  }, 60_000)

  it('is refused with 429 by the simulator when two processes count alone', async () => {
    const outcomes = await twoProcesses('alone')
    const failed = outcomes.flatMap((outcome) => outcome.failed)
    expect(failed.length).toBeGreaterThan(0)
    expect(new Set(failed)).toEqual(new Set([429]))
    expect(sim.stats.exportQueueRejections).toBeGreaterThan(0)
  }, 60_000)

  it("takes a killed process's export places at once", async () => {
    const origin = new URL(sim.baseUrl).origin
    const { child, first } = await startChild(['hold', dataDir, origin, '60000', 'exports'])
    expect(first).toMatchObject({ held: 3 })
    let done = false
    const waiting = client(limitersForDataFolder(dataDir))
      .molecules.export(vaultId, {})
      .finally(() => (done = true))
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(done).toBe(false)
    expect(sim.stats.byOperation['POST /vaults/{vault_id}/molecules/query'] ?? 0).toBe(0)
    child.kill('SIGKILL')
    const finished = await waiting
    finished.release()
    expect(sim.stats.byOperation['POST /vaults/{vault_id}/molecules/query']).toBe(1)
  }, 60_000)
})
