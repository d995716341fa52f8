/**
 * Saving an export from the browser preview, which has no save dialog: the file is written in the
 * data folder, under a folder named by a random token, and the page downloads it from
 * `/downloads/<token>/<name>` once the export has completed (the harness serves that address only
 * behind its cookie check, `access.ts`). It is served once: the first request takes it, and the
 * file is removed once sent. An export (or a saved search run on the vault, downloaded the same
 * way) that fails or is cancelled leaves no file, and its address is forgotten with its folder; whatever is left when the harness closes is removed then.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import type http from 'node:http'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { SaveTarget } from '../ipc/app/contract.ts'
import { saveFileName, type DesktopShell, type SavePathRequest } from '../ipc/app/desktop-shell.ts'
import { AppError } from '../shared/app-error.ts'
import type { EventBus } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'

export const downloadPrefix = '/downloads/'

interface Download {
  folder: string
  file: string
  name: string
}

/** Folders of earlier runs that ended without closing (a crash) go after this long. */
const leftoverAgeMs = 24 * 60 * 60 * 1000

export class Downloads implements DesktopShell {
  /** This run's own folder, so that two previews of one data folder never touch each other's. */
  readonly #root: string
  readonly #log: Logger
  readonly #waiting = new Map<string, Download>()
  readonly #stopEvents: () => void

  /** `folder` holds every run's downloads (`<dataDir>/downloads`). */
  constructor(folder: string, events: EventBus, log: Logger) {
    this.#root = path.join(folder, `run-${randomBytes(6).toString('hex')}`)
    this.#log = log
    const forgetUnfinished = ({ state, path: file }: { state: string; path: string }) => {
      if (state === 'failed' || state === 'cancelled') this.#forget(file)
    }
    const stops = [
      events.on('exports.progress', forgetUnfinished),
      events.on('searches.vaultRun', forgetUnfinished),
    ]
    this.#stopEvents = () => stops.forEach((stop) => stop())
    removeLeftovers(folder, log)
  }

  async chooseSavePath({ format, suggestedName }: SavePathRequest): Promise<SaveTarget> {
    const name = saveFileName(suggestedName, format)
    const token = randomBytes(24).toString('base64url')
    const folder = path.join(this.#root, token)
    await fs.promises.mkdir(folder, { recursive: true })
    const file = path.join(folder, name)
    this.#waiting.set(token, { folder, file, name })
    return { path: file, name, download: `${downloadPrefix}${token}/${encodeURIComponent(name)}` }
  }

  showInFolder(): Promise<void> {
    return Promise.reject(
      new AppError(
        'invalid_argument',
        'The browser preview cannot show a folder: its exports are in your browser’s downloads.',
      ),
    )
  }

  /** Answers a request for `/downloads/…`: the file once, then it is removed. */
  async serve(
    rawPath: string,
    response: http.ServerResponse,
    headers: http.OutgoingHttpHeaders,
    headOnly: boolean,
  ): Promise<void> {
    const [token = '', encodedName = '', ...rest] = rawPath.slice(downloadPrefix.length).split('/')
    const download = this.#waiting.get(token)
    if (!download || rest.length > 0 || decoded(encodedName) !== download.name) {
      return notFound(response, headers, 'No such download: it was already taken, or never was.')
    }
    const stats = await fs.promises.stat(download.file).catch(() => null)
    if (!stats?.isFile()) {
      return notFound(response, headers, 'This export has not completed: nothing to download yet.')
    }
    response.writeHead(200, {
      ...headers,
      'Content-Type': 'application/octet-stream',
      'Content-Length': stats.size,
      'Content-Disposition': attachment(download.name),
    })
    if (headOnly) {
      response.end()
      return
    }
    this.#waiting.delete(token)
    try {
      await pipeline(fs.createReadStream(download.file), response)
    } catch (error) {
      this.#log.warn('a download was interrupted', { error: String(error) })
    } finally {
      await removeFolder(download.folder, this.#log)
    }
  }

  /** Removes every file this run still holds (the harness is closing). */
  async close(): Promise<void> {
    this.#stopEvents()
    this.#waiting.clear()
    await removeFolder(this.#root, this.#log)
  }

  #forget(file: string): void {
    for (const [token, download] of this.#waiting) {
      if (download.file !== file) continue
      this.#waiting.delete(token)
      void removeFolder(download.folder, this.#log)
    }
  }
}

function decoded(text: string): string | null {
  try {
    return decodeURIComponent(text)
  } catch {
    return null
  }
}

function notFound(
  response: http.ServerResponse,
  headers: http.OutgoingHttpHeaders,
  message: string,
): void {
  response.writeHead(404, {
    ...headers,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(message),
  })
  response.end(message)
}

/** The name for every browser: plain ASCII, and the exact name in UTF-8 (RFC 6266). */
function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}

async function removeFolder(folder: string, log: Logger): Promise<void> {
  await fs.promises.rm(folder, { recursive: true, force: true }).catch((error: unknown) => {
    log.warn('cannot remove a downloads folder', { folder, error: String(error) })
  })
}

function removeLeftovers(folder: string, log: Logger): void {
  void fs.promises
    .readdir(folder, { withFileTypes: true })
    .then(async (entries) => {
      for (const entry of entries) {
        if (!entry.isDirectory() || !entry.name.startsWith('run-')) continue
        const leftover = path.join(folder, entry.name)
        const stats = await fs.promises.stat(leftover).catch(() => null)
        if (stats && Date.now() - stats.mtimeMs > leftoverAgeMs) await removeFolder(leftover, log)
      }
    })
    .catch(() => {})
}
