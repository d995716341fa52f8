/**
 * The API client's overhead: every molecule of a simulator vault read through the client, paged
 * and as an async export, against a bare fetch loop with no client logic measured in the same
 * run. The simulator runs in a child process (so the client's work is not mixed with the
 * server's on one event loop) and keeps its seeded database between runs.
 *
 * Environment: BENCH_MOLECULES (default 100000), BENCH_ROUNDS (default 5).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { VaultClient } from '../src-main/api/client.ts'
import { LimiterRegistry } from '../src-main/api/limiter-registry.ts'
import { startVaultSim } from '../src-sim/index.ts'
import { progress, report } from './report.ts'

interface SimAddress {
  baseUrl: string
  token: string
  vaultId: number
}

const serveFlag = '--serve-sim'
const molecules = Number(process.env.BENCH_MOLECULES ?? 100_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const pageSize = 1000
const pollMs = 50
const goal = 'client throughput >= 0.9 x bare fetch loop (adds < 10%)'

/** Child process: seeds (or reopens) the vault and prints its address as one JSON line. */
async function serveSim(count: number): Promise<void> {
  const db = path.join(os.tmpdir(), `vault-desk-bench-${count}.sqlite`)
  const start = () =>
    startVaultSim({ port: 0, seed: count, db, exportTiming: { startDelayMs: 0, durationMs: 0 } })
  const sim = await start().catch((error: unknown) => {
    // A database kept from an older simulator is refused; seed a new one.
    progress(`seeding anew: ${(error as Error).message}`)
    fs.rmSync(db, { force: true })
    return start()
  })
  const address: SimAddress = {
    baseUrl: sim.baseUrl,
    token: sim.cast.users.admin.tokens[0]!,
    vaultId: sim.cast.vaults.main.id,
  }
  process.stdout.write(`${JSON.stringify(address)}\n`)
  process.stdin.resume()
  process.stdin.on('end', () => void sim.stop().then(() => process.exit(0)))
}

async function startSimChild(): Promise<{ address: SimAddress; child: ChildProcess }> {
  const child = spawn(process.execPath, [import.meta.filename, serveFlag, String(molecules)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const lines = readline.createInterface({ input: child.stdout! })
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`The simulator exited with ${code}`)))
  })
  return { address: JSON.parse(first) as SimAddress, child }
}

interface Counts {
  records: number
  requests: number
}

interface Measured extends Counts {
  seconds: number
  /** CPU time of this process alone: the client's own cost, apart from the simulator's. */
  cpuSeconds: number
}

async function timed(run: () => Promise<Counts>): Promise<Measured> {
  globalThis.gc?.()
  const cpu = process.cpuUsage()
  const started = performance.now()
  const counts = await run()
  const used = process.cpuUsage(cpu)
  return {
    ...counts,
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
  }
}

const headers = (token: string) => ({
  'X-SVC-Token': token,
  'Content-Type': 'application/json',
  Accept: 'application/json',
})

/** The reference: page through with fetch and JSON, nothing else. */
async function barePaging({ baseUrl, token, vaultId }: SimAddress) {
  let offset = 0
  let count = Infinity
  let records = 0
  let requests = 0
  while (offset < count) {
    const response = await fetch(`${baseUrl}/vaults/${vaultId}/molecules/query`, {
      method: 'POST',
      headers: headers(token),
      body: JSON.stringify({ page_size: pageSize, offset }),
    })
    const page = (await response.json()) as { count: number; objects: unknown[] }
    requests++
    records += page.objects.length
    offset += page.objects.length
    count = page.count
    if (page.objects.length === 0) break
  }
  return { records, requests }
}

async function clientPaging(client: VaultClient, vaultId: number) {
  let records = 0
  let requests = 0
  for await (const page of client.molecules.queryAll(vaultId, {}, { pageSize }).pages()) {
    requests++
    records += page.objects.length
  }
  return { records, requests }
}

