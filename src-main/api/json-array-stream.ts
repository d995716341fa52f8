/**
 * Reads the records of a JSON document that arrives in chunks, one record at a time, so that an
 * export of any size never sits whole in memory. The document is either an array of records or an
 * object whose `objects` member is that array (other members are skipped). The scanner only finds
 * where records begin and end, counting brackets with one regular-expression step per bracket
 * (strings are skipped whole); the records completed by a piece of text then go through one
 * JSON.parse, which is faster than any parser written in JavaScript. Only the text of an
 * unfinished record is kept between pieces.
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

/** A whole string, a bracket, or the opening quote of a string that is not complete yet. */
const structural = /"(?:[^"\\]|\\[\s\S])*"|[{}[\]]|"/g
/**
 * From where it is set: everything up to the next bracket (strings skipped whole), then that
 * bracket; or the opening quote of an unfinished string, or the end of the text. One step per
 * bracket keeps the scan within a small factor of JSON.parse itself.
 */
const nextBracket = /(?:[^"{}[\]]|"(?:[^"\\]|\\[\s\S])*")*([{}[\]]|"|$)/y
const primitiveEnd = /[,\]}\s]/g
const whitespace = /\S/g

export class JsonArrayScanner {
  #text = ''
  /** Characters dropped from the front of #text so far: positions in errors are absolute. */
  #dropped = 0
  #pos = 0
  #state: State = Step.root
  /** Set while a value is being scanned: where it starts and how deep the scan is. */
  #valueStart = -1
  #depth = 0
  /** Where the records completed in the current piece of text begin and end. */
  #batch: number[] = []
  #key: string | undefined
  #inEnvelope = false
  #foundArray = false
  #records = 0;

  /** Feeds the next piece of text; yields the records it completes, then any fault found. */
  *push(text: string): Generator<unknown> {
    const keepFrom = this.#valueStart >= 0 ? this.#valueStart : this.#pos
    this.#dropped += keepFrom
    this.#text = this.#text.slice(keepFrom) + text
    this.#pos -= keepFrom
    if (this.#valueStart >= 0) this.#valueStart = 0
    yield* this.#run(false)
    yield* this.#flush()
  }

  /** Call at the end of the input: throws if the document is incomplete. */
  *end(): Generator<unknown> {
    yield* this.#run(true)
    yield* this.#flush()
    if (this.#state !== Step.done) {
      throw this.#error(
        this.#foundArray
          ? 'the document ended before the array was closed'
          : 'the document ended before an array of records was found',
      )
    }
  }

  *#run(atEnd: boolean): Generator<unknown> {
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
          this.#valueStart = this.#pos
          this.#depth = 0
        }
        const end = this.#scanValue(atEnd)
        if (end < 0) return
        if (this.#state === Step.arrayValue) {
          this.#batch.push(this.#valueStart, end)
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
      if (this.#batch.length > 0 && this.#state !== Step.arrayAfterValue) yield* this.#flush()
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
            yield* this.#flush()
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

  /** Parses the records completed so far in one go, and yields them. */
  *#flush(): Generator<unknown> {
    const batch = this.#batch
    if (batch.length === 0) return
    this.#batch = []
    const text = this.#text
    let records: unknown[]
    try {
      records = JSON.parse(`[${text.slice(batch[0], batch[batch.length - 1])}]`) as unknown[]
    } catch {
      // Parse them one by one to name the record at fault, after giving out the good ones.
      for (let index = 0; index < batch.length; index += 2) {
        const at = batch[index]!
        let record: unknown
        try {
          record = JSON.parse(text.slice(at, batch[index + 1]))
        } catch (error) {
          throw this.#error(
            `record ${this.#records} is not valid JSON (${(error as Error).message})`,
            at,
          )
        }
        this.#records++
        yield record
      }
      return
    }
    this.#records += records.length
    yield* records
  }

  #error(message: string, at = this.#pos): JsonStreamError {
    return new JsonStreamError(`malformed JSON at character ${this.#dropped + at}: ${message}.`)
  }
}

function quote(char: string | undefined): string {
  return char === undefined ? 'the end' : JSON.stringify(char)
}

/** Decodes UTF-8 chunks and yields the records of the document as they complete. */
export async function* jsonArrayRecords(
  chunks: AsyncIterable<Uint8Array>,
): AsyncGenerator<unknown> {
  const decoder = new TextDecoder('utf-8', { fatal: true })
  const scanner = new JsonArrayScanner()
  for await (const chunk of chunks) {
    let text: string
    try {
      text = decoder.decode(chunk, { stream: true })
    } catch {
      throw new JsonStreamError('the document is not valid UTF-8.')
    }
    yield* scanner.push(text)
  }
  yield* scanner.end()
}
