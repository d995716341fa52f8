/**
 * Reads the vault's answer for one file (`{id, class, name, mime_type, size?, contents}`, the
 * contents base64 in a JSON string) as it streams in, and hands out the decoded bytes of
 * `contents` piece by piece, so that a file of any size never sits in memory, as text or bytes.
 *
 * Only the outer object is scanned here: the other members are small, and each is parsed with
 * JSON.parse once its text is complete (capped, so a wrong answer cannot grow memory). The
 * contents string is read byte by byte only where it holds a backslash: JSON allows `\/` for `/`
 * and `\n` for the line breaks some encoders put every 60 or 76 characters, and `\uXXXX` for any
 * character; anything else that is not base64 is refused, naming where it was.
 */
export class AnswerFormatError extends Error {
  override name = 'AnswerFormatError'
}

/** The answer ended before its object was complete (a cut connection or a short body). */
export class AnswerEndedEarlyError extends AnswerFormatError {
  override name = 'AnswerEndedEarlyError'
}

/** Longest text of one member other than `contents` (a name, a MIME type object). */
const maxMemberBytes = 1024 * 1024

const Step = {
  start: 0,
  keyOrEnd: 1,
  key: 2,
  colon: 3,
  value: 4,
  plainValue: 5,
  contents: 6,
  afterValue: 7,
  done: 8,
} as const
type State = (typeof Step)[keyof typeof Step]

const quote = 0x22
const backslash = 0x5c

/** Base64 alphabet (both the standard and the URL-safe one, as Node decodes both) and padding. */
const base64Byte = new Uint8Array(256)
for (const character of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=') {
  base64Byte[character.charCodeAt(0)] = 1
}
const jsonBlank = new Uint8Array(256)
for (const code of [0x20, 0x09, 0x0a, 0x0d]) jsonBlank[code] = 1

/** What JSON escapes stand for inside a base64 string; line breaks and blanks are skipped. */
const escapedBase64: Record<number, number | null> = {
  0x2f: 0x2f, // \/
  0x6e: null, // \n
  0x72: null, // \r
  0x74: null, // \t
}

export class ContentsDecoder {
  #state: State = Step.start
  /** Bytes read so far (absolute positions in errors). */
  #offset = 0
  /** The member being read: its key's or value's bytes so far. */
  #pending: number[] = []
  #pendingLength = 0
  #key = ''
  /** A plain member's value: nesting depth, in a string, after a backslash. */
  #depth = 0
  #inString = false
  #escaped = false
  /** Contents: base64 characters kept until a whole group of four is there. */
  #carry = ''
  /** Contents: an escape begun (`\`, or `\u` and up to three hex digits so far). */
  #escape: string | null = null
  #padding = 0
  #contentsSeen = false
  #decodedBytes = 0
  readonly #members: Record<string, unknown> = {}

  /** The members other than `contents`, parsed (complete once `finish` returned). */
  get members(): Readonly<Record<string, unknown>> {
    return this.#members
  }

  get decodedBytes(): number {
    return this.#decodedBytes
  }

  /** Takes the next piece of the answer; answers the decoded contents it completes, in order. */
  push(chunk: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = []
    let at = 0
    while (at < chunk.length) {
      if (this.#state === Step.contents) {
        at = this.#readContents(chunk, at, out)
        continue
      }
      at = this.#readStructure(chunk, at)
    }
    this.#offset += chunk.length
    return out
  }

  /** Call at the end of the answer: throws when the object or the contents are not complete. */
  finish(): void {
    if (this.#state !== Step.done) {
      throw new AnswerEndedEarlyError(
        this.#state === Step.contents
          ? `the answer ended inside the contents, after ${this.#decodedBytes} bytes`
          : `the answer ended after ${this.#offset} bytes, before its object was complete`,
      )
    }
    if (!this.#contentsSeen) throw new AnswerFormatError('the answer has no contents member')
  }

  #fail(message: string, at: number): never {
    throw new AnswerFormatError(`${message} at byte ${this.#offset + at} of the answer`)
  }

