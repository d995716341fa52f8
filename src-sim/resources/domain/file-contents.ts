import fs from 'node:fs'
import path from 'node:path'
import type { Database } from 'better-sqlite3'

/**
 * The contents of attached files on disk: `<directory>/<id>`, written whole before the row that
 * names them is committed, so a row never points at half a file. Contents without a row (left by
 * a deleted run or molecule, or a crash) are swept at start.
 */

export function contentsPath(directory: string, id: number): string {
  return path.join(directory, String(id))
}

/** Moves an uploaded file (streamed to disk by the multipart reader) into place. */
export function keepContents(directory: string, id: number, uploaded: string): void {
  const target = contentsPath(directory, id)
  try {
    fs.renameSync(uploaded, target)
  } catch (error) {
    // Another file system (a --db file elsewhere than the temporary directory): copy it.
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
    const partial = `${target}.partial`
    fs.copyFileSync(uploaded, partial)
    fs.renameSync(partial, target)
  }
}

/** Writes seeded contents. */
export function writeContents(directory: string, id: number, bytes: Uint8Array): void {
  const target = contentsPath(directory, id)
  fs.writeFileSync(`${target}.partial`, bytes)
  fs.renameSync(`${target}.partial`, target)
}

export function readContents(directory: string, id: number): Buffer {
  return fs.readFileSync(contentsPath(directory, id))
}

export function removeContents(directory: string, id: number): void {
  fs.rmSync(contentsPath(directory, id), { force: true })
}

/** Deletes contents that no row names. */
export function sweepContents(db: Database, directory: string): void {
  const ids = new Set(
    (db.prepare(`SELECT id FROM uploaded_files`).pluck().all() as number[]).map(String),
  )
  for (const name of fs.readdirSync(directory)) {
    if (!ids.has(name)) fs.rmSync(path.join(directory, name), { force: true, recursive: true })
  }
}

/** Length of the base64 text of `size` bytes (with padding). */
export function base64Length(size: number): number {
  return Math.ceil(size / 3) * 4
}

/** 3 × 256 KiB: a whole number of base64 groups, so each piece encodes on its own. */
const pieceBytes = 3 * 256 * 1024

/**
 * The file's bytes as base64 text, a piece at a time. Exactly `size` bytes are encoded: a file
 * that changed size under the simulator fails the answer rather than send a wrong length.
 */
export async function* base64Chunks(file: string, size: number): AsyncGenerator<Uint8Array> {
  const handle = await fs.promises.open(file, 'r')
  try {
    const buffer = Buffer.alloc(Math.min(pieceBytes, Math.max(size, 1)))
    for (let offset = 0; offset < size;) {
      const wanted = Math.min(buffer.length, size - offset)
      const { bytesRead } = await handle.read(buffer, 0, wanted, offset)
      if (bytesRead === 0) throw new Error(`${file} is shorter than its row says`)
      // A short read leaves a piece that is not a whole number of groups: read the rest first.
      let filled = bytesRead
      while (filled < wanted) {
        const more = await handle.read(buffer, filled, wanted - filled, offset + filled)
        if (more.bytesRead === 0) throw new Error(`${file} is shorter than its row says`)
        filled += more.bytesRead
      }
      offset += filled
      yield Buffer.from(buffer.subarray(0, filled).toString('base64'), 'latin1')
    }
  } finally {
    await handle.close()
  }
}
