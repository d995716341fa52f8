import fs from 'node:fs/promises'
import { AppError } from '../shared/app-error.ts'
import type { Logger } from '../shared/logger.ts'
import { sleep } from './backoff.ts'
import { ApiError } from './errors.ts'
import { JsonStreamError, jsonArrayBatches, type ScannerOptions } from './json-array-stream.ts'
import {
  exportIdOf,
  exportStateOf,
  readExportTicket,
  type ExportProgress,
  type ExportsApi,
} from './resources/exports.ts'
import type { SetAside } from './envelope.ts'
import { readExactly, readLeniently, ShapeError, type Parser } from './shape.ts'
import type { Slot } from './limiter.ts'
import type { CallOptions, OpenResponse, Transport } from './transport.ts'

export interface ExportPolling {
  /** The wait between two progress checks is drawn between these (spec: 5 to 10 seconds). */
  minIntervalMs: number
  maxIntervalMs: number
}

export const defaultExportPolling: ExportPolling = { minIntervalMs: 5_000, maxIntervalMs: 10_000 }

/**
 * A record of an export and the JSON text the server sent for it, when the record is exactly what
 * that text says (reading it coerced nothing): a cache may store the text as it is.
 */
export interface RecordWithText<T> {
  record: T
  text: string | undefined
}

export interface ExportOptions extends CallOptions {
  onProgress?: (progress: ExportProgress) => void
}

/** Starts an export on the server and answers its details (the request carries async=true). */
export type StartExport = (options: CallOptions) => Promise<unknown>

const cancelTimeoutMs = 10_000

/**
 * A finished export whose file nobody starts to read within this long gives its place back: a
 * caller that drops one (an error before its download, a result no longer needed) must not keep
 * the user's other exports waiting for good.
 */
export const unclaimedExportMs = 60_000

/**
 * Runs exports to completion: waits for one of the user's 3 export places (queueing locally
 * rather than being refused; the places are shared by every process on the data folder through
 * the limiter), starts the export, polls its progress until it is finished, and stops at once on
 * any other outcome. The place is held from the start until the export's file has been read (the
 * spec counts saved-search downloads among running exports), or the export failed. Aborting the
 * caller's signal cancels the export on the server too.
 */
export class ExportRunner {
  readonly #transport: Transport
  readonly #exports: ExportsApi
  readonly #polling: ExportPolling
  readonly #log: Logger

  constructor(transport: Transport, exports: ExportsApi, polling: ExportPolling, log: Logger) {
    if (!(polling.minIntervalMs >= 0 && polling.maxIntervalMs >= polling.minIntervalMs)) {
      throw new RangeError('Export polling needs 0 <= minIntervalMs <= maxIntervalMs.')
    }
    this.#transport = transport
    this.#exports = exports
    this.#polling = polling
    this.#log = log
  }

  async run<T>(
    operation: string,
    vaultId: number,
    start: StartExport,
    parseRecord: Parser<T>,
    options: ExportOptions = {},
  ): Promise<FinishedExport<T>> {
    const { onProgress, ...callOptions } = options
    const limits = this.#transport.limits()
    const place = await limits.exports
      .acquire(options.priority, options.signal)
      .catch((error: unknown) => {
        throw new ApiError({ kind: 'cancelled', operation, message: 'cancelled.', cause: error })
      })
    let exportId: number | undefined
    let handedOver = false
    try {
      let progress = readExportTicket(operation, await start(callOptions))
      exportId = exportIdOf(operation, progress)
      onProgress?.(progress)
      while (exportStateOf(progress.status) === 'waiting') {
        await sleep(this.#interval(), options.signal)
        progress = await this.#exports.progress(vaultId, exportId, callOptions)
        onProgress?.(progress)
      }
      if (exportStateOf(progress.status) === 'failed') {
        throw new ApiError({
          kind: 'export_failed',
          operation,
          message: `export ${exportId} ended with status ${JSON.stringify(progress.status ?? null)}.`,
          details: progress,
        })
      }
      const finished = new FinishedExport(
        this.#exports,
        operation,
        vaultId,
        exportId,
        progress,
        parseRecord,
        place,
      )
      handedOver = true
      return finished
    } catch (error) {
      if (options.signal?.aborted) {
        if (exportId !== undefined) this.#cancelQuietly(operation, vaultId, exportId)
        if (!(error instanceof ApiError)) {
          throw new ApiError({ kind: 'cancelled', operation, message: 'cancelled.', cause: error })
        }
      }
      throw error
    } finally {
      if (!handedOver) place.release()
    }
  }

  #interval(): number {
    const { minIntervalMs, maxIntervalMs } = this.#polling
    return minIntervalMs + Math.random() * (maxIntervalMs - minIntervalMs)
  }

  #cancelQuietly(operation: string, vaultId: number, exportId: number): void {
    this.#exports
      .cancel(vaultId, exportId, { timeoutMs: cancelTimeoutMs })
      .catch((error: unknown) => {
        this.#log.warn('could not cancel an abandoned export', {
          operation,
          exportId,
          reason: (error as Error).message,
        })
      })
  }
}