  #readStructure(chunk: Uint8Array, from: number): number {
    let at = from
    while (at < chunk.length) {
      const byte = chunk[at]!
      switch (this.#state) {
        case Step.start:
          if (byte === 0x7b) this.#state = Step.keyOrEnd
          else if (!jsonBlank[byte]) this.#fail('the answer is not a JSON object', at)
          break
        case Step.keyOrEnd:
          if (byte === quote) {
            this.#state = Step.key
            this.#startPending(byte)
          } else if (byte === 0x7d) this.#state = Step.done
          else if (!jsonBlank[byte]) this.#fail('a member name was expected', at)
          break
        case Step.key:
          this.#keep(byte, at)
          if (this.#escaped) this.#escaped = false
          else if (byte === backslash) this.#escaped = true
          else if (byte === quote) {
            this.#key = JSON.parse(this.#pendingText()) as string
            this.#state = Step.colon
          }
          break
        case Step.colon:
          if (byte === 0x3a) this.#state = Step.value
          else if (!jsonBlank[byte]) this.#fail(`a colon was expected after "${this.#key}"`, at)
          break
        case Step.value:
          if (jsonBlank[byte]) break
          if (this.#key === 'contents') {
            if (byte !== quote) this.#fail('the contents are not a string', at)
            if (this.#contentsSeen) this.#fail('the answer has two contents members', at)
            this.#contentsSeen = true
            this.#state = Step.contents
            return at + 1
          }
          this.#state = Step.plainValue
          this.#depth = 0
          this.#inString = false
          this.#escaped = false
          this.#startPending(-1)
          continue // The value's first byte is read as part of it.
        case Step.plainValue:
          if (this.#readPlainByte(byte, at)) continue // Ended before this byte.
          break
        case Step.afterValue:
          if (byte === 0x2c) this.#state = Step.keyOrEnd
          else if (byte === 0x7d) this.#state = Step.done
          else if (!jsonBlank[byte]) this.#fail('a comma or the end of the object was expected', at)
          break
        case Step.done:
          if (!jsonBlank[byte]) this.#fail('the answer goes on after its object', at)
          break
      }
      at++
    }
    return at
  }

  /** One byte of a member's value; true when the value ended before it (the byte is not its). */
  #readPlainByte(byte: number, at: number): boolean {
    if (this.#inString) {
      this.#keep(byte, at)
      if (this.#escaped) this.#escaped = false
      else if (byte === backslash) this.#escaped = true
      else if (byte === quote) {
        this.#inString = false
        if (this.#depth === 0) this.#endPlainValue(at)
      }
      return false
    }
    if (byte === quote) {
      this.#inString = true
      this.#keep(byte, at)
      return false
    }
    if (byte === 0x7b || byte === 0x5b) {
      this.#depth++
      this.#keep(byte, at)
      return false
    }
    if (byte === 0x7d || byte === 0x5d) {
      if (this.#depth === 0) {
        this.#endPlainValue(at)
        return true
      }
      this.#depth--
      this.#keep(byte, at)
      if (this.#depth === 0) this.#endPlainValue(at)
      return false
    }
    if (this.#depth === 0 && (byte === 0x2c || jsonBlank[byte])) {
      this.#endPlainValue(at)
      return true
    }
    this.#keep(byte, at)
    return false
  }

  #endPlainValue(at: number): void {
    const text = this.#pendingText()
    try {
      this.#members[this.#key] = JSON.parse(text)
    } catch {
      this.#fail(`the value of "${this.#key}" is not JSON`, at)
    }
    this.#state = Step.afterValue
  }

  #startPending(first: number): void {
    this.#pending = first >= 0 ? [first] : []
    this.#pendingLength = this.#pending.length
  }

  #keep(byte: number, at: number): void {
    if (this.#pendingLength >= maxMemberBytes) {
      this.#fail(`the member "${this.#key}" is longer than ${maxMemberBytes} bytes`, at)
    }
    this.#pending.push(byte)
    this.#pendingLength++
  }

  #pendingText(): string {
    const text = Buffer.from(this.#pending).toString('utf8')
    this.#pending = []
    this.#pendingLength = 0
    return text
  }

  /** Reads contents from `from`; answers where it stopped (the end of the chunk or the string). */
  #readContents(chunk: Uint8Array, from: number, out: Uint8Array[]): number {
    let at = from
    let runStart = at
    let text = ''
    while (at < chunk.length) {
      if (at === runStart && this.#escape === null && this.#padding === 0) {
        // The common case, left to native code: base64 up to the next quote or backslash.
        const end = nextSpecial(chunk, at)
        const run = end > at ? latin1(chunk, at, end) : ''
        if (run !== '' && plainBase64.test(run)) {
          text += run
          at = end
          runStart = at
          if (at === chunk.length) break
        }
      }
      const byte = chunk[at]!
      if (this.#escape === null && base64Byte[byte] && byte !== 0x3d && this.#padding === 0) {
        at++
        continue
      }
      // A byte that needs a look: end the plain run before it.
      if (at > runStart) text += latin1(chunk, runStart, at)
      if (this.#escape !== null) {
        const character = this.#takeEscape(byte, at)
        if (character !== null) text += this.#checkedCharacter(character, at)
      } else if (byte === backslash) {
        this.#escape = ''
      } else if (byte === quote) {
        this.#emit(this.#carry + text, true, out, at)
        this.#carry = ''
        this.#state = Step.afterValue
        return at + 1
      } else {
        text += this.#checkedCharacter(byte, at)
      }
      at++
      runStart = at
    }
    if (at > runStart) text += latin1(chunk, runStart, at)
    this.#emit(this.#carry + text, false, out, at)
    return at
  }

