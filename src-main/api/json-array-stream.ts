/**
 * Reads the records of a JSON document that arrives in chunks, one batch of records per chunk, so
 * that an export of any size never sits whole in memory. The document is either an array of
 * records or an object whose `objects` member is that array (other members are skipped).
 *
 * The scanner only finds where records begin and end; JSON.parse, faster than any parser written
 * in JavaScript, then reads all the records a piece of text completes in one call. Each record
 * comes with its text as the server wrote it, so that a record stored unchanged need not be
 * serialized again. Finding the ends is the scanner's whole cost, so it is left to native code as
 * far as possible: one regular-expression match takes a complete record (nested up to `runDepth`
 * levels: every record of the service) and the comma after it, and only the record cut off at the
 * end of a piece, or one nested deeper, is scanned bracket by bracket (one match per bracket,
 * strings skipped whole). Only the text of an unfinished record is kept between pieces.
 */
export class JsonStreamError extends Error {
  override name = 'JsonStreamError'
}

const Step = {
  root: 0,
  envelopeKey: 1,
  envelopeColon: 2,
  envelopeValue: 3,
  envelopeAfterValue: 4,
  arrayFirst: 5,
  arrayValue: 6,
  arrayAfterValue: 7,
  done: 8,
} as const
type State = (typeof Step)[keyof typeof Step]

/** A whole string (the unrolled form: no alternation per character). */
const stringSource = String.raw`"[^"\\]*(?:\\[\s\S][^"\\]*)*"`
/** A run of characters that are neither quotes nor brackets. */
const plainSource = String.raw`[^"{}[\]]*`

/** A whole string, a bracket, or the opening quote of a string that is not complete yet. */
const structural = new RegExp(String.raw`${stringSource}|[{}[\]]|"`, 'g')
/**
 * From where it is set: everything up to the next bracket (strings skipped whole), then that
 * bracket; or the opening quote of an unfinished string, or the end of the text.
 */
const nextBracket = new RegExp(
  String.raw`${plainSource}(?:${stringSource}${plainSource})*([{}[\]]|"|$)`,
  'y',
)
const primitiveEnd = /[,\]}\s]/g
const whitespace = /\S/g

/** How deeply nested a record may be for the record expression to take it whole. */
const recordDepth = 8

/**
 * From where it is set, one complete record (an object or array nested at most `recordDepth`
 * levels), then the comma after it with the blanks (JSON's four) around, when a comma follows. Each level is
 * written out in the unrolled form, which never backtracks more than a few characters, so a
 * record cut off by the end of the text costs one scan of it before the match fails.
 */
const recordThenComma = (() => {
  let value = String.raw`[{[]${plainSource}(?:${stringSource}${plainSource})*[}\]]`
  for (let level = 1; level < recordDepth; level++) {
    value = String.raw`[{[]${plainSource}(?:(?:${stringSource}|${value})${plainSource})*[}\]]`
  }
  return new RegExp(String.raw`${value}(?:[ \t\n\r]*,[ \t\n\r]*)?`, 'y')
})()

/**
 * A record whose text begins with its `id` member, an integer: a record can be dropped unread by
 * this alone, as the first member of an object is one of its own.
 */
const leadingId = /\{[ \t\n\r]*"id"[ \t\n\r]*:[ \t\n\r]*(\d{1,15})[ \t\n\r]*[,}]/y

export interface ScannerOptions {
  /**
   * Records already read another way: those whose text begins with an integer `id` at or below
   * this are dropped unread (never parsed, so a fault within one is not found), the others come
   * as always (a record that gives its id later comes too, for the caller to tell).
   */
  skipThroughId?: number
  /**
   * Find the records' texts without parsing them (`records` stays empty): for a document parsed
   * already, whose records are only wanted as text.
   */
  textsOnly?: boolean
}

/** A batch of records, each with its JSON text as it came (`texts[i]` is `records[i]`'s). */
export interface ScannedBatch {
  records: unknown[]
  texts: string[]
  /** Records dropped unread (ScannerOptions.skipThroughId) before these, since the last batch. */
  skipped: number
}

