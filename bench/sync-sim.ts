/**
 * The simulator for the sync benchmarks, in a child process so that the simulator's work and the
 * sync's run on their own event loops (and cores), as they do against a real server. Its seeded
 * database is kept in the temporary folder between runs (seeding 250k molecules takes a while).
 * `node bench/sync-sim.ts --serve COUNT` is the child.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { startVaultSim } from '../src-sim/index.ts'
import { progress } from './report.ts'

export interface BenchSim {
  baseUrl: string
  token: string
  vaultId: number
  /**
   * The CPU time the simulator's process has used so far, in seconds: it runs on the same cores
   * as the sync it serves, which a real server does not.
   */
  cpuSeconds(): Promise<number>
  stop(): Promise<void>
}

interface Address {
  baseUrl: string
  token: string
  vaultId: number
}

export async function startBenchSim(molecules: number): Promise<BenchSim> {
  const child = spawn(process.execPath, [import.meta.filename, '--serve', String(molecules)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const lines = readline.createInterface({ input: child.stdout })
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`The simulator exited with ${code}`)))
  })
  const address = JSON.parse(first) as Address
  return {
    ...address,
    cpuSeconds: () =>
      new Promise((resolve, reject) => {
        const exited = (code: number | null) =>
          reject(new Error(`The simulator exited with ${code}`))
        child.once('exit', exited)
        lines.once('line', (line) => {
          child.off('exit', exited)
          resolve(Number(line) / 1e6)
        })
        child.stdin.write('cpu\n')
      }),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve())
        child.stdin.end()
      }),
  }
}

async function serve(molecules: number): Promise<void> {
  const db = path.join(os.tmpdir(), `vault-desk-bench-sync-${molecules}.sqlite`)
  const start = () =>
    startVaultSim({
      port: 0,
      seed: molecules,
      db,
      exportTiming: { startDelayMs: 0, durationMs: 0 },
      // The simulator's background structure indexing would compete with sync for the CPU.
      indexing: { minimumMolecules: Infinity },
    })
  if (!fs.existsSync(db)) progress(`seeding ${molecules} molecules (kept in ${db})`)
  const sim = await start().catch((error: unknown) => {
    progress(`seeding anew: ${(error as Error).message}`)
    fs.rmSync(db, { force: true })
    return start()
  })
  const address: Address = {
    baseUrl: sim.baseUrl,
    token: sim.cast.users.admin.tokens[0]!,
    vaultId: sim.cast.vaults.main.id,
  }
  process.stdout.write(`${JSON.stringify(address)}\n`)
  // Each line asks for the CPU time used so far (user and system, in microseconds).
  const requests = readline.createInterface({ input: process.stdin })
  requests.on('line', () => {
    const { user, system } = process.cpuUsage()
    process.stdout.write(`${user + system}\n`)
  })
  requests.on('close', () => void sim.stop().then(() => process.exit(0)))
}

if (process.argv[2] === '--serve') await serve(Number(process.argv[3]))
