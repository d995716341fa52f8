/**
 * What sharing the per-user request limit across processes costs (services/request-slots.ts):
 * every request takes and gives back a slot file beside the data folder's lock.
 * - `request_slots.cycle_cpu`: CPU per slot taken and given back, against an in-process limiter's
 *   slot (the reference) measured in the same run;
 * - `request_slots.small_request_cpu` and `.small_requests`: this process's CPU per request and
 *   requests per second of the client, three at a time, reading the smallest answer the service
 *   has (GET /vaults) from a simulator in a child process, with the data folder's shared limits
 *   against limits of this process alone (medians of alternating rounds). On a loaded machine the
 *   CPU figure is the one to judge: wall time there moves by tens of percent between rounds.
 *
 * Environment: BENCH_CYCLES (default 20000), BENCH_REQUESTS (default 1500).
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { VaultClient } from '../src-main/api/client.ts'
import { LimiterRegistry } from '../src-main/api/limiter-registry.ts'
import { Limiter } from '../src-main/api/limiter.ts'
import {
  limitersForDataFolder,
  RequestSlotFolder,
  requestSlotsFolderName,
} from '../src-main/services/request-slots.ts'
import { startVaultSim } from '../src-sim/index.ts'
import { progress, report } from './report.ts'

const serveFlag = '--serve-sim'
const cycles = Number(process.env.BENCH_CYCLES ?? 20_000)
const requests = Number(process.env.BENCH_REQUESTS ?? 1_500)

if (process.argv[2] === serveFlag) {
  const sim = await startVaultSim({ port: 0, seed: 'empty' })
  process.stdout.write(
    `${JSON.stringify({ baseUrl: sim.baseUrl, token: sim.cast.users.admin.tokens[0] })}\n`,
  )
  process.stdin.resume()
  process.stdin.on('end', () => void sim.stop().then(() => process.exit(0)))
} else {
  await main()
}

async function cycleCpuMicros(limiter: Limiter): Promise<number> {
  globalThis.gc?.()
  const cpu = process.cpuUsage()
  for (let index = 0; index < cycles; index++) (await limiter.acquire()).release()
  const used = process.cpuUsage(cpu)
  return (used.user + used.system) / cycles
}

async function smallRequests(client: VaultClient): Promise<{ rate: number; cpuMicros: number }> {
  globalThis.gc?.()
  const cpu = process.cpuUsage()
  const started = performance.now()
  await Promise.all(
    [0, 1, 2].map(async () => {
      for (let index = 0; index < requests / 3; index++) await client.vaults.list()
    }),
  )
  const used = process.cpuUsage(cpu)
  return {
    rate: requests / ((performance.now() - started) / 1000),
    cpuMicros: (used.user + used.system) / requests,
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-bench-slots-'))
  const child = spawn(process.execPath, [import.meta.filename, serveFlag], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  try {
    const origin = 'https://vault.example'
    const sharedLimiter = new Limiter(
      3,
      new RequestSlotFolder(path.join(dataDir, requestSlotsFolderName)).slotsFor(origin, 3),
    )
    const aloneLimiter = new Limiter(3)
    // Warm both, then alternate so that the machine's load falls on both alike.
    await cycleCpuMicros(sharedLimiter)
    await cycleCpuMicros(aloneLimiter)
    const sharedMicros: number[] = []
    const aloneMicros: number[] = []
    for (let round = 0; round < 3; round++) {
      sharedMicros.push(await cycleCpuMicros(sharedLimiter))
      aloneMicros.push(await cycleCpuMicros(aloneLimiter))
    }
    const sharedBest = Math.min(...sharedMicros)
    const aloneBest = Math.min(...aloneMicros)
    report({
      name: 'request_slots.cycle_cpu',
      value: sharedBest,
      unit: 'µs CPU per slot taken and given back',
      reference: 'an in-process limiter slot',
      referenceValue: aloneBest,
      ratio: sharedBest / aloneBest,
      cycles,
    })

    const lines = readline.createInterface({ input: child.stdout! })
    const address = JSON.parse(
      await new Promise<string>((resolve, reject) => {
        lines.once('line', resolve)
        child.once('exit', (code) => reject(new Error(`The simulator exited with ${code}`)))
      }),
    ) as { baseUrl: string; token: string }
    const clientWith = (limiters: LimiterRegistry) =>
      new VaultClient({ baseUrl: address.baseUrl, token: address.token, limiters })
    const sharedClient = clientWith(limitersForDataFolder(dataDir))
    const aloneClient = clientWith(new LimiterRegistry())
    await smallRequests(sharedClient)
    await smallRequests(aloneClient)
    const shared: { rate: number; cpuMicros: number }[] = []
    const alone: { rate: number; cpuMicros: number }[] = []
    const rounds = 5
    for (let round = 0; round < rounds; round++) {
      progress(`small requests, round ${round + 1} of ${rounds}`)
      shared.push(await smallRequests(sharedClient))
      alone.push(await smallRequests(aloneClient))
    }
    const sharedCpu = median(shared.map((run) => run.cpuMicros))
    const aloneCpu = median(alone.map((run) => run.cpuMicros))
    report({
      name: 'request_slots.small_request_cpu',
      value: sharedCpu,
      unit: 'µs CPU of this process per request (GET /vaults, 3 at a time)',
      reference: 'the same client with limits of this process alone',
      referenceValue: aloneCpu,
      ratio: sharedCpu / aloneCpu,
      goal: 'shared slots add at most 10% to the CPU of the smallest request (ratio <= 1.1)',
      met: sharedCpu / aloneCpu <= 1.1,
      requests,
      load: os.loadavg()[0],
    })
    const sharedRate = median(shared.map((run) => run.rate))
    const aloneRate = median(alone.map((run) => run.rate))
    report({
      name: 'request_slots.small_requests',
      value: sharedRate,
      unit: 'requests/s (GET /vaults, 3 at a time)',
      reference: 'the same client with limits of this process alone',
      referenceValue: aloneRate,
      ratio: sharedRate / aloneRate,
      requests,
      load: os.loadavg()[0],
    })
  } finally {
    child.stdin!.end()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}