/** What one piece of text completed: its records, then the fault found after them if any. */
export interface ScannedPiece extends ScannedBatch {
  fault?: JsonStreamError
}

export class JsonArrayScanner {
  /** Cleared once a record is kept (see #skipLeading). */
  #skipThroughId: number | undefined
  readonly #textsOnly: boolean
  #text = ''
  /** Characters dropped from the front of #text so far: positions in errors are absolute. */
  #dropped = 0
  #pos = 0
  #state: State = Step.root
  /** Set while a value is being scanned bracket by bracket: where it starts, how deep the scan is. */
  #valueStart = -1
  #depth = 0
  /** Where each record completed and not parsed yet begins and ends: pairs of positions. */
  #bounds: number[] = []
  /** Set when the record expression overflowed in this piece of text (a huge record): not again. */
  #recordsOff = false
  #key: string | undefined
  #inEnvelope = false
  #foundArray = false
  #records = 0
  /** Records parsed and not handed out yet, and their texts; records dropped unread before them. */
  #out: unknown[] = []
  #outTexts: string[] = []
  #skipped = 0

  constructor(options: ScannerOptions = {}) {
    this.#skipThroughId = options.skipThroughId
    this.#textsOnly = options.textsOnly === true
  }

  /** Feeds the next piece of text; answers the records it completes and any fault after them. */
  take(text: string): ScannedPiece {
    const keepFrom = this.#valueStart >= 0 ? this.#valueStart : this.#pos
    this.#dropped += keepFrom
    this.#text = this.#text.slice(keepFrom) + text
    this.#pos -= keepFrom
    if (this.#valueStart >= 0) this.#valueStart = 0
    this.#recordsOff = false
    return this.#collect(() => this.#run(false))
  }

  /** Call at the end of the input: the last records, and a fault if the document is incomplete. */
  finish(): ScannedPiece {
    return this.#collect(() => {
      this.#run(true)
      this.#flush()
      if (this.#state !== Step.done) {
        throw this.#error(
          this.#foundArray
            ? 'the document ended before the array was closed'
            : 'the document ended before an array of records was found',
        )
      }
    })
  }

  /** `take` as a generator: yields the records, then throws the fault if any. */
  *push(text: string): Generator<unknown> {
    yield* handOut(this.take(text))
  }

  /** `finish` as a generator: yields the last records, then throws if the document is incomplete. */
  *end(): Generator<unknown> {
    yield* handOut(this.finish())
  }

  #collect(work: () => void): ScannedPiece {
    let fault: JsonStreamError | undefined
    try {
      work()
      this.#flush()
    } catch (error) {
      if (!(error instanceof JsonStreamError)) throw error
      fault = error
    }
    const records = this.#out
    const texts = this.#outTexts
    const skipped = this.#skipped
    this.#out = []
    this.#outTexts = []
    this.#skipped = 0
    return fault ? { records, texts, skipped, fault } : { records, texts, skipped }
  }

  #run(atEnd: boolean): void {
    const text = this.#text
    for (;;) {
      if (this.#state === Step.envelopeValue || this.#state === Step.arrayValue) {
        if (this.#valueStart < 0) {
          if (!this.#skipWhitespace()) return
          if (this.#state === Step.envelopeValue && this.#key === 'objects') {
            if (text[this.#pos] !== '[') throw this.#error('"objects" is not an array')
            this.#pos++
            this.#foundArray = true
            this.#state = Step.arrayFirst
            continue
          }
          if (this.#state === Step.arrayValue && !this.#recordsOff && this.#takeRecords()) {
            continue
          }
          this.#valueStart = this.#pos
          this.#depth = 0
        }
        const end = this.#scanValue(atEnd)
        if (end < 0) return
        if (this.#state === Step.arrayValue) {
          this.#completed(this.#valueStart, end)
          this.#state = Step.arrayAfterValue
        } else {
          this.#state = Step.envelopeAfterValue
        }
        this.#valueStart = -1
        this.#pos = end
        continue
      }
      if (!this.#skipWhitespace()) return
      const char = text[this.#pos]
      if (this.#bounds.length > 0 && this.#state !== Step.arrayAfterValue) this.#flush()
      switch (this.#state) {
        case Step.root:
          if (char === '[') {
            this.#foundArray = true
            this.#state = Step.arrayFirst
          } else if (char === '{') {
            this.#inEnvelope = true
            this.#state = Step.envelopeKey
          } else throw this.#error(`expected "[" or "{" at the start, found ${quote(char)}`)
          this.#pos++
          break
        case Step.envelopeKey: {
          if (char === '}') {
            if (!this.#foundArray) throw this.#error('the object has no "objects" array')
            this.#pos++
            this.#state = Step.done
            break
          }
          if (char !== '"') throw this.#error(`expected a member name, found ${quote(char)}`)
          structural.lastIndex = this.#pos
          const name = structural.exec(text)?.[0]
          if (name === undefined || name === '"') return
          this.#key = JSON.parse(name) as string
          this.#pos += name.length
          this.#state = Step.envelopeColon
          break
        }
        case Step.envelopeColon:
          if (char !== ':')
            throw this.#error(`expected ":" after a member name, found ${quote(char)}`)
          this.#pos++
          this.#state = Step.envelopeValue
          break
        case Step.envelopeAfterValue:
          if (char === ',') this.#state = Step.envelopeKey
          else if (char === '}') {
            if (!this.#foundArray) throw this.#error('the object has no "objects" array')
            this.#state = Step.done
          } else throw this.#error(`expected "," or "}" in the object, found ${quote(char)}`)
          this.#pos++
          break
        case Step.arrayFirst:
          if (char === ']') {
            this.#pos++
            this.#state = this.#inEnvelope ? Step.envelopeAfterValue : Step.done
          } else this.#state = Step.arrayValue
          break
        case Step.arrayAfterValue:
          if (char === ',') this.#state = Step.arrayValue
          else if (char === ']')
            this.#state = this.#inEnvelope ? Step.envelopeAfterValue : Step.done
          else {
            this.#flush()
            throw this.#error(
              `expected "," or "]" after record ${this.#records - 1}, found ${quote(char)}`,
            )
          }
          this.#pos++
          break
        case Step.done:
          throw this.#error(`unexpected ${quote(char)} after the end of the document`)
      }
    }
  }

  /** Moves to the next non-blank character; false when the text runs out first. */
  #skipWhitespace(): boolean {
    whitespace.lastIndex = this.#pos
    const match = whitespace.exec(this.#text)
    if (!match) {
      this.#pos = this.#text.length
      return false
    }
    this.#pos = match.index
    return true
  }

  /** The record [start, end) of #text is complete: it joins the batch parsed at the next flush. */
  #completed(start: number, end: number): void {
    this.#bounds.push(start, end)
  }

  /**
   * Takes the complete records from #pos on, one match each, with the commas between them;
   * answers whether it took any. It stops at a record cut off by the end of the text, nested too
   * deep or not an object (left to be scanned bracket by bracket), or at the end of the array.
   */
  #takeRecords(): boolean {
    const text = this.#text
    let took = false
    for (;;) {
      const start = this.#pos
      const first = text.charCodeAt(start)
      if (first !== 0x7b && first !== 0x5b) return took
      recordThenComma.lastIndex = start
      try {
        if (!recordThenComma.test(text)) return took
      } catch {
        // The engine's backtracking stack ran out (a record of many megabytes): the rest of this
        // piece goes bracket by bracket, rather than failing the same way at every record.
        this.#recordsOff = true
        return took
      }
      const next = recordThenComma.lastIndex
      // The record ends at its closing bracket, before the comma and blanks taken after it.
      let end = next
      while (isBlankOrComma(text.charCodeAt(end - 1))) end--
      this.#completed(start, end)
      took = true
      this.#pos = next
      if (next === end) {
        this.#state = Step.arrayAfterValue
        return true
      }
    }
  }

  /** Where the value that starts at #valueStart ends (exclusive), or -1 if more text is needed. */
  #scanValue(atEnd: boolean): number {
    const text = this.#text
    const first = text[this.#valueStart]
    if (first === '"') {
      structural.lastIndex = this.#valueStart
      const whole = (structural.exec(text) as RegExpExecArray)[0]
      return whole === '"' ? -1 : this.#valueStart + whole.length
    }
    if (first !== '{' && first !== '[') {
      primitiveEnd.lastIndex = this.#valueStart
      const match = primitiveEnd.exec(text)
      if (match) return match.index
      return atEnd ? text.length : -1
    }
    nextBracket.lastIndex = this.#pos
    for (;;) {
      // Never null: after the skipped run comes a bracket, an unfinished string or the end.
      const token = (nextBracket.exec(text) as RegExpExecArray)[1]
      const at = nextBracket.lastIndex
      if (token === '') {
        this.#pos = text.length
        return -1
      }
      if (token === '"') {
        // A string that goes on in the next piece: scan it again from its opening quote then.
        this.#pos = at - 1
        return -1
      }
      if (token === '{' || token === '[') this.#depth++
      else if (--this.#depth === 0) return at
    }
  }

  /** Parses the records completed so far in one go (those to skip at their head left out). */
  #flush(): void {
    const bounds = this.#skipLeading(this.#bounds)
    this.#bounds = []
    if (bounds.length === 0) return
    const text = this.#text
    if (this.#textsOnly) {
      for (let index = 0; index < bounds.length; index += 2) {
        this.#outTexts.push(text.slice(bounds[index], bounds[index + 1]))
      }
      this.#records += bounds.length / 2
      return
    }
    let records: unknown[]
    try {
      records = JSON.parse(`[${text.slice(bounds[0], bounds.at(-1))}]`) as unknown[]
    } catch {
      this.#flushOneByOne(bounds)
      return
    }
    this.#records += records.length
    const out = this.#out
    const texts = this.#outTexts
    for (let index = 0; index < records.length; index++) {
      out.push(records[index])
      texts.push(text.slice(bounds[2 * index], bounds[2 * index + 1]))
    }
  }

  /**
   * The bounds without the records at their head that ScannerOptions.skipThroughId drops. Records
   * come in id order: the first one kept ends the skipping, which costs nothing after that.
   */
  #skipLeading(bounds: number[]): number[] {
    const through = this.#skipThroughId
    if (through === undefined) return bounds
    let dropped = 0
    for (; dropped < bounds.length; dropped += 2) {
      leadingId.lastIndex = bounds[dropped]!
      const id = leadingId.exec(this.#text)?.[1]
      if (id === undefined || Number(id) > through) {
        this.#skipThroughId = undefined
        break
      }
    }
    this.#records += dropped / 2
    this.#skipped += dropped / 2
    return dropped === 0 ? bounds : bounds.slice(dropped)
  }

  /** Parses the records of a batch that failed one by one, to name the record at fault. */
  #flushOneByOne(bounds: readonly number[]): void {
    const text = this.#text
    for (let index = 0; index < bounds.length; index += 2) {
      const from = bounds[index]!
      const recordText = text.slice(from, bounds[index + 1])
      let record: unknown
      try {
        record = JSON.parse(recordText)
      } catch (error) {
        throw this.#error(
          `record ${this.#records} is not valid JSON (${(error as Error).message})`,
          from,
        )
      }
      this.#records++
      this.#out.push(record)
      this.#outTexts.push(recordText)
    }
  }

  #error(message: string, at = this.#pos): JsonStreamError {
    return new JsonStreamError(`malformed JSON at character ${this.#dropped + at}: ${message}.`)
  }
}

