/**
 * The file an export is written to. It is written under a temporary name in the target's folder
 * and renamed to the target only once complete and flushed to disk, so a cancelled or failed
 * export leaves no file at all, and an earlier file of that name stays whole until the new one
 * replaces it. A folder that does not exist or cannot be written is refused before anything is
 * written, with a message that says which.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { Writable } from 'node:stream'
import { AppError } from '../shared/app-error.ts'
import { outputError } from './output.ts'

/** Opens the temporary file's stream (tests put a failing disk here). */
export type OpenStream = (temporaryPath: string) => Promise<Writable>

export class TargetFile {
  readonly path: string
  readonly temporaryPath: string
  readonly stream: Writable
  #settled = false

  private constructor(target: string, temporaryPath: string, stream: Writable) {
    this.path = target
    this.temporaryPath = temporaryPath
    this.stream = stream
  }

  static async create(
    target: string,
    openStream: OpenStream = openFileStream,
  ): Promise<TargetFile> {
    if (!path.isAbsolute(target)) {
      throw new AppError(
        'invalid_argument',
        `The export's file must be a full path, not ${target}.`,
      )
    }
    const folder = path.dirname(target)
    await checkFolder(folder)
    const existing = await fs.promises.stat(target).catch(() => null)
    if (existing?.isDirectory()) {
      throw new AppError('invalid_argument', `${target} is a folder: name a file to export to.`)
    }
    const temporaryPath = path.join(
      folder,
      `.${path.basename(target)}.${randomBytes(4).toString('hex')}.partial`,
    )
    let stream: Writable
    try {
      stream = await openStream(temporaryPath)
    } catch (error) {
      throw folderError(error, folder)
    }
    return new TargetFile(target, temporaryPath, stream)
  }

  /**
   * Renames the complete file to its name, once its stream has ended (and so been flushed to
   * disk); a failure to do so removes it.
   */
  async complete(): Promise<void> {
    if (this.#settled) return
    this.#settled = true
    try {
      await fs.promises.rename(this.temporaryPath, this.path)
    } catch (error) {
      await removeQuietly(this.temporaryPath)
      throw new AppError(
        'storage',
        `The export could not be saved as ${this.path}: ${(error as Error).message}`,
        { cause: error },
      )
    }
  }

  /** Stops writing and removes the temporary file: nothing of the export is left. */
  async discard(): Promise<void> {
    if (this.#settled) return
    this.#settled = true
    if (!this.stream.destroyed) {
      const closed = new Promise((resolve) => this.stream.once('close', resolve))
      this.stream.destroy()
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1000))])
    }
    await removeQuietly(this.temporaryPath)
  }
}

/**
 * A new file's stream, flushed to disk before it closes (a file renamed into place is whole). It
 * takes a page of records before it asks the writer to wait (an SD page is megabytes): with the
 * default 16 KB, every page waited for the disk before the next was handed over.
 */
async function openFileStream(temporaryPath: string): Promise<Writable> {
  const handle = await fs.promises.open(temporaryPath, 'wx')
  return handle.createWriteStream({ flush: true, highWaterMark: 4 * 1024 * 1024 })
}

async function checkFolder(folder: string): Promise<void> {
  let stats: fs.Stats
  try {
    stats = await fs.promises.stat(folder)
  } catch (error) {
    throw folderError(error, folder)
  }
  if (!stats.isDirectory()) {
    throw new AppError(
      'invalid_argument',
      `${folder} is not a folder: choose a folder to export to.`,
    )
  }
}

function folderError(error: unknown, folder: string): AppError {
  const code = (error as NodeJS.ErrnoException).code
  switch (code) {
    case 'ENOENT':
      return new AppError(
        'invalid_argument',
        `The folder ${folder} does not exist: choose a folder that does.`,
        { cause: error },
      )
    case 'ENOTDIR':
      return new AppError('invalid_argument', `${folder} is not a folder.`, { cause: error })
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new AppError(
        'invalid_argument',
        `The folder ${folder} cannot be written to (${code === 'EROFS' ? 'it is on a read-only disk' : 'it is read-only for you'}): choose another folder.`,
        { cause: error },
      )
    default:
      return outputError(error instanceof Error ? error : new Error(String(error)))
  }
}

async function removeQuietly(file: string): Promise<void> {
  await fs.promises.rm(file, { force: true }).catch(() => {})
}
