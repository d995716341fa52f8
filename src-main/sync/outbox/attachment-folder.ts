import { createHash, randomUUID } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { AppError } from '../../shared/app-error.ts'
import { createPrivateFolderAsync, makeFilesPrivateAsync } from '../../shared/private-files.ts'
import type { Attachment } from './outbox-item.ts'

/**
 * `<dataDir>/outbox/attachments/`: a copy of every file queued, made when it is queued, so that the
 * original may move or change before the upload. The folder is 0700 and each copy 0600. A copy is
 * named by a random id (its original name is kept with its item and sent as the file name). It is
 * on disk, with its size and SHA-256 recorded, before its item is committed; it is checked against
 * them before each attempt, and deleted once the item's end (sent, discarded) is on disk.
 */
export class AttachmentFolder {
  readonly dir: string
  /** The folder's own entry in its parent is synced once, after it may have been created. */
  #parentSynced = false

  constructor(dir: string) {
    this.dir = dir
  }

  /** Copies a file in; `extensions` limits the types accepted (imports). */
  async copy(source: string, extensions?: readonly string[]): Promise<Attachment> {
    const name = path.basename(source)
    let stat: fs.Stats
    try {
      stat = await fs.promises.stat(source)
    } catch (error) {
      throw new AppError(
        'invalid_argument',
        `Cannot read ${source}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}.`,
        { cause: error },
      )
    }
    if (!stat.isFile()) throw new AppError('invalid_argument', `${source} is not a file.`)
    if (extensions && !extensions.includes(path.extname(name).toLowerCase())) {
      throw new AppError(
        'invalid_argument',
        `${name} cannot be imported: an import takes ${extensions.join(', ')} files.`,
      )
    }
    const copy = path.join(this.dir, randomUUID())
    try {
      await createPrivateFolderAsync(this.dir)
      // A clone where the file system can make one; otherwise a copy streamed by the OS.
      await fs.promises.copyFile(source, copy, fs.constants.COPYFILE_FICLONE)
      // A copy takes the mode of its original (often readable to all); it is the person's alone.
      await makeFilesPrivateAsync([copy])
      // The item's row is committed durably next: the copy and its name in the folder must be on
      // disk first, or a power cut leaves an item pointing at an empty or cut file.
      const { size, sha256 } = await digestAndSync(copy)
      await syncFolder(this.dir)
      if (!this.#parentSynced) {
        await syncFolder(path.dirname(this.dir))
        this.#parentSynced = true
      }
      return { path: copy, name, size, sha256, source: path.resolve(source) }
    } catch (error) {
      await fs.promises.rm(copy, { force: true })
      throw new AppError(
        'storage',
        `Cannot copy ${source} into the outbox: ${(error as Error).message}`,
        {
          cause: error,
        },
      )
    }
  }

  /**
   * Why the copy of a queued file cannot be sent (gone, cut short, changed since it was queued),
   * in words that offer the original; null when it is what was queued.
   */
  async problemWith(attachment: Attachment): Promise<string | null> {
    const original = attachment.source ?? attachment.name
    const queueAgain = `queue ${original} again`
    let found: { size: number; sha256: string }
    try {
      found = await digest(attachment.path)
    } catch (error) {
      const reason =
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'is missing'
          : `cannot be read (${(error as Error).message})`
      return `The copy of ${attachment.name} kept for sending ${reason}; ${queueAgain}.`
    }
    if (found.size !== attachment.size) {
      return `The copy of ${attachment.name} kept for sending has ${found.size} of its ${attachment.size} bytes; ${queueAgain}.`
    }
    if (attachment.sha256 !== null && found.sha256 !== attachment.sha256) {
      return `The copy of ${attachment.name} kept for sending no longer matches the file queued; ${queueAgain}.`
    }
    return null
  }

  /**
   * Deletes a copy, in the background (a deletion may take milliseconds on a slow disk, which the
   * sender must not wait for); a copy already gone is fine, and one left behind is swept later.
   */
  remove(attachment: Attachment): void {
    if (path.dirname(attachment.path) !== this.dir) return
    fs.promises.unlink(attachment.path).catch(() => {})
  }

  /**
   * Deletes a copy once `durable` resolves (the commit that ended its item is on disk); kept when
   * it rejects, for the sweep of a later start, as the item may need it again.
   */
  removeOnceDurable(attachment: Attachment, durable: Promise<void>): void {
    durable.then(
      () => this.remove(attachment),
      () => {},
    )
  }

  /**
   * Deletes copies no item needs (left by a process that died while queueing), sparing those
   * younger than `graceMs`: another process may be queueing them right now.
   */
  sweep(needed: ReadonlySet<string>, now: number, graceMs = 3_600_000): number {
    if (!fs.existsSync(this.dir)) return 0
    let removed = 0
    for (const name of fs.readdirSync(this.dir)) {
      const copy = path.join(this.dir, name)
      try {
        if (needed.has(copy) || now - fs.statSync(copy).mtimeMs < graceMs) continue
        fs.rmSync(copy, { recursive: true, force: true })
        removed++
      } catch {
        // Gone meanwhile, or not deletable now (a read-only folder): a later sweep tries again.
      }
    }
    return removed
  }
}

/** A file's size and SHA-256, read in one pass. */
async function digest(file: string): Promise<{ size: number; sha256: string }> {
  const handle = await fs.promises.open(file, 'r')
  try {
    return await digestOf(handle)
  } finally {
    await handle.close()
  }
}

/** A new file's size and SHA-256, and the file synced to disk. */
async function digestAndSync(file: string): Promise<{ size: number; sha256: string }> {
  const handle = await fs.promises.open(file, 'r+')
  try {
    const found = await digestOf(handle)
    await handle.sync()
    return found
  } finally {
    await handle.close()
  }
}

async function digestOf(handle: fs.promises.FileHandle): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256')
  const buffer = Buffer.allocUnsafe(1 << 20)
  let size = 0
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, size)
    if (bytesRead === 0) break
    hash.update(buffer.subarray(0, bytesRead))
    size += bytesRead
  }
  return { size, sha256: hash.digest('hex') }
}

/** Makes a folder's entries durable (a new file's name); Windows records them with the file. */
async function syncFolder(folder: string): Promise<void> {
  if (process.platform === 'win32') return
  const handle = await fs.promises.open(folder, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
