import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { AppError } from '../shared/app-error.ts'
import type { Logger } from '../shared/logger.ts'
import { createPrivateFolderAsync, privateFileMode } from '../shared/private-files.ts'
import type { OutboxItemView } from '../../src-common/outbox/item-view.ts'
import type { Outbox } from '../sync/outbox/outbox.ts'
import type { QueueRequest } from '../sync/outbox/queue-request.ts'

/** The largest file a window may hand over as bytes (where it cannot give a path). */
export const maxStagedBytes = 2 * 1024 ** 3
/** The largest chunk of one `outbox.stageChunk` request, before base64. */
export const maxChunkBytes = 1024 * 1024
/** Staged files a window may have at once (begun, not yet queued or dropped). */
const maxStaged = 64
/** Staged files left behind (a window closed mid-way, a crash) are deleted after a day. */
const staleMs = 86_400_000

/** A file handed over as bytes, as `outbox.stageFile` and `outbox.stageChunk` answer. */
export interface StagedFileView {
  /** Name it in `outbox.queueStaged` as `staged:<stagedId>`. */
  stagedId: string
  name: string
  size: number
  received: number
  complete: boolean
}

interface Staged {
  id: string
  name: string
  size: number
  received: number
  path: string
  writing: boolean
}

const stagedPrefix = 'staged:'

/**
 * The renderer's side of the outbox that the outbox itself does not need: files handed over as
 * bytes where the host gives no local path (the browser harness; a file pasted in Electron), and
 * the history of what was sent, newest first.
 *
 * A staged file is written in order, chunk by chunk, to `<dataDir>/outbox/staged/<id>/<name>`
 * (folders 0700, the file 0600);
 * `queueStaged` queues it exactly as a dropped file (the outbox copies it into its attachments)
 * and then deletes it. A file staged but never queued is deleted by `unstage`, or after a day.
 */
export class OutboxDesk {
  readonly #outbox: Outbox
  readonly #dir: string
  readonly #log: Logger
  readonly #staged = new Map<string, Staged>()

  constructor(options: { dataDir: string; outbox: Outbox; log: Logger; now?: () => number }) {
    this.#outbox = options.outbox
    this.#dir = path.join(options.dataDir, 'outbox', 'staged')
    this.#log = options.log
    this.#sweep((options.now ?? Date.now)())
  }

  /** Starts a file of `size` bytes named `name` (a file name, not a path). */
  async stage(name: string, size: number): Promise<StagedFileView> {
    const fileName = checkedName(name)
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new AppError('invalid_argument', `The size of ${fileName} must be a whole number.`)
    }
    if (size > maxStagedBytes) {
      throw new AppError(
        'invalid_argument',
        `${fileName} is larger than ${maxStagedBytes / 1024 ** 3} GiB, which this window cannot hand over; attach it with the desktop app or 'vault-desk upload'.`,
      )
    }
    if (this.#staged.size >= maxStaged) {
      throw new AppError(
        'conflict',
        `${maxStaged} files are already being handed over; queue or drop some first.`,
      )
    }
    const id = randomUUID()
    const file = path.join(this.#dir, id, fileName)
    try {
      await createPrivateFolderAsync(path.dirname(file))
      await fs.promises.writeFile(file, new Uint8Array(0), { mode: privateFileMode })
    } catch (error) {
      throw new AppError('storage', `Cannot keep ${fileName}: ${(error as Error).message}`, {
        cause: error,
      })
    }
    const staged: Staged = { id, name: fileName, size, received: 0, path: file, writing: false }
    this.#staged.set(id, staged)
    return view(staged)
  }

  /** Writes the next chunk (base64); chunks come in order, each where the last one ended. */
  async chunk(stagedId: string, offset: number, data: string): Promise<StagedFileView> {
    const staged = this.#require(stagedId)
    if (staged.writing) {
      throw new AppError(
        'conflict',
        `A chunk of ${staged.name} is still being written; send the chunks one after another.`,
      )
    }
    if (offset !== staged.received) {
      throw new AppError(
        'invalid_argument',
        `The next chunk of ${staged.name} starts at byte ${staged.received}, not ${offset}.`,
      )
    }
    const bytes = decodeBase64(data)
    if (bytes.length > maxChunkBytes) {
      throw new AppError('invalid_argument', `A chunk holds at most ${maxChunkBytes} bytes.`)
    }
    if (staged.received + bytes.length > staged.size) {
      throw new AppError(
        'invalid_argument',
        `${staged.name} was announced as ${staged.size} bytes; this chunk goes past its end.`,
      )
    }
    staged.writing = true
    try {
      const handle = await fs.promises.open(staged.path, 'r+')
      try {
        await handle.write(bytes, 0, bytes.length, offset)
      } finally {
        await handle.close()
      }
      staged.received += bytes.length
    } catch (error) {
      throw new AppError('storage', `Cannot keep ${staged.name}: ${(error as Error).message}`, {
        cause: error,
      })
    } finally {
      staged.writing = false
    }
    return view(staged)
  }

