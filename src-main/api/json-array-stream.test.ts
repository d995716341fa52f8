import { describe, expect, it } from 'vitest'
import { JsonArrayScanner, jsonArrayRecords, recordTexts } from './json-array-stream.ts'

function scanInPieces(document: string, pieceLength: number): unknown[] {
  const scanner = new JsonArrayScanner()
  const out: unknown[] = []
  for (let index = 0; index < document.length; index += pieceLength) {
    out.push(...scanner.push(document.slice(index, index + pieceLength)))
  }
  out.push(...scanner.end())
  return out
}

/** The text of each record, as the scanner found it. */
function textsInPieces(document: string, pieceLength: number): string[] {
  const scanner = new JsonArrayScanner()
  const texts: string[] = []
  for (let index = 0; index < document.length; index += pieceLength) {
    texts.push(...scanner.take(document.slice(index, index + pieceLength)).texts)
  }
  texts.push(...scanner.finish().texts)
  return texts
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
    const document = `${good},{"id":},{"id":51}]`
    for (const pieceLength of [16, document.length]) {
      expect(() => scanInPieces(document, pieceLength)).toThrow(
        `malformed JSON at character ${good.length + 1}: record 50 is not valid JSON`,
      )
    }
  })

  it('gives each record the text it came as, without the blanks and commas around it', () => {
    let deep: unknown = { leaf: '} ] { [' }
    for (let level = 0; level < 12; level++) deep = level % 2 ? { level, deep } : [level, deep]
    const texts = [...trickyRecords, deep, { id: 9, list: [] }].map((record, index) =>
      JSON.stringify(record, null, index % 2 === 0 ? undefined : 2),
    )
    const document = `{"count": 9, "objects": [\n ${texts.join(' ,\n\t')} \r\n], "offset": 0}`
    for (const pieceLength of [1, 3, 64, document.length]) {
      expect(textsInPieces(document, pieceLength)).toEqual(texts)
    }
  })

  it('hands out the records before a fault, then the fault', () => {
    const scanner = new JsonArrayScanner()
    const { records, fault } = scanner.take('[{"id":1}, {"id":2} {"id":3}]')
    expect(records).toEqual([{ id: 1 }, { id: 2 }])
    expect(fault?.message).toContain('expected "," or "]" after record 1, found "{"')
  })

  it('hands out the records and texts before a record that is not valid JSON', () => {
    const scanner = new JsonArrayScanner()
    const { records, texts, fault } = scanner.take('[{"id":1}, {"id" : 2},{"id":}]')
    expect(records).toEqual([{ id: 1 }, { id: 2 }])
    expect(texts).toEqual(['{"id":1}', '{"id" : 2}'])
    expect(fault?.message).toContain('record 2 is not valid JSON')
  })

  it('reads records nested deeper than one match takes, among shallow ones', () => {
    let deep: unknown = { leaf: '} ] { [' }
    for (let level = 0; level < 12; level++) deep = level % 2 ? { level, deep } : [level, deep]
    const records = [{ id: 1 }, { id: 2, deep }, { id: 3 }, deep, { id: 4, list: [[[]]] }]
    const document = JSON.stringify(records)
    for (const pieceLength of [1, 5, 33, document.length]) {
      expect(scanInPieces(document, pieceLength)).toEqual(records)
    }
  })

  it('hands out each record and bare id once its text is complete, piece by piece', () => {
    const scanner = new JsonArrayScanner()
    expect(scanner.take('[7, 8').records).toEqual([7])
    expect(scanner.take(', {"id": 1, "list": [1, 2').records).toEqual([8])
    expect(scanner.take(']}, {"id"').records).toEqual([{ id: 1, list: [1, 2] }])
    expect(scanner.take(': 2}').records).toEqual([{ id: 2 }])
    expect(scanner.finish().fault?.message).toContain('ended before the array was closed')
  })

  it('reads many records whatever the piece size', () => {
    const records = Array.from({ length: 400 }, (_, id) => ({
      id,
      name: `molecule "${id}" {${'['.repeat(id % 4)}`,
      projects: [{ id: id % 3, name: 'P' }, { id: 9 }],
      batches: [{ id: id * 10, fields: { 'a,b': [1, 2, { c: 'd\\' }] } }],
      flag: id % 2 === 0,
      weight: id / 7,
    }))
    const document = `{"count":400,"objects":${JSON.stringify(records, null, 2)}}`
    for (const pieceLength of [1, 7, 100, 4096, document.length]) {
      expect(scanInPieces(document, pieceLength)).toEqual(records)
    }
  })
})

