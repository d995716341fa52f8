import { describe, expect, it } from 'vitest'
import { JsonArrayScanner, jsonArrayRecords } from './json-array-stream.ts'

function scanInPieces(document: string, pieceLength: number): unknown[] {
  const scanner = new JsonArrayScanner()
  const out: unknown[] = []
  for (let index = 0; index < document.length; index += pieceLength) {
    out.push(...scanner.push(document.slice(index, index + pieceLength)))
  }
  out.push(...scanner.end())
  return out
}

async function* bytesInPieces(bytes: Uint8Array, pieceLength: number) {
  for (let index = 0; index < bytes.length; index += pieceLength) {
    yield bytes.subarray(index, index + pieceLength)
  }
}

async function collect(iterable: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = []
  for await (const item of iterable) out.push(item)
  return out
}

const trickyRecords = [
  { id: 1, name: 'a "quoted" name with } and ] and {[', tail: '\\' },
  { id: '2', nested: { list: [1, [2, { deep: ']' }]], empty: {} }, flag: 'true' },
  { id: 3, text: 'ünïcødé ✓ 😀', escapes: '\n\t\u0000\\"' },
  42,
  'plain string, with comma ]',
  null,
  [1, 2],
]

describe('JsonArrayScanner', () => {
  it('reads every record of a bare array whatever the chunk boundaries', () => {
    const document = ` \n[ ${trickyRecords.map((record) => JSON.stringify(record)).join(' ,\n ')} ]\n`
    for (const pieceLength of [1, 2, 3, 7, 64, document.length]) {
      expect(scanInPieces(document, pieceLength)).toEqual(trickyRecords)
    }
  })

  it('reads the objects member of an envelope and skips the other members', () => {
    const document = JSON.stringify({
      count: 3,
      meta: { objects: ['not these'], note: '"objects": [9]' },
      objects: trickyRecords.slice(0, 3),
      offset: 0,
    })
    for (const pieceLength of [1, 5, document.length]) {
      expect(scanInPieces(document, pieceLength)).toEqual(trickyRecords.slice(0, 3))
    }
  })

  it('reads empty arrays and envelopes', () => {
    expect(scanInPieces('[]', 1)).toEqual([])
    expect(scanInPieces('{"count":0,"objects":[ ]}', 1)).toEqual([])
  })

  it('reads bare ids, as only_ids answers hold', () => {
    expect(scanInPieces('[101,102, 103]', 2)).toEqual([101, 102, 103])
  })

  it.each([
    ['', 'ended before an array of records was found'],
    ['[{"id":1},', 'ended before the array was closed'],
    ['[{"id":1', 'ended before the array was closed'],
    ['[{"id":1} {"id":2}]', 'expected "," or "]" after record 0, found "{"'],
    ['[{"id":1,}]', 'record 0 is not valid JSON'],
    ['[tru]', 'record 0 is not valid JSON'],
    ['{"count":1}', 'the object has no "objects" array'],
    ['{"objects":{"id":1}}', '"objects" is not an array'],
    ['"hello"', 'expected "[" or "{" at the start, found "\\""'],
    ['<html>', 'expected "[" or "{" at the start, found "<"'],
    ['[1] [2]', 'after the end of the document'],
  ])('refuses %j with a message naming the fault', (document, message) => {
    expect(() => scanInPieces(document, 3)).toThrow(message)
  })

  it('gives the absolute character position of a fault in a long document', () => {
    const records = Array.from({ length: 50 }, (_, id) => JSON.stringify({ id }))
    const good = `[${records.join(',')}`
    expect(() => scanInPieces(`${good},{"id":}]`, 16)).toThrow(
      `malformed JSON at character ${good.length + 1}: record 50 is not valid JSON`,
    )
  })
})

describe('jsonArrayRecords', () => {
  it('decodes multi-byte characters split between chunks', async () => {
    const bytes = new TextEncoder().encode(JSON.stringify([{ name: '😀 ✓ é' }, { name: 'ß' }]))
    expect(await collect(jsonArrayRecords(bytesInPieces(bytes, 1)))).toEqual([
      { name: '😀 ✓ é' },
      { name: 'ß' },
    ])
  })

  it('refuses bytes that are not UTF-8', async () => {
    const bytes = new Uint8Array([0x5b, 0x22, 0xff, 0xfe, 0x22, 0x5d])
    await expect(collect(jsonArrayRecords(bytesInPieces(bytes, 2)))).rejects.toThrow(
      'not valid UTF-8',
    )
  })

  it('yields records before the document has ended', async () => {
    let releaseRest: () => void = () => {}
    const restArrived = new Promise<void>((resolve) => (releaseRest = resolve))
    async function* slowSource() {
      yield new TextEncoder().encode('[{"id":1},')
      await restArrived
      yield new TextEncoder().encode('{"id":2}]')
    }
    const records = jsonArrayRecords(slowSource())
    expect((await records.next()).value).toEqual({ id: 1 })
    releaseRest()
    expect(await collect(records)).toEqual([{ id: 2 }])
  })
})
