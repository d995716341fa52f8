/**
 * The simulator's demo seed, made once per test run and copied for every suite that starts on it.
 * Seeding the demo takes seconds of CPU (2,000 molecules, their batches, assays, plates, inventory
 * and notebook); reopening a seeded file takes a fraction of one, and the simulator reopens a file
 * exactly as it was seeded, tokens included (src-sim/README.md). Suites that test the seeding
 * itself (test/sim) and the app's first opening of its demo (test/services/demo-vault.test.ts,
 * test/e2e/keyboard.e2e.ts) still seed afresh.
 *
 * The run's folder comes from the global setup (demo-snapshot-setup.ts); the first worker to need
 * the snapshot seeds it, under a lock, and the others wait for it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { inject } from 'vitest'
import { startVaultSim, type VaultSim, type VaultSimOptions } from '../../src-sim/index.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    demoSnapshotFolder?: string
  }
}

const databaseName = 'vault.db'
const filesName = `${databaseName}-files`
const seedingTimeoutMs = 300_000

let ready: Promise<string> | undefined

/** The folder holding the seeded demo (`vault.db` and its `vault.db-files/`), made when first asked. */
export function demoSnapshot(): Promise<string> {
  ready ??= makeSnapshot().catch((error: unknown) => {
    ready = undefined
    throw error
  })
  return ready
}

/** Copies the seeded demo to `database` (and its files beside it), as the simulator keeps them. */
export async function copyDemoSnapshot(database: string): Promise<void> {
  const snapshot = await demoSnapshot()
  fs.mkdirSync(path.dirname(database), { recursive: true })
  fs.copyFileSync(path.join(snapshot, databaseName), database)
  fs.cpSync(path.join(snapshot, filesName), `${database}-files`, { recursive: true })
}

/** A simulator on a copy of the demo seed: the same vault as `startVaultSim({ seed: 'demo' })`. */
export async function startDemoSnapshotSim(
  options: Omit<VaultSimOptions, 'seed' | 'db'> = {},
): Promise<VaultSim> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-demo-copy-'))
  try {
    const database = path.join(folder, databaseName)
    await copyDemoSnapshot(database)
    const sim = await startVaultSim({ ...options, seed: 'demo', db: database })
    const stop = sim.stop
    sim.stop = async () => {
      await stop()
      fs.rmSync(folder, { recursive: true, force: true })
    }
    return sim
  } catch (error) {
    fs.rmSync(folder, { recursive: true, force: true })
    throw error
  }
}

async function makeSnapshot(): Promise<string> {
  // Outside the global setup (a file run with another config) the snapshot serves this file only.
  const runFolder =
    inject('demoSnapshotFolder') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-demo-'))
  const snapshot = path.join(runFolder, 'demo')
  const lock = path.join(runFolder, 'seeding')
  const deadline = Date.now() + seedingTimeoutMs
  for (;;) {
    if (fs.existsSync(snapshot)) return snapshot
    if (takeLock(lock)) break
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${seedingTimeoutMs / 1000} s waiting for another worker to seed the demo snapshot in ${runFolder}.`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  try {
    if (fs.existsSync(snapshot)) return snapshot
    const building = fs.mkdtempSync(path.join(runFolder, 'building-'))
    const sim = await startVaultSim({ seed: 'demo', db: path.join(building, databaseName) })
    await sim.stop()
    // A cleanly closed database has folded its write-ahead log back in: the file alone is the vault.
    const leftovers = ['-wal', '-shm'].filter((suffix) =>
      fs.existsSync(path.join(building, databaseName + suffix)),
    )
    if (leftovers.length > 0) {
      throw new Error(
        `The demo snapshot kept ${leftovers.join(', ')} after closing: not a whole copy.`,
      )
    }
    fs.renameSync(building, snapshot)
    return snapshot
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
}

function takeLock(lock: string): boolean {
  try {
    fs.mkdirSync(lock)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}