  /** Follows an escape one byte further; answers the character it stands for once complete. */
  #takeEscape(byte: number, at: number): number | null {
    const sofar = this.#escape!
    if (sofar === '') {
      if (byte === 0x75) {
        this.#escape = 'u'
        return null
      }
      this.#escape = null
      const meant = escapedBase64[byte]
      if (meant === undefined) {
        this.#fail(`the contents hold the escape \\${String.fromCharCode(byte)}`, at)
      }
      return meant === null ? -1 : meant
    }
    const hex = sofar + String.fromCharCode(byte)
    if (!/^u[0-9a-fA-F]*$/.test(hex)) this.#fail('the contents hold a broken \\u escape', at)
    if (hex.length < 5) {
      this.#escape = hex
      return null
    }
    this.#escape = null
    return Number.parseInt(hex.slice(1), 16)
  }

  /** A character of the contents as text: base64 or padding; -1 (a skipped blank) as nothing. */
  #checkedCharacter(code: number, at: number): string {
    if (code === -1 || code === 0x0a || code === 0x0d || code === 0x20 || code === 0x09) return ''
    if (code >= 256 || !base64Byte[code]) {
      this.#fail(`the contents hold ${JSON.stringify(String.fromCharCode(code))}, not base64`, at)
    }
    if (code === 0x3d) {
      this.#padding++
      if (this.#padding > 2) this.#fail('the contents have more than two padding characters', at)
    } else if (this.#padding > 0) {
      this.#fail('the contents go on after their padding', at)
    }
    return String.fromCharCode(code)
  }

  /** Decodes the whole groups of four of `text`, keeping the rest for the next piece. */
  #emit(text: string, last: boolean, out: Uint8Array[], at: number): void {
    let whole = text.length - (text.length % 4)
    if (last && whole !== text.length) {
      // Unpadded base64 is read as Node reads it, but a single character left over is no byte.
      if (text.length % 4 === 1) this.#fail('the contents end with a broken base64 group', at)
      whole = text.length
    }
    this.#carry = text.slice(whole)
    if (whole === 0) return
    const bytes = Buffer.from(whole === text.length ? text : text.slice(0, whole), 'base64')
    if (bytes.length > 0) {
      out.push(bytes)
      this.#decodedBytes += bytes.length
    }
  }
}

/** Base64 without padding, nothing else (both alphabets, as Node decodes both). */
const plainBase64 = /^[A-Za-z0-9+/_-]*$/

/** Where the next quote or backslash is from `from`, else the chunk's end. */
function nextSpecial(chunk: Uint8Array, from: number): number {
  const quoteAt = chunk.indexOf(quote, from)
  const backslashAt = chunk.indexOf(backslash, from)
  if (quoteAt < 0) return backslashAt < 0 ? chunk.length : backslashAt
  return backslashAt < 0 ? quoteAt : Math.min(quoteAt, backslashAt)
}

function latin1(chunk: Uint8Array, start: number, end: number): string {
  return Buffer.from(chunk.buffer, chunk.byteOffset + start, end - start).toString('latin1')
}