function* handOut({ records, fault }: ScannedPiece): Generator<unknown> {
  yield* records
  if (fault) throw fault
}

/**
 * The text of each record of a whole JSON document (an array of records, or an object with one
 * in `objects`), found without parsing them: for a document parsed already. Undefined when the
 * document is not one.
 */
export function recordTexts(document: string): string[] | undefined {
  const scanner = new JsonArrayScanner({ textsOnly: true })
  const { texts, fault } = scanner.take(document)
  if (fault) return undefined
  const last = scanner.finish()
  return last.fault ? undefined : texts.concat(last.texts)
}

/** Whether a character code is a blank or a comma (what separates records). */
function isBlankOrComma(code: number): boolean {
  return code === 0x2c || code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09
}

function quote(char: string | undefined): string {
  return char === undefined ? 'the end' : JSON.stringify(char)
}

/** How many bytes the UTF-8 sequence that `lead` begins has (1 for a byte that begins none). */
function sequenceLength(lead: number): number {
  if (lead < 0xc0) return 1
  if (lead < 0xe0) return 2
  if (lead < 0xf0) return 3
  return lead < 0xf8 ? 4 : 1
}

/** How many bytes of `bytes` end on a whole UTF-8 sequence (a sequence cut off stays out). */
function wholeSequences(bytes: Uint8Array): number {
  const length = bytes.length
  for (let back = 1; back <= 3 && back <= length; back++) {
    const byte = bytes[length - back]!
    if ((byte & 0xc0) === 0x80) continue
    return sequenceLength(byte) > back ? length - back : length
  }
  // Only continuation bytes at the end: the decoder refuses them.
  return length
}

