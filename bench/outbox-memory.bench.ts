/**
 * Resident memory of a process that uploads a 1 GiB file through the outbox: growth from just
 * before the upload to its peak, beside the file's size measured in the same run (a ratio near 1
 * means the file was held whole). The receiving server hashes the file part as it arrives and
 * keeps nothing: the simulator stores files in SQLite, whose blobs stop at about 512 MiB.
 *
 * Environment: BENCH_UPLOAD_MIB (default 1024).
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { uploadSink } from '../test/outbox/support/upload-sink.ts'
import { progress, report } from './report.ts'

const mebibyte = 1024 ** 2
const size = Number(process.env.BENCH_UPLOAD_MIB ?? 1024) * mebibyte
const child = path.join(import.meta.dirname, '..', 'test', 'outbox', 'support', 'upload-child.ts')
const goalMib = 64

async function writeFile(file: string): Promise<void> {
  const block = randomBytes(4 * mebibyte)
  const out = fs.createWriteStream(file)
  for (let written = 0; written < size; written += block.length) {
    const piece = block.subarray(0, Math.min(block.length, size - written))
    if (!out.write(piece)) await new Promise<void>((resolve) => out.once('drain', () => resolve()))
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  )
}

interface Measured {
  baselineRss: number
  peakRss: number
  state: string
  lastError: string | null
  seconds: number
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-bench-upload-'))
  const sink = await uploadSink()
  try {
    const file = path.join(dir, 'large.bin')
    progress(`writing ${size / mebibyte} MiB`)
    await writeFile(file)
    progress('uploading through the outbox in a process of its own')
    const measured = await new Promise<Measured>((resolve, reject) => {
      const run = spawn(process.execPath, ['--expose-gc', child], {
        env: {
          ...process.env,
          UPLOAD_CHILD_DATA_DIR: path.join(dir, 'data'),
          UPLOAD_CHILD_BASE_URL: sink.baseUrl,
          UPLOAD_CHILD_FILE: file,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      let stdout = ''
      run.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      run.on('exit', (code) =>
        code === 0 ? resolve(JSON.parse(stdout) as Measured) : reject(new Error(`exit ${code}`)),
      )
    })
    if (measured.state !== 'sent')
      throw new Error(`The upload ended ${measured.state}: ${measured.lastError}`)
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
      seconds: Number(measured.seconds.toFixed(1)),
    })
  } finally {
    await sink.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

await main()