/**
 * A finished export, ready to be read as records (JSON) or saved as a file (any format). It holds
 * one of the user's export places until its file has been read once (whether the download ended
 * or failed), `release()` is called, or nobody started reading it for `unclaimedExportMs`.
 */
export class FinishedExport<T> {
  readonly vaultId: number
  readonly exportId: number
  readonly progress: ExportProgress
  readonly #exports: ExportsApi
  readonly #operation: string
  readonly #parseRecord: Parser<T>
  readonly #setAside: SetAside[] = []
  readonly #place: Slot | undefined
  readonly #unclaimed: ReturnType<typeof setTimeout> | undefined
  #released = false

  constructor(
    exports: ExportsApi,
    operation: string,
    vaultId: number,
    exportId: number,
    progress: ExportProgress,
    parseRecord: Parser<T>,
    place?: Slot,
  ) {
    this.#exports = exports
    this.#operation = operation
    this.vaultId = vaultId
    this.exportId = exportId
    this.progress = progress
    this.#parseRecord = parseRecord
    this.#place = place
    if (place) {
      this.#unclaimed = setTimeout(() => this.release(), unclaimedExportMs)
      this.#unclaimed.unref?.()
    }
  }

  /** Gives the export's place back (its file read, or no longer wanted); again does nothing. */
  release(): void {
    clearTimeout(this.#unclaimed)
    if (this.#released) return
    this.#released = true
    this.#place?.release()
  }

  /**
   * The export's file as it arrives, for callers that write its bytes themselves; the export's
   * place is given back when the download is closed, or fails to open.
   */
  async download(options: CallOptions = {}): Promise<OpenResponse> {
    clearTimeout(this.#unclaimed)
    let download: OpenResponse
    try {
      download = await this.#exports.download(this.vaultId, this.exportId, options)
    } catch (error) {
      this.release()
      throw error
    }
    return {
      response: download.response,
      chunks: download.chunks,
      close: () => {
        download.close()
        this.release()
      },
    }
  }

  /** Records read so far that could not be read (their index in the export, and why). */
  get setAside(): readonly SetAside[] {
    return this.#setAside
  }

  /** The records of a JSON export, parsed as they stream in. */
  async *records(options: CallOptions = {}): AsyncGenerator<T> {
    for await (const { record } of this.recordsWithText(options)) yield record
  }

  /**
   * The records of a JSON export as they stream in, each with its text where it is exact. With
   * `skipThroughId`, records read already another way are dropped unread (ScannerOptions).
   */
  async *recordsWithText(
    options: CallOptions = {},
    scanning: ScannerOptions = {},
  ): AsyncGenerator<RecordWithText<T>> {
    const download = await this.download(options)
    let index = 0
    try {
      // A batch per chunk: one step of the chunk generators per chunk, not per record.
      for await (const { records, texts, skipped } of jsonArrayBatches(download.chunks, scanning)) {
        index += skipped
        for (let at = 0; at < records.length; at++) {
          const reading = this.#read(records[at], index)
          index++
          if (reading) yield { record: reading.read, text: reading.exact ? texts[at] : undefined }
        }
      }
    } catch (error) {
      if (error instanceof JsonStreamError) {
        throw new ApiError({
          kind: 'bad_response',
          operation: this.#operation,
          message: `export ${this.exportId}: ${error.message}`,
          cause: error,
        })
      }
      throw error
    } finally {
      download.close()
    }
  }

  /**
   * Writes the export's file (JSON, CSV, SDF, ZIP...) to `file` as it arrives. The data goes to
   * `<file>.part` first and is renamed at the end, so `file` never holds half an export.
   */
  async saveTo(file: string, options: CallOptions = {}): Promise<{ bytes: number }> {
    const download = await this.download(options)
    const partial = `${file}.part`
    let bytes = 0
    try {
      const handle = await fs.open(partial, 'w')
      try {
        for await (const chunk of download.chunks) {
          await handle.write(chunk)
          bytes += chunk.length
        }
      } finally {
        await handle.close()
      }
      await fs.rename(partial, file)
      return { bytes }
    } catch (error) {
      await fs.rm(partial, { force: true })
      if (error instanceof ApiError) throw error
      throw new AppError(
        'storage',
        `Cannot save export ${this.exportId} to ${file}: ${(error as Error).message}`,
        { cause: error },
      )
    } finally {
      download.close()
    }
  }

  /**
   * Reads one record leniently, as the records of a page are (envelope.ts: recordsOf); one that
   * cannot be read is set aside (`setAside`) and the export goes on.
   */
  #read(value: unknown, index: number): { read: T; exact: boolean } | null {
    try {
      return readExactly((record) => readLeniently(this.#parseRecord, record), value)
    } catch (error) {
      if (!(error instanceof ShapeError)) throw error
      this.#setAside.push({ index, reason: error.describe() })
      return null
    }
  }
}