describe('recordTexts', () => {
  it('finds the text of each record of a whole document without parsing it', () => {
    let deep: unknown = { leaf: '} ] { [' }
    for (let level = 0; level < 12; level++) deep = level % 2 ? { level, deep } : [level, deep]
    const texts = [...trickyRecords, deep, { id: 9, list: [] }].map((record, index) =>
      JSON.stringify(record, null, index % 2 === 0 ? undefined : 2),
    )
    expect(
      recordTexts(`{"count": 9, "objects": [\n ${texts.join(' ,\n\t')} \r\n], "x": 0}`),
    ).toEqual(texts)
    expect(recordTexts(`[${texts.join(',')}]`)).toEqual(texts)
    expect(recordTexts('{"objects": []}')).toEqual([])
  })

  it('answers undefined for what is not a document of records', () => {
    expect(recordTexts('{"count": 3}')).toBeUndefined()
    expect(recordTexts('[{"id": 1}, {"id": 2}')).toBeUndefined()
    expect(recordTexts('[{"id": 1}] [')).toBeUndefined()
  })
})

describe('JsonArrayScanner skipping records read already (skipThroughId)', () => {
  /** What a scan with skipThroughId hands out, in pieces of `pieceLength`. */
  function skipInPieces(document: string, skipThroughId: number, pieceLength: number) {
    const scanner = new JsonArrayScanner({ skipThroughId })
    const pieces = []
    for (let index = 0; index < document.length; index += pieceLength) {
      pieces.push(scanner.take(document.slice(index, index + pieceLength)))
    }
    pieces.push(scanner.finish())
    return {
      records: pieces.flatMap((piece) => piece.records),
      texts: pieces.flatMap((piece) => piece.texts),
      skipped: pieces.reduce((sum, piece) => sum + piece.skipped, 0),
      faults: pieces.flatMap((piece) => (piece.fault ? [piece.fault.message] : [])),
    }
  }

  it('drops unread the records at the head whose text begins with an id at or below it', () => {
    // Record 1 is not even JSON: dropped unread, it is no fault.
    const document = '[{"id":1,"a":tru}, { "id" : 2 ,"b":[{"id":9}]},\n{"id":3,"c":1}, {"id":2}]'
    for (const pieceLength of [1, 2, 5, 7, 13, document.length]) {
      expect(skipInPieces(document, 2, pieceLength)).toEqual({
        records: [{ id: 3, c: 1 }, { id: 2 }],
        texts: ['{"id":3,"c":1}', '{"id":2}'],
        skipped: 2,
        faults: [],
      })
    }
  })

  it('stops skipping at a record that does not begin with its id, which comes with the rest', () => {
    const document = '[{"id":1}, {"name":"x","id":2}, {"id":3}]'
    expect(skipInPieces(document, 5, document.length)).toEqual({
      records: [{ name: 'x', id: 2 }, { id: 3 }],
      texts: ['{"name":"x","id":2}', '{"id":3}'],
      skipped: 1,
      faults: [],
    })
  })

  it('keeps a record whose leading id is not an integer or too long, and finds a fault after the skipped ones', () => {
    const document = '[{"id":1}, {"id":2.5}, {"id":3}, {"id":}]'
    const scan = skipInPieces(document, 5, 4)
    expect(scan.records).toEqual([{ id: 2.5 }, { id: 3 }])
    expect(scan.skipped).toBe(1)
    expect(scan.faults).toEqual([expect.stringContaining('record 3 is not valid JSON')])
    // An id longer than a number holds exactly is not read at all.
    const long = skipInPieces('[{"id":1234567890123456}, {"id":1}]', Number.MAX_SAFE_INTEGER, 9)
    expect(long.records).toEqual([{ id: 1234567890123456 }, { id: 1 }])
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

  it('decodes characters of every length split at every place', async () => {
    const records = Array.from({ length: 30 }, (_, id) => ({ id, text: `a é ✓ 😀 ${id} ß` }))
    const bytes = new TextEncoder().encode(JSON.stringify(records))
    for (const pieceLength of [1, 2, 3, 5, 7, bytes.length]) {
      expect(await collect(jsonArrayRecords(bytesInPieces(bytes, pieceLength)))).toEqual(records)
    }
  })

  it('refuses a document that ends within a character', async () => {
    const bytes = new TextEncoder().encode('["😀"]')
    // The array, then the first two bytes of another emoji.
    const cut = new Uint8Array([...bytes, 0xf0, 0x9f])
    await expect(collect(jsonArrayRecords(bytesInPieces(cut, 3)))).rejects.toThrow(
      'not valid UTF-8',
    )
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

  it('lets the event loop turn while it reads a download that is buffered ahead', async () => {
    // Every chunk is there already: without turns, nothing else would run until the end.
    async function* buffered() {
      for (let id = 0; id < 200; id++)
        yield new TextEncoder().encode(`${id ? ',' : '['}{"id":${id}}`)
      yield new TextEncoder().encode(']')
    }
    let turns = 0
    const ticking = setInterval(() => turns++, 0)
    let read = 0
    try {
      for await (const record of jsonArrayRecords(buffered())) {
        read++
        // A reader that takes a while with each record, as storing a page does.
        const until = performance.now() + 0.5
        while (performance.now() < until) void record
      }
    } finally {
      clearInterval(ticking)
    }
    expect(read).toBe(200)
    // 100 ms of work at most 4 ms at a time: the timer ran every few records.
    expect(turns).toBeGreaterThan(10)
  })
})
