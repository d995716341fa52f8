/**
 * Resident memory of a process that uploads a 1 GiB file through the outbox to the simulator:
 * growth from just before the upload to its peak (sampled every 20 ms), beside the file's size
 * in the same run (a ratio near 1 would mean the file was held whole). The simulator runs in
 * this process and streams the file to disk; the uploading process runs nothing else.
 * Goal (issue 7): growth under 64 MiB.
 *
 * Environment: BENCH_UPLOAD_MIB (default 1024).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { startVaultSim } from '../src-sim/index.ts'
import {
  bigFile,
  sha256Of,
  uploadInChild,
  uploadTarget,
} from '../test/outbox/support/large-upload.ts'
import { progress, report } from './report.ts'

const mebibyte = 1024 ** 2
const size = Number(process.env.BENCH_UPLOAD_MIB ?? 1024) * mebibyte
const goalMib = 64

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-bench-upload-'))
  const sim = await startVaultSim({ port: 0, seed: 'empty' })
  try {
    const file = path.join(dir, 'large.bin')
    progress(`writing ${size / mebibyte} MiB`)
    const sha256 = await bigFile(file, size)
    progress('uploading through the outbox in a process of its own')
    const measured = await uploadInChild(sim, await uploadTarget(sim), file, path.join(dir, 'data'))
    if (measured.state !== 'sent')
      throw new Error(`The upload ended ${measured.state}: ${measured.lastError}`)
    const stored = path.join(sim.core.filesDirectory, String(measured.serverId))
    if ((await sha256Of(stored)) !== sha256) throw new Error('The stored file differs.')
    const mib = (bytes: number) => Number((bytes / mebibyte).toFixed(1))
    const growth = (measured.peakRss - measured.baselineRss) / mebibyte
    progress(
      `sent in ${measured.seconds.toFixed(1)} s; resident memory grew ${growth.toFixed(1)} MiB`,
    )
    report({
      name: `outbox ${size / mebibyte} MiB upload resident memory growth`,
      value: Number(growth.toFixed(1)),
      unit: 'MiB',
      reference: 'size of the file uploaded (MiB)',
      referenceValue: size / mebibyte,
      ratio: Number((growth / (size / mebibyte)).toFixed(3)),
      goal: `growth < ${goalMib} MiB`,
      met: growth < goalMib,
      baselineRssMiB: mib(measured.baselineRss),
      peakRssMiB: mib(measured.peakRss),
      peakArrayBuffersMiB: mib(measured.peaks.arrayBuffers),
      seconds: Number(measured.seconds.toFixed(1)),
      mibPerSecond: Number((size / mebibyte / measured.seconds).toFixed(1)),
    })
  } finally {
    await sim.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

await main()
