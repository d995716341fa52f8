import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { AnswerEndedEarlyError, AnswerFormatError, ContentsDecoder } from './contents-decoder.ts'

/** The answer cut into pieces of these sizes in turn; the decoded bytes joined. */
function decode(answer: Buffer, sizes: readonly number[]) {
  const decoder = new ContentsDecoder()
  const pieces: Uint8Array[] = []
  let at = 0
  for (let turn = 0; at < answer.length; turn++) {
    const size = sizes[turn % sizes.length]!
    pieces.push(...decoder.push(answer.subarray(at, at + size)))
    at += size
  }
  decoder.finish()
  return { bytes: Buffer.concat(pieces), members: decoder.members }
}

function answerWith(contents: string, extra: Record<string, unknown> = {}): Buffer {
  const head = JSON.stringify({
    id: 7,
    class: 'uploaded file',
    name: 'plate "A" {1}, µ.csv',
    mime_type: { string: 'text/csv', symbol: 'csv' },
    ...extra,
  })
  return Buffer.from(`${head.slice(0, -1)},"contents":"${contents}"}`)
}

/** Writes `/` as `\/`, as Ruby's and PHP's JSON encoders do. */
const escapeSlashes = (base64: string) => base64.replaceAll('/', '\\/')
/** Breaks base64 into lines of 60, written `\n` in JSON, as Ruby's Base64.encode64 does. */
const mimeLines = (base64: string) => (base64.match(/.{1,60}/g) ?? []).join('\\n') + '\\n'

describe('ContentsDecoder', () => {
  const lengths = [0, 1, 2, 3, 4, 5, 47, 48, 49, 1000, 65_537]
  const splits = [[1], [2], [3], [4], [5], [7, 1, 2], [4096], [1_000_000]]

  for (const length of lengths) {
    it(`decodes ${length} random bytes as Buffer does, whatever the pieces`, () => {
      const bytes = randomBytes(length)
      const base64 = bytes.toString('base64')
      for (const written of [base64, escapeSlashes(base64), mimeLines(base64)]) {
        const answer = answerWith(written, { size: length })
        for (const sizes of splits) {
          const decoded = decode(answer, sizes)
          expect(decoded.bytes.equals(Buffer.from(base64, 'base64'))).toBe(true)
          expect(decoded.bytes.equals(bytes)).toBe(true)
          expect(decoded.members).toEqual({
            id: 7,
            class: 'uploaded file',
            name: 'plate "A" {1}, µ.csv',
            mime_type: { string: 'text/csv', symbol: 'csv' },
            size: length,
          })
        }
      }
    })
  }

  it('reads \\u escapes, unpadded base64 and contents before other members', () => {
    const bytes = randomBytes(200)
    const base64 = bytes.toString('base64')
    const written = base64.replaceAll('/', '\\u002F').replaceAll('+', '\\u002b').replace(/=+$/, '')
    const answer = Buffer.from(
      ` { "contents" : "${written}" , "size": 200, "name": null, "tags": [1, {"a": "]"}] }  `,
    )
    for (const sizes of [[1], [2], [3], [5]]) {
      const decoded = decode(answer, sizes)
      expect(decoded.bytes.equals(bytes)).toBe(true)
      expect(decoded.members).toEqual({ size: 200, name: null, tags: [1, { a: ']' }] })
    }
  })

  it('says an answer cut short ended early, inside the contents or after them', () => {
    const answer = answerWith(randomBytes(300).toString('base64'))
    for (const cut of [10, answer.length - 50, answer.length - 1]) {
      const decoder = new ContentsDecoder()
      decoder.push(answer.subarray(0, cut))
      expect(() => decoder.finish()).toThrow(AnswerEndedEarlyError)
    }
  })

  it('refuses what is not base64 or not the answer, naming it', () => {
    const cases: [string, RegExp][] = [
      [answerWith('QUJD\\\\').toString(), /escape \\\\/],
      [answerWith('QU*D').toString(), /"\*", not base64/],
      [answerWith('QQ==QUJD').toString(), /go on after their padding/],
      [answerWith('QUJDR').toString(), /broken base64 group/],
      ['[1, 2]', /not a JSON object/],
      ['{"name": "x"}', /no contents member/],
      ['{"contents": 12}', /not a string/],
      ['{"contents": "", "contents": ""}', /two contents members/],
      ['{"contents": ""} x', /goes on after its object/],
      ['{"size": 12 13, "contents": ""}', /comma or the end/],
      ['{"size": tru, "contents": ""}', /"size" is not JSON/],
    ]
    for (const [text, message] of cases) {
      const decoder = new ContentsDecoder()
      expect(() => {
        decoder.push(Buffer.from(text))
        decoder.finish()
      }, text).toThrow(message)
      expect(() => {
        const again = new ContentsDecoder()
        again.push(Buffer.from(text))
        again.finish()
      }).toThrow(AnswerFormatError)
    }
  })

  it('refuses a member too long to be a name before holding it', () => {
    const decoder = new ContentsDecoder()
    const long = Buffer.from(`{"name": "${'x'.repeat(1024 * 1024 + 10)}"`)
    expect(() => decoder.push(long)).toThrow(/longer than 1048576 bytes/)
  })
})
