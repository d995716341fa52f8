import { createHash, randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { ApiError } from '../../api/errors.ts'
import type { FilesApi } from '../../api/resources/files.ts'
import type { Priority } from '../../api/limiter.ts'
import { createPrivateFolderAsync, privateFileMode } from '../../shared/private-files.ts'
import { AnswerEndedEarlyError, AnswerFormatError, ContentsDecoder } from './contents-decoder.ts'

/**
 * Fetches one attachment's contents to disk: the vault's JSON answer is read as a stream, its
 * base64 contents decoded piece by piece (contents-decoder.ts) into a private temporary file while
 * its size and SHA-256 are counted, then synced and renamed into place. Memory holds a few pieces
 * whatever the size of the file (bench/attachments.bench.ts).
 *
 * A file whose bytes disagree with the size the vault gave, or whose answer ended early or was not
 * what the specification describes, is moved to the quarantine folder and reported, never put in
 * place. A download cut by the network or cancelled leaves nothing behind.
 */

export interface AttachmentFolders {
  /** Fetched contents, one file per vault and file id. */
  contents: string
  /** Contents being written (removed at start: whatever is there was cut short). */
  partial: string
  /** Contents that failed their checks, kept for the person to look at. */
  quarantine: string
}

export function attachmentFolders(root: string): AttachmentFolders {
  return {
    contents: path.join(root, 'contents'),
    partial: path.join(root, 'partial'),
    quarantine: path.join(root, 'quarantine'),
  }
}

/**
 * The contents' file name: the vault and file ids, and the ending of the file's name (letters and
 * digits only), by which the system chooses the application that opens it.
 */
export function storedName(vaultId: number, fileId: number, name: string | null): string {
  const ending = /\.([A-Za-z0-9]{1,12})$/.exec(name ?? '')?.[1]?.toLowerCase()
  return `${vaultId}-${fileId}${ending ? `.${ending}` : ''}`
}

export interface FetchRequest {
  files: FilesApi
  folders: AttachmentFolders
  vaultId: number
  fileId: number
  signal?: AbortSignal
  priority?: Priority
}

export interface FileDetails {
  name: string | null
  mimeType: string | null
  /** The size the vault gave with the file, when it gave one. */
  declaredSize: number | null
}

export type FetchOutcome =
  | (FileDetails & {
      state: 'fetched'
      path: string
      storedAs: string
      size: number
      sha256: string
    })
  | (FileDetails & { state: 'quarantined'; path: string; size: number; reason: string })

export async function fetchAttachment(request: FetchRequest): Promise<FetchOutcome> {
  const { folders, vaultId, fileId } = request
  await Promise.all([
    createPrivateFolderAsync(folders.contents),
    createPrivateFolderAsync(folders.partial),
  ])
  const partial = path.join(folders.partial, `${vaultId}-${fileId}-${randomUUID()}.part`)
  const download = await request.files.openContents(vaultId, fileId, {
    ...(request.signal ? { signal: request.signal } : {}),
    priority: request.priority ?? 'background',
  })
  const decoder = new ContentsDecoder()
  const hash = createHash('sha256')
  let handle: fs.FileHandle | undefined
  let problem: string | null = null
  try {
    handle = await fs.open(partial, 'wx', privateFileMode)
    try {
      for await (const chunk of download.chunks) {
        for (const piece of decoder.push(chunk)) {
          hash.update(piece)
          await handle.write(piece)
        }
      }
      decoder.finish()
    } catch (error) {
      if (!(error instanceof AnswerFormatError)) throw error
      problem =
        error instanceof AnswerEndedEarlyError
          ? `the vault's answer ended early: ${error.message}`
          : `the vault's answer is not a file as the specification describes it: ${error.message}`
    }
    await handle.sync()
    await handle.close()
    handle = undefined
    const details = detailsOf(decoder.members)
    const size = decoder.decodedBytes
    if (problem === null && details.declaredSize !== null && details.declaredSize !== size) {
      problem = `the vault gave its size as ${details.declaredSize} bytes, but ${size} bytes arrived`
    }
    if (problem !== null) {
      const kept = await quarantine(folders, partial, vaultId, fileId)
      return { ...details, state: 'quarantined', path: kept, size, reason: problem }
    }
    const storedAs = storedName(vaultId, fileId, details.name)
    const target = path.join(folders.contents, storedAs)
    await fs.rename(partial, target)
    await syncFolder(folders.contents)
    return {
      ...details,
      state: 'fetched',
      path: target,
      storedAs,
      size,
      sha256: hash.digest('hex'),
    }
  } catch (error) {
    await handle?.close().catch(() => {})
    await fs.rm(partial, { force: true })
    if (request.signal?.aborted && !(error instanceof ApiError && error.kind === 'cancelled')) {
      throw new ApiError({
        kind: 'cancelled',
        operation: 'files.get',
        message: 'cancelled.',
        cause: error,
      })
    }
    throw error
  } finally {
    download.close()
  }
}

/** Removes what cut-short fetches left (a crash, a killed process). */
export function clearPartial(folders: AttachmentFolders): void {
  rmSync(folders.partial, { recursive: true, force: true })
}

function detailsOf(members: Readonly<Record<string, unknown>>): FileDetails {
  const mime = members.mime_type
  const mimeType =
    typeof mime === 'string'
      ? mime
      : mime !== null &&
          typeof mime === 'object' &&
          typeof (mime as { string?: unknown }).string === 'string'
        ? (mime as { string: string }).string
        : null
  const size = members.size
  return {
    name: typeof members.name === 'string' ? members.name : null,
    mimeType,
    declaredSize: typeof size === 'number' && Number.isSafeInteger(size) && size >= 0 ? size : null,
  }
}

async function quarantine(
  folders: AttachmentFolders,
  partial: string,
  vaultId: number,
  fileId: number,
): Promise<string> {
  await createPrivateFolderAsync(folders.quarantine)
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  const kept = path.join(folders.quarantine, `${vaultId}-${fileId}-${stamp}`)
  await fs.rename(partial, kept)
  return kept
}

/** Makes a rename durable (POSIX); Windows cannot open a folder for this and needs nothing. */
async function syncFolder(folder: string): Promise<void> {
  if (process.platform === 'win32') return
  const handle = await fs.open(folder, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
