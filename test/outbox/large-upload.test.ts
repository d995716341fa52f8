import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import {
  bigFile,
  sha256Of,
  uploadInChild,
  uploadTarget,
  type MeasuredUpload,
} from './support/large-upload.ts'

const gibibyte = 1024 ** 3
const mebibyte = 1024 ** 2

let dir: string
let sim: VaultSim

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-large-'))
  sim = await startVaultSim({ port: 0, seed: 'empty' })
})
afterAll(async () => {
  await sim?.stop()
  fs.rmSync(dir, { recursive: true, force: true })
})

/**
 * The outbox, in a process of its own, uploads a 1 GiB file to the simulator (in this process),
 * which streams it to disk; the child samples its own resident memory while it sends.
 */
describe('a 1 GB upload', () => {
  let measured: MeasuredUpload
  let sha256: string

  beforeAll(async () => {
    const file = path.join(dir, 'plate-reader-export.bin')
    sha256 = await bigFile(file, gibibyte)
    measured = await uploadInChild(sim, await uploadTarget(sim), file, path.join(dir, 'data'))
  }, 600_000)

  it('streams from the queued copy and arrives whole', async () => {
    expect(measured).toMatchObject({ state: 'sent', lastError: null, size: gibibyte })
    const row = sim.core.db
      .prepare(`SELECT name, size FROM uploaded_files WHERE id = ?`)
      .get(measured.serverId) as { name: string; size: number } | undefined
    expect(row).toEqual({ name: 'plate-reader-export.bin', size: gibibyte })
    expect(await sha256Of(path.join(sim.core.filesDirectory, String(measured.serverId)))).toBe(
      sha256,
    )
  }, 120_000)

  it('reports progress as it goes', () => {
    expect(measured.sentBytes).toBeGreaterThan(gibibyte / 2)
    expect(measured.sentBytes).toBeLessThanOrEqual(gibibyte + mebibyte)
  })

  it('keeps resident memory growth under 64 MB while it streams', () => {
    expect(measured.peakRss - measured.baselineRss).toBeLessThan(64 * mebibyte)
  })
})