/** The reference export: start, poll, follow the redirect by hand, parse the whole file. */
async function bareExport({ baseUrl, token, vaultId }: SimAddress) {
  let requests = 1
  const started = (await (
    await fetch(`${baseUrl}/vaults/${vaultId}/molecules/query`, {
      method: 'POST',
      headers: headers(token),
      body: JSON.stringify({ async: true }),
    })
  ).json()) as { id: number; status: string }
  let status = started.status
  while (status !== 'finished') {
    await new Promise((resolve) => setTimeout(resolve, pollMs))
    const polled = await fetch(`${baseUrl}/vaults/${vaultId}/export_progress/${started.id}`, {
      headers: headers(token),
    })
    status = ((await polled.json()) as { status: string }).status
    requests++
    if (status !== 'new' && status !== 'started' && status !== 'finished') {
      throw new Error(`The export ended with ${status}`)
    }
  }
  const redirect = await fetch(`${baseUrl}/vaults/${vaultId}/exports/${started.id}`, {
    headers: headers(token),
    redirect: 'manual',
  })
  const file = await fetch(redirect.headers.get('location')!)
  const records = ((await file.json()) as unknown[]).length
  return { records, requests: requests + 2 }
}

async function clientExport(client: VaultClient, vaultId: number) {
  let requests = 0
  const finished = await client.molecules.export(vaultId, {}, { onProgress: () => requests++ })
  let records = 0
  for await (const record of finished.records()) {
    void record
    records++
  }
  // The start and every poll report progress; the download is a redirect and the file.
  return { records, requests: requests + 2 }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

async function compare(
  name: string,
  bare: () => Promise<Counts>,
  client: () => Promise<Counts>,
): Promise<void> {
  const bareRuns: Measured[] = []
  const clientRuns: Measured[] = []
  for (let round = 0; round < rounds; round++) {
    // Taking turns at going first keeps a slow spell on this shared machine from landing on one
    // side only.
    if (round % 2 === 0) {
      bareRuns.push(await timed(bare))
      clientRuns.push(await timed(client))
    } else {
      clientRuns.push(await timed(client))
      bareRuns.push(await timed(bare))
    }
    progress(
      `${name} round ${round + 1}: bare ${bareRuns.at(-1)!.seconds.toFixed(2)} s, client ${clientRuns.at(-1)!.seconds.toFixed(2)} s`,
    )
  }
  for (const [unit, of] of [
    ['records/s', (run: Measured) => run.records / run.seconds],
    ['requests/s', (run: Measured) => run.requests / run.seconds],
  ] as const) {
    const value = median(clientRuns.map(of))
    const referenceValue = median(bareRuns.map(of))
    const ratio = value / referenceValue
    report({
      name: `${name} ${unit}`,
      value: Math.round(value),
      unit,
      reference: `bare fetch loop, same run (median of ${rounds})`,
      referenceValue: Math.round(referenceValue),
      ratio: Number(ratio.toFixed(3)),
      goal,
      met: ratio >= 0.9,
      records: clientRuns[0]!.records,
      molecules,
    })
  }
  // Wall time on a shared machine swings with the neighbours; CPU time of this process does not,
  // and shows what the client's own work costs beside the bare loop's.
  const value = median(clientRuns.map((run) => (run.cpuSeconds / run.records) * 1e6))
  const referenceValue = median(bareRuns.map((run) => (run.cpuSeconds / run.records) * 1e6))
  report({
    name: `${name} client-process CPU per record`,
    value: Number(value.toFixed(2)),
    unit: 'µs/record',
    reference: `bare fetch loop, same run (median of ${rounds})`,
    referenceValue: Number(referenceValue.toFixed(2)),
    ratio: Number((value / referenceValue).toFixed(3)),
    molecules,
  })
}

async function main(): Promise<void> {
  progress(`starting the simulator with ${molecules} molecules (seeded once, then reused)`)
  const { address, child } = await startSimChild()
  try {
    const client = new VaultClient({
      baseUrl: address.baseUrl,
      token: address.token,
      limiters: new LimiterRegistry(),
      exportPolling: { minIntervalMs: pollMs, maxIntervalMs: pollMs },
      timeoutMs: 120_000,
    })
    const warm = await barePaging(address)
    if (warm.records !== molecules) {
      throw new Error(`The vault holds ${warm.records} molecules, not ${molecules}`)
    }
    for (let page = 0; page < 5; page++) {
      await client.molecules.query(address.vaultId, {
        page_size: pageSize,
        offset: page * pageSize,
      })
    }
    await compare(
      'client molecules paging',
      () => barePaging(address),
      () => clientPaging(client, address.vaultId),
    )
    await compare(
      'client molecules export',
      () => bareExport(address),
      () => clientExport(client, address.vaultId),
    )
  } finally {
    child.stdin?.end()
    await new Promise((resolve) => child.once('exit', resolve))
  }
}

if (process.argv[2] === serveFlag) await serveSim(Number(process.argv[3]))
else await main()