/**
 * Decodes UTF-8 a chunk at a time and refuses anything else. A character cut off at the end of a
 * chunk is completed from the next; every piece goes through one-shot decoding, several times
 * faster than the decoder's streaming mode.
 */
class Utf8Chunks {
  readonly #decoder = new TextDecoder('utf-8', { fatal: true })
  /** The start of a character cut off at the end of the last chunk. */
  #carry: Uint8Array | undefined

  decode(chunk: Uint8Array): string {
    let head = ''
    let bytes = chunk
    if (this.#carry) {
      const carry = this.#carry
      const missing = sequenceLength(carry[0]!) - carry.length
      const joined = new Uint8Array(carry.length + Math.min(missing, bytes.length))
      joined.set(carry)
      joined.set(bytes.subarray(0, missing), carry.length)
      if (bytes.length < missing) {
        this.#carry = joined
        return ''
      }
      this.#carry = undefined
      head = this.#decode(joined)
      bytes = bytes.subarray(missing)
    }
    const whole = wholeSequences(bytes)
    if (whole < bytes.length) this.#carry = bytes.slice(whole)
    return head + this.#decode(whole < bytes.length ? bytes.subarray(0, whole) : bytes)
  }

  /** At the end of the input: a character still cut off is a fault. */
  end(): void {
    if (this.#carry) this.#decode(this.#carry)
  }

  #decode(bytes: Uint8Array): string {
    try {
      return this.#decoder.decode(bytes)
    } catch {
      throw new JsonStreamError('the document is not valid UTF-8.')
    }
  }
}

