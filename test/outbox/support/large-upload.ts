import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { VaultSim } from '../../../src-sim/index.ts'

const mebibyte = 1024 ** 2
const child = path.join(import.meta.dirname, 'upload-child.ts')

/** Writes `size` bytes of a repeated random block; answers their SHA-256. */
export async function bigFile(file: string, size: number): Promise<string> {
  const block = randomBytes(4 * mebibyte)
  const hash = createHash('sha256')
  const out = fs.createWriteStream(file)
  for (let written = 0; written < size; written += block.length) {
    const piece = block.subarray(0, Math.min(block.length, size - written))
    hash.update(piece)
    if (!out.write(piece)) await new Promise<void>((resolve) => out.once('drain', () => resolve()))
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  )
  return hash.digest('hex')
}

/** The SHA-256 of a file, read a piece at a time. */
export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 4 * mebibyte })) {
    hash.update(chunk as Buffer)
  }
  return hash.digest('hex')
}

export interface MeasuredUpload {
  baselineRss: number
  peakRss: number
  peaks: { heapTotal: number; external: number; arrayBuffers: number }
  state: string
  lastError: string | null
  serverId: number | null
  sentBytes: number
  size: number
  seconds: number
}

/** An ELN entry of the simulator's main vault that files may be attached to, by its writer. */
export async function uploadTarget(
  sim: VaultSim,
): Promise<{ token: string; vaultId: number; entryId: number }> {
  const token = sim.cast.users.writer.tokens[0]!
  const vaultId = sim.cast.vaults.main.id
  const response = await fetch(`${sim.baseUrl}/vaults/${vaultId}/eln/entries`, {
    method: 'POST',
    headers: { 'X-SVC-Token': token, 'Content-Type': 'application/json' },
    body: JSON.stringify({ title: 'Plate reader exports', project: sim.cast.projects.kinase.id }),
  })
  if (!response.ok) throw new Error(`Cannot create the ELN entry: ${response.status}`)
  const entry = (await response.json()) as { id: number | string }
  return { token, vaultId, entryId: Number(entry.id) }
}

/**
 * Uploads `file` through the outbox in a process of its own (upload-child.ts) to the simulator,
 * which runs in this process, and answers what that process measured of its own memory.
 */
export function uploadInChild(
  sim: VaultSim,
  target: { token: string; vaultId: number; entryId: number },
  file: string,
  dataDir: string,
): Promise<MeasuredUpload> {
  return new Promise((resolve, reject) => {
    const run = spawn(process.execPath, ['--expose-gc', child], {
      env: {
        ...process.env,
        UPLOAD_CHILD_DATA_DIR: dataDir,
        UPLOAD_CHILD_BASE_URL: sim.baseUrl,
        UPLOAD_CHILD_TOKEN: target.token,
        UPLOAD_CHILD_VAULT_ID: String(target.vaultId),
        UPLOAD_CHILD_ENTRY_ID: String(target.entryId),
        UPLOAD_CHILD_FILE: file,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let stdout = ''
    run.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    run.on('error', reject)
    run.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(stdout) as MeasuredUpload)
        : reject(new Error(`The upload process exited with ${code}.`)),
    )
  })
}
