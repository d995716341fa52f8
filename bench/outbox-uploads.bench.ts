/**
 * The outbox's throughput: 1,000 small uploads queued, then sent to a simulator (in a child
 * process, so that its work is not mixed with the outbox's on one event loop) at the service's
 * request limit of 3 in flight. The reference, measured in the same run: the same uploads sent
 * by the API client alone, 3 at a time, with none of the outbox's bookkeeping. Per item the
 * outbox commits "sending" and waits for the WAL to be synced before the request leaves (the sync
 * runs in the thread pool while other items' requests go on; items marked together share one),
 * then stores the answer in the cache and commits "sent" unsynced; it picks the next item through
 * the state index (a few small queries) and tells the window a few times a second, not per item.
 * The issue sets no goal for it: the line reports the rate and its ratio to the reference. Each
 * round also prints the process's CPU time per upload on both sides (stderr): on a busy machine
 * the ratio follows it.
 *
 * Environment: BENCH_UPLOADS (default 1000), BENCH_ROUNDS (default 3).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { VaultClient } from '../src-main/api/client.ts'
import { LimiterRegistry } from '../src-main/api/limiter-registry.ts'
import { EventBus } from '../src-main/shared/events.ts'
import { silentLogger } from '../src-main/shared/logger.ts'
import { VaultCache } from '../src-main/store/vault-cache.ts'
import { Outbox } from '../src-main/sync/outbox/outbox.ts'
import { startVaultSim } from '../src-sim/index.ts'
import { progress, report } from './report.ts'

interface SimAddress {
  baseUrl: string
  token: string
  vaultId: number
  moleculeIds: number[]
}

const serveFlag = '--serve-sim'
const uploads = Number(process.env.BENCH_UPLOADS ?? 1000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)

async function serveSim(): Promise<void> {
  const sim = await startVaultSim({ port: 0, seed: 50 })
  const rows = sim.core.db.prepare('SELECT id FROM molecules ORDER BY id').all() as { id: number }[]
  const address: SimAddress = {
    baseUrl: sim.baseUrl,
    token: sim.cast.users.writer.tokens[0]!,
    vaultId: sim.cast.vaults.main.id,
    moleculeIds: rows.map((row) => row.id),
  }
  process.stdout.write(`${JSON.stringify(address)}\n`)
  process.stdin.resume()
  process.stdin.on('end', () => void sim.stop().then(() => process.exit(0)))
}

async function startSimChild(): Promise<{ address: SimAddress; child: ChildProcess }> {
  const child = spawn(process.execPath, [import.meta.filename, serveFlag], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const lines = readline.createInterface({ input: child.stdout! })
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`The simulator exited with ${code}`)))
  })
  return { address: JSON.parse(first) as SimAddress, child }
}

function smallFiles(dir: string): string[] {
  fs.mkdirSync(dir, { recursive: true })
  return Array.from({ length: uploads }, (_, index) => {
    const file = path.join(dir, `reading-${index}.csv`)
    fs.writeFileSync(file, `well,value\nA${index % 12},${index}\n`)
    return file
  })
}

function client(address: SimAddress): VaultClient {
  return new VaultClient({
    baseUrl: address.baseUrl,
    token: address.token,
    limiters: new LimiterRegistry(),
    retry: { attempts: 1 },
  })
}

interface Run {
  /** Uploads per second. */
  rate: number
  /** CPU time of the whole process per upload, in µs. */
  cpuPerItem: number
}

function measured(count: number, started: number, cpu: NodeJS.CpuUsage): Run {
  const used = process.cpuUsage(cpu)
  return {
    rate: count / ((performance.now() - started) / 1000),
    cpuPerItem: (used.user + used.system) / count,
  }
}

/** The reference: every file attached by the client, 3 requests in flight. */
async function clientAlone(address: SimAddress, files: string[]): Promise<Run> {
  const api = client(address)
  let next = 0
  const cpu = process.cpuUsage()
  const started = performance.now()
  await Promise.all(
    Array.from({ length: 3 }, async () => {
      while (next < files.length) {
        const index = next++
        await api.files.attach(address.vaultId, {
          file: files[index]!,
          resource_class: 'molecule',
          resource_id: address.moleculeIds[index % address.moleculeIds.length]!,
        })
      }
    }),
  )
  return measured(files.length, started, cpu)
}

/** The outbox: every file queued (copied), then sent; only the sending is timed. */
async function throughOutbox(address: SimAddress, files: string[], dataDir: string): Promise<Run> {
  const { cache } = VaultCache.open(path.join(dataDir, 'caches', 'bench.db'))
  const api = client(address)
  const outbox = new Outbox({
    dataDir,
    connection: () => ({ client: api, cache }),
    connectionName: () => 'bench',
    events: new EventBus(),
    log: silentLogger,
  })
  for (const [index, file] of files.entries()) {
    await outbox.queue({
      connectionId: 'bench',
      vaultId: address.vaultId,
      operation: 'file.attach',
      file,
      target: {
        kind: 'molecule',
        ref: { id: address.moleculeIds[index % address.moleculeIds.length]! },
      },
    })
  }
  const cpu = process.cpuUsage()
  const started = performance.now()
  outbox.start()
  await outbox.flush()
  const run = measured(files.length, started, cpu)
  const counts = outbox.counts()
  await outbox.close()
  await cache.close()
  if (counts.pending !== 0) throw new Error(`${counts.pending} uploads were not sent.`)
  return run
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

async function main(): Promise<void> {
  const { address, child } = await startSimChild()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-bench-outbox-'))
  try {
    const files = smallFiles(path.join(dir, 'files'))
    const alone: number[] = []
    const outbox: number[] = []
    for (let round = 0; round < rounds; round++) {
      // Alternating keeps a slow spell on this shared machine from landing on one side only.
      const bare = await clientAlone(address, files)
      const queued = await throughOutbox(address, files, path.join(dir, `outbox-${round}`))
      alone.push(bare.rate)
      outbox.push(queued.rate)
      progress(
        `round ${round + 1}: client alone ${bare.rate.toFixed(0)} uploads/s (${bare.cpuPerItem.toFixed(0)} µs CPU each), outbox ${queued.rate.toFixed(0)} items/s (${queued.cpuPerItem.toFixed(0)} µs CPU each)`,
      )
    }
    const value = median(outbox)
    const referenceValue = median(alone)
    const ratio = value / referenceValue
    report({
      name: `outbox ${uploads} small uploads`,
      value: Math.round(value),
      unit: 'items/s',
      reference: 'API client alone, 3 in flight (uploads/s)',
      referenceValue: Math.round(referenceValue),
      ratio: Number(ratio.toFixed(3)),
    })
  } finally {
    child.stdin!.end()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv.includes(serveFlag)) await serveSim()
else await main()