  /** Drops a staged file (the person gave up, or it was queued elsewhere). */
  unstage(stagedId: string): { discarded: boolean } {
    const staged = this.#staged.get(stagedId)
    if (!staged) return { discarded: false }
    this.#remove(staged)
    return { discarded: true }
  }

  /**
   * Queues a request whose files are staged (`staged:<id>` in place of each path), as
   * `outbox.queue` would with paths. The staged files are deleted once queued; if queueing
   * fails (a refused setting, say), they stay so that the person can correct it and try again.
   */
  async queueStaged(request: QueueRequest): Promise<OutboxItemView[]> {
    const used: Staged[] = []
    const resolve = (reference: string): string => {
      if (!reference.startsWith(stagedPrefix)) {
        throw new AppError(
          'invalid_argument',
          `Give each file as staged:<id> (from outbox.stageFile), not "${reference}".`,
        )
      }
      const staged = this.#require(reference.slice(stagedPrefix.length))
      if (staged.received !== staged.size) {
        throw new AppError(
          'invalid_argument',
          `${staged.name} is not complete: ${staged.received} of ${staged.size} bytes arrived.`,
        )
      }
      used.push(staged)
      return staged.path
    }
    let resolved: QueueRequest
    switch (request.operation) {
      case 'file.attach':
      case 'slurp.create':
        resolved = { ...request, file: resolve(request.file) }
        break
      case 'eln.append':
        resolved = {
          ...request,
          body: request.body.map((block) =>
            block.type === 'file' && 'path' in block
              ? { ...block, path: resolve(block.path) }
              : block,
          ),
        }
        break
      default:
        resolved = request
    }
    const items = await this.#outbox.queue(resolved)
    for (const staged of used) this.#remove(staged)
    return items
  }

  /** Sent and discarded items, newest first (the outbox keeps 30 days of them). */
  history(filter: { connectionId?: string; limit?: number } = {}): OutboxItemView[] {
    const items = this.#outbox.list({
      states: ['sent', 'cancelled'],
      ...(filter.connectionId ? { connectionId: filter.connectionId } : {}),
    })
    return items
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || b.id - a.id)
      .slice(0, filter.limit ?? 50)
  }

  /** Deletes every staged file (the services are closing). */
  close(): void {
    for (const staged of [...this.#staged.values()]) this.#remove(staged)
  }

  #require(stagedId: string): Staged {
    const staged = this.#staged.get(stagedId)
    if (!staged) {
      throw new AppError(
        'not_found',
        'That file is no longer waiting to be queued; drop or choose it again.',
      )
    }
    return staged
  }

  #remove(staged: Staged): void {
    this.#staged.delete(staged.id)
    fs.promises
      .rm(path.dirname(staged.path), { recursive: true, force: true })
      .catch((error: unknown) =>
        this.#log.warn('a staged file could not be deleted', { error: String(error) }),
      )
  }

  /** Deletes staged files older than a day, left by a window or a process that went away. */
  #sweep(now: number): void {
    let names: string[]
    try {
      names = fs.readdirSync(this.#dir)
    } catch {
      return
    }
    for (const name of names) {
      const folder = path.join(this.#dir, name)
      try {
        if (now - fs.statSync(folder).mtimeMs > staleMs) {
          fs.rmSync(folder, { recursive: true, force: true })
        }
      } catch (error) {
        this.#log.warn('a staged file could not be swept', { error: String(error) })
      }
    }
  }
}

function view(staged: Staged): StagedFileView {
  return {
    stagedId: staged.id,
    name: staged.name,
    size: staged.size,
    received: staged.received,
    complete: staged.received === staged.size,
  }
}

/** A file's own name; never a path, nor a name the file system would read otherwise. */
function checkedName(name: string): string {
  const trimmed = name.trim()
  // eslint-disable-next-line no-control-regex
  if (/[/\\\u0000-\u001f]/.test(trimmed) || trimmed === '' || trimmed === '.' || trimmed === '..') {
    throw new AppError(
      'invalid_argument',
      `"${name.slice(0, 80)}" is not a file name (no folders, no control characters).`,
    )
  }
  if (Buffer.byteLength(trimmed) > 255) {
    throw new AppError('invalid_argument', 'A file name may have at most 255 bytes.')
  }
  return trimmed
}

function decodeBase64(data: string): Buffer {
  if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) {
    throw new AppError('invalid_argument', 'A chunk must be base64 (RFC 4648, padded).')
  }
  return Buffer.from(data, 'base64')
}
