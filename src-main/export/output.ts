/**
 * Where an export's bytes go (a file, or the CLI's standard output), written with backpressure:
 * a write resolves once the stream can take more, so that memory never holds more than a page
 * however slow the disk or the reader of a pipe. A stream that fails (a full disk) fails the next
 * write with a message that says what happened.
 */
import type { Writable } from 'node:stream'
import { AppError } from '../shared/app-error.ts'

/**
 * How much text a writer gathers before handing it over. Large enough that each hands the disk a
 * worthwhile piece, small enough to stay out of V8's large-object space: a page of an SD file
 * handed over whole (megabytes) went there, and survived until a full collection, which let the
 * heap grow by a hundred megabytes of such garbage (export.bench.ts).
 */
export const outputChunkChars = 64 * 1024

export class ExportOutput {
  readonly stream: Writable
  #bytes = 0
  #failure: AppError | null = null

  constructor(stream: Writable) {
    this.stream = stream
    stream.on('error', (error: Error) => {
      this.#failure ??= outputError(error)
    })
  }

  /** Bytes handed to the stream so far. */
  get bytes(): number {
    return this.#bytes
  }

  /** Why the stream failed, if it did. */
  get failure(): AppError | null {
    return this.#failure
  }

  throwIfFailed(): void {
    if (this.#failure) throw this.#failure
  }

  /**
   * Hands a chunk to the stream; resolves once the stream can take more. `written` is called once
   * the stream is done with the chunk (written, or failed): until then a Buffer handed over must
   * not be changed, after it may be filled again.
   */
  async write(chunk: string | Uint8Array, written?: () => void): Promise<void> {
    this.throwIfFailed()
    if (chunk.length === 0) {
      written?.()
      return
    }
    this.#bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength
    if (this.stream.write(chunk, written && (() => written()))) return
    await this.#drained()
  }

  /** Ends the stream (unless a writer piped into it did) and waits until it has written all. */
  async end(): Promise<void> {
    this.throwIfFailed()
    if (this.stream.writableFinished) return
    await new Promise<void>((resolve, reject) => {
      const stream = this.stream
      const done = (): void => {
        cleanup()
        if (this.#failure) reject(this.#failure)
        else resolve()
      }
      const failed = (error: Error): void => {
        cleanup()
        reject((this.#failure ??= outputError(error)))
      }
      const cleanup = (): void => {
        stream.off('finish', done)
        stream.off('error', failed)
      }
      stream.once('finish', done)
      stream.once('error', failed)
      if (!stream.writableEnded) stream.end()
    })
  }

  #drained(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure)
    if (this.stream.destroyed) {
      return Promise.reject(
        (this.#failure = new AppError('storage', 'The output was closed before the export ended.')),
      )
    }
    return new Promise<void>((resolve, reject) => {
      const stream = this.stream
      const drained = (): void => {
        cleanup()
        resolve()
      }
      const failed = (error?: Error): void => {
        cleanup()
        reject(
          (this.#failure ??= error
            ? outputError(error)
            : new AppError('storage', 'The output was closed before the export ended.')),
        )
      }
      const closed = (): void => failed()
      const cleanup = (): void => {
        stream.off('drain', drained)
        stream.off('error', failed)
        stream.off('close', closed)
      }
      stream.once('drain', drained)
      stream.once('error', failed)
      stream.once('close', closed)
    })
  }
}

/** A stream's error in words a person can act on: a full disk, a closed pipe, a device error. */
export function outputError(error: Error): AppError {
  if (error instanceof AppError) return error
  const code = (error as NodeJS.ErrnoException).code
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return new AppError(
        'storage',
        'The disk is full: the export could not be written. Free some space and export again.',
        { cause: error },
      )
    case 'EPIPE':
    case 'ERR_STREAM_DESTROYED':
      return new AppError('storage', 'The output was closed before the export ended.', {
        cause: error,
      })
    case 'EIO':
      return new AppError(
        'storage',
        'The disk reported an error while the export was written (EIO).',
        { cause: error },
      )
    default:
      return new AppError('storage', `The export could not be written: ${error.message}`, {
        cause: error,
      })
  }
}
