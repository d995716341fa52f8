/**
 * Fetching a 200 MiB attachment from the simulator: the vault answers it as base64 inside JSON
 * (about 267 MiB of text), and the fetcher decodes it as it streams to disk
 * (src-main/sync/attachments/fetcher.ts). Measured: resident memory growth from just before the
 * fetch to its peak (sampled every 10 ms), and the time; beside the same answer read through the
 * same client and copied to a file byte for byte, untouched (a bare stream copy), in the same run.
 * The simulator serves both from this process, so its share of memory is in both.
 * Goal (issue 28): growth under 64 MiB.
 *
 * Environment: BENCH_ATTACHMENT_MIB (default 200).
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { VaultClient } from '../src-main/api/client.ts'
import { LimiterRegistry } from '../src-main/api/limiter-registry.ts'
import { attachmentFolders, fetchAttachment } from '../src-main/sync/attachments/fetcher.ts'
import { startVaultSim } from '../src-sim/index.ts'
import { progress, report } from './report.ts'

const mebibyte = 1024 ** 2
const size = Number(process.env.BENCH_ATTACHMENT_MIB ?? 200) * mebibyte
const goalMib = 64

/** Writes `bytes` of pseudo-random data a piece at a time; answers their SHA-256. */
function writeBigFile(file: string, bytes: number): string {
  const hash = createHash('sha256')
  const handle = fs.openSync(file, 'w')
  const piece = Buffer.alloc(4 * mebibyte)
  let seed = 12345
  try {
    for (let written = 0; written < bytes; written += piece.length) {
      for (let at = 0; at < piece.length; at += 4) {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
        piece.writeUInt32LE(seed, at)
      }
      const part = piece.subarray(0, Math.min(piece.length, bytes - written))
      hash.update(part)
      fs.writeSync(handle, part)
    }
  } finally {
    fs.closeSync(handle)
  }
  return hash.digest('hex')
}

/** Peak resident memory above the level just before `work`, sampled while it runs. */
async function measure<T>(work: () => Promise<T>) {
  globalThis.gc?.()
  await new Promise((resolve) => setTimeout(resolve, 200))
  const baseline = process.memoryUsage().rss
  let peak = baseline
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 10)
  const started = performance.now()
  try {
    const result = await work()
    peak = Math.max(peak, process.memoryUsage().rss)
    return {
      result,
      growthMib: (peak - baseline) / mebibyte,
      seconds: (performance.now() - started) / 1000,
    }
  } finally {
    clearInterval(sampler)
  }
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-bench-attachment-'))
  const sim = await startVaultSim({ port: 0, seed: 'empty' })
  try {
    const vaultId = sim.cast.vaults.main.id
    const client = new VaultClient({
      baseUrl: sim.baseUrl,
      token: sim.cast.users.admin.tokens[0]!,
      limiters: new LimiterRegistry(),
    })
    const source = path.join(dir, 'spectra.bin')
    progress(`writing ${size / mebibyte} MiB`)
    const sha256 = writeBigFile(source, size)
    const entry = await client.elnEntries.create(vaultId, {
      title: 'Bench',
      project: sim.cast.projects.kinase.id,
      eln_fields: {},
    })
    progress('attaching it to a notebook entry')
    const { id: fileId } = await client.files.attach(vaultId, {
      file: source,
      resource_class: 'eln_entry',
      resource_id: entry.id,
    })
    fs.rmSync(source)

    progress('reference: the same answer copied to a file as it comes')
    const bare = await measure(async () => {
      const download = await client.files.openContents(vaultId, fileId)
      const handle = await fs.promises.open(path.join(dir, 'answer.json'), 'w')
      let bytes = 0
      try {
        for await (const chunk of download.chunks) {
          await handle.write(chunk)
          bytes += chunk.length
        }
        await handle.sync()
      } finally {
        await handle.close()
        download.close()
      }
      return bytes
    })
    fs.rmSync(path.join(dir, 'answer.json'))

    progress('the fetcher: decoded as it streams, hashed, synced, renamed')
    const fetched = await measure(() =>
      fetchAttachment({
        files: client.files,
        folders: attachmentFolders(path.join(dir, 'attachments')),
        vaultId,
        fileId,
      }),
    )
    const outcome = fetched.result
    if (outcome.state !== 'fetched' || outcome.sha256 !== sha256 || outcome.size !== size) {
      throw new Error(`The fetched file differs: ${JSON.stringify(outcome)}`)
    }
    const mibPerSecond = (bytes: number, seconds: number) =>
      Number((bytes / mebibyte / seconds).toFixed(1))
    progress(
      `fetcher grew ${fetched.growthMib.toFixed(1)} MiB in ${fetched.seconds.toFixed(1)} s; ` +
        `bare copy ${bare.growthMib.toFixed(1)} MiB in ${bare.seconds.toFixed(1)} s`,
    )
    report({
      name: `attachment ${size / mebibyte} MiB fetch resident memory growth`,
      value: Number(fetched.growthMib.toFixed(1)),
      unit: 'MiB',
      reference: 'bare stream copy of the same answer to a file (MiB growth)',
      referenceValue: Number(bare.growthMib.toFixed(1)),
      ratio: Number((fetched.growthMib / Math.max(bare.growthMib, 0.1)).toFixed(2)),
      goal: `growth < ${goalMib} MiB`,
      met: fetched.growthMib < goalMib,
      answerMiB: Number((bare.result / mebibyte).toFixed(1)),
    })
    report({
      name: `attachment ${size / mebibyte} MiB fetch time`,
      value: Number(fetched.seconds.toFixed(2)),
      unit: 's',
      reference: 'bare stream copy of the same answer to a file (s)',
      referenceValue: Number(bare.seconds.toFixed(2)),
      ratio: Number((fetched.seconds / bare.seconds).toFixed(2)),
      fileMibPerSecond: mibPerSecond(size, fetched.seconds),
      answerMibPerSecond: mibPerSecond(bare.result, bare.seconds),
    })
  } finally {
    await sim.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

await main()
