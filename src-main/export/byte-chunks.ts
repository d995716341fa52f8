/**
 * An export's bytes gathered in large Buffers that are filled again once the output has written
 * them, so that a writer turns its text into UTF-8 once, in place, with no string built per chunk
 * and no Buffer allocated per write: gathering an SD file's text in strings and handing them over
 * made each byte be copied, measured and encoded again (export.bench.ts).
 *
 * Filling is synchronous; a writer hands the full chunks over (`flush`) when it can wait, at a
 * record's end, and everything at a page's end (`flushAll`); the output's backpressure holds it
 * there. The chunks in flight are at most
 * what the stream buffers (its high-water mark) and one more.
 */
import type { ExportOutput } from './output.ts'

/** Bytes a chunk holds: large enough that each write is worthwhile, small enough to reuse. */
export const byteChunkSize = 256 * 1024

/** The most UTF-8 bytes a UTF-16 code unit becomes (a pair of surrogates takes two units for 4). */
const maxBytesPerUnit = 3

export class ByteChunks {
  readonly #output: ExportOutput
  readonly #size: number
  /** Chunks the output has written, ready to be filled again. */
  readonly #spare: Buffer[] = []
  /** Filled and waiting to be handed over: the bytes, and the Buffer to reuse (if any). */
  readonly #full: { bytes: Uint8Array; reuse: Buffer | null }[] = []
  #chunk: Buffer
  #at = 0

  constructor(output: ExportOutput, size = byteChunkSize) {
    this.#output = output
    this.#size = size
    this.#chunk = Buffer.allocUnsafe(size)
  }

  /** Whether chunks are full and waiting: the writer should `flush` before going on. */
  get pending(): boolean {
    return this.#full.length > 0
  }

  /** Appends text as UTF-8 (a lone surrogate becomes U+FFFD, as every Node write does). */
  text(value: string): void {
    const most = value.length * maxBytesPerUnit
    if (this.#at + most > this.#size) {
      if (most > this.#size / 2) {
        // Text larger than a chunk (a long note) goes in a piece of its own, in its place.
        this.#seal()
        this.#full.push({ bytes: Buffer.from(value, 'utf8'), reuse: null })
        return
      }
      this.#seal()
    }
    this.#at += this.#chunk.write(value, this.#at, 'utf8')
  }

  /** Appends text known to be ASCII (a number's digits), one byte a character. */
  ascii(value: string): void {
    if (this.#at + value.length > this.#size) this.#seal()
    this.#at += this.#chunk.write(value, this.#at, 'latin1')
  }

  /** Appends bytes made once (a data item's header line); at most half a chunk. */
  bytes(value: Uint8Array): void {
    if (this.#at + value.length > this.#size) this.#seal()
    this.#chunk.set(value, this.#at)
    this.#at += value.length
  }

  /** Appends one byte (an ASCII character's code). */
  byte(code: number): void {
    if (this.#at === this.#size) this.#seal()
    this.#chunk[this.#at++] = code
  }

  /** Hands the full chunks over, waiting as long as the output asks. */
  async flush(): Promise<void> {
    while (this.#full.length > 0) {
      const { bytes, reuse } = this.#full.shift()!
      await this.#output.write(bytes, reuse ? () => this.#spare.push(reuse) : undefined)
    }
  }

  /**
   * Hands everything over, the chunk being filled included: at a page's end, so that a reader of
   * the output (a pipe) gets each page as it comes and a failing disk is named at once.
   */
  async flushAll(): Promise<void> {
    if (this.#at > 0) this.#seal()
    await this.flush()
  }

  /** Closes the chunk being filled (to be handed over) and takes a spare or new one. */
  #seal(): void {
    if (this.#at > 0) {
      this.#full.push({ bytes: this.#chunk.subarray(0, this.#at), reuse: this.#chunk })
      this.#chunk = this.#spare.pop() ?? Buffer.allocUnsafe(this.#size)
      this.#at = 0
    }
  }
}