/**
 * How long reading a download (and what the reader does with each batch) may hold the thread
 * before it lets the event loop turn: a download read faster than it is stored arrives buffered,
 * and its chunks would otherwise be read back to back for tens of milliseconds.
 */
const workPerTurnMs = 4

/**
 * Decodes UTF-8 chunks and yields the records of the document a batch at a time, as chunks
 * complete them; a fault is thrown after the records before it.
 */
export async function* jsonArrayBatches(
  chunks: AsyncIterable<Uint8Array>,
  options: ScannerOptions = {},
): AsyncGenerator<ScannedBatch> {
  const text = new Utf8Chunks()
  const scanner = new JsonArrayScanner(options)
  let turnStarted = performance.now()
  for await (const chunk of chunks) {
    const { fault, ...batch } = scanner.take(text.decode(chunk))
    if (batch.records.length > 0 || batch.skipped > 0) yield batch
    if (fault) throw fault
    // Chunks the stream holds already come without a turn of the event loop in between.
    if (performance.now() - turnStarted > workPerTurnMs) {
      await new Promise((resolve) => setImmediate(resolve))
      turnStarted = performance.now()
    }
  }
  text.end()
  const { fault, ...batch } = scanner.finish()
  if (batch.records.length > 0 || batch.skipped > 0) yield batch
  if (fault) throw fault
}

/** Decodes UTF-8 chunks and yields the records of the document as they complete. */
export async function* jsonArrayRecords(
  chunks: AsyncIterable<Uint8Array>,
): AsyncGenerator<unknown> {
  for await (const batch of jsonArrayBatches(chunks)) yield* batch.records
}
