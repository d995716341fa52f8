import zlib from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { readZip, ZipError } from './zip-reader.ts'
import { createZip } from './zip-writer.ts'

const text = 'readout,value\n' + 'IC50,12.5\n'.repeat(200)

describe('createZip and readZip', () => {
  it('round-trip stored and deflated entries with UTF-8 names', () => {
    const png = Uint8Array.from([137, 80, 78, 71, 0, 1, 2, 255])
    const archive = createZip([
      { name: 'data/readouts.csv', data: text },
      { name: 'plots/µ-curve.png', data: png, method: 'store' },
      { name: 'empty.txt', data: '' },
    ])
    const entries = readZip(archive)
    expect(entries.map((entry) => entry.name)).toEqual([
      'data/readouts.csv',
      'plots/µ-curve.png',
      'empty.txt',
    ])
    expect(entries[0]!.data.toString('utf8')).toBe(text)
    expect([...entries[1]!.data]).toEqual([...png])
    expect(entries[2]!.data.length).toBe(0)
  })

  it('deflates compressible entries and stores the rest verbatim', () => {
    const deflated = createZip([{ name: 'a.csv', data: text }])
    const stored = createZip([{ name: 'a.csv', data: text, method: 'store' }])
    expect(deflated.length).toBeLessThan(text.length / 4)
    expect(stored.includes(Buffer.from(text))).toBe(true)
  })

  it('writes the CRC-32, sizes and DOS timestamp into the local header', () => {
    const archive = createZip([
      { name: 'x', data: 'hello', method: 'store', modified: new Date('2024-03-05T10:20:30Z') },
    ])
    expect(archive.readUInt32LE(0)).toBe(0x04034b50)
    expect(archive.readUInt32LE(14)).toBe(zlib.crc32('hello'))
    expect(archive.readUInt32LE(18)).toBe(5)
    const time = archive.readUInt16LE(10)
    const date = archive.readUInt16LE(12)
    expect([time >> 11, (time >> 5) & 63, (time & 31) * 2]).toEqual([10, 20, 30])
    expect([(date >> 9) + 1980, (date >> 5) & 15, date & 31]).toEqual([2024, 3, 5])
  })

  it('is deterministic for the same input', () => {
    const entries = [{ name: 'a.txt', data: 'same' }]
    expect(createZip(entries).equals(createZip(entries))).toBe(true)
  })

  it('refuses duplicate and escaping names', () => {
    expect(() =>
      createZip([
        { name: 'a', data: '' },
        { name: 'a', data: '' },
      ]),
    ).toThrow(/twice/)
    expect(() => createZip([{ name: '../etc/passwd', data: '' }])).toThrow(/relative path/)
  })

  it('finds the directory behind an archive comment', () => {
    const archive = createZip([{ name: 'a.txt', data: 'commented' }])
    const comment = Buffer.from('made by hand')
    const withComment = Buffer.concat([archive, comment])
    withComment.writeUInt16LE(comment.length, archive.length - 2)
    expect(readZip(withComment)[0]!.data.toString()).toBe('commented')
  })
})

describe('readZip errors', () => {
  it('names a file that is not a ZIP', () => {
    expect(() => readZip(Buffer.from('name,smiles\n'))).toThrow(
      new ZipError('not a ZIP archive: no end of central directory record'),
    )
  })

  it('detects a corrupted entry by its checksum', () => {
    const archive = createZip([{ name: 'a.txt', data: 'payload', method: 'store' }])
    archive[30 + 'a.txt'.length] = 'P'.charCodeAt(0)
    expect(() => readZip(archive)).toThrow('a.txt is corrupt: its checksum or size does not match')
  })

  it('detects a truncated archive', () => {
    const archive = createZip([{ name: 'a.txt', data: text }])
    const truncated = Buffer.concat([
      archive.subarray(0, 40),
      archive.subarray(archive.length - 22),
    ])
    expect(() => readZip(truncated)).toThrow(ZipError)
  })

  it('refuses an unsupported compression method, naming the entry', () => {
    const archive = createZip([{ name: 'b.bin', data: 'x', method: 'store' }])
    const central = archive.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]))
    archive.writeUInt16LE(12, central + 10)
    expect(() => readZip(archive)).toThrow('b.bin uses compression method 12')
  })

  it('refuses archives that inflate beyond the limit', () => {
    const archive = createZip([{ name: 'big.txt', data: 'x'.repeat(10_000) }])
    expect(() => readZip(archive, 1000)).toThrow(/inflates to more than 1000 bytes/)
  })
})
