import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { AppError } from '../../shared/app-error.ts'
import { createPrivateFolderAsync, makeFilesPrivateAsync } from '../../shared/private-files.ts'
import type { Attachment } from './outbox-item.ts'

/**
 * `<dataDir>/outbox/attachments/`: a copy of every file queued, made when it is queued, so that the
 * original may move or change before the upload. The folder is 0700 and each copy 0600. A copy is named by a random id (its original
 * name is kept with its item and sent as the file name); it is deleted once the item is sent or
 * discarded.
 */
export class AttachmentFolder {
  readonly dir: string

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
      const copied = await fs.promises.stat(copy)
      return { path: copy, name, size: copied.size }
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
   * Deletes a copy, in the background (a deletion may take milliseconds on a slow disk, which the
   * sender must not wait for); a copy already gone is fine, and one left behind is swept later.
   */
  remove(attachment: Attachment): void {
    if (path.dirname(attachment.path) !== this.dir) return
    fs.promises.unlink(attachment.path).catch(() => {})
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
      if (needed.has(copy) || now - fs.statSync(copy).mtimeMs < graceMs) continue
      fs.rmSync(copy, { recursive: true, force: true })
      removed++
    }
    return removed
  }
}
