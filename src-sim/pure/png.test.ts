import zlib from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { encodePng } from './png.ts'

interface Chunk {
  type: string
  data: Buffer
  crcValid: boolean
}

function readChunks(png: Buffer): Chunk[] {
  const chunks: Chunk[] = []
  let offset = 8
  while (offset < png.length) {
    const length = png.readUInt32BE(offset)
    const typeAndData = png.subarray(offset + 4, offset + 8 + length)
    chunks.push({
      type: typeAndData.toString('latin1', 0, 4),
      data: typeAndData.subarray(4),
      crcValid: zlib.crc32(typeAndData) === png.readUInt32BE(offset + 8 + length),
    })
    offset += 12 + length
  }
  return chunks
}

describe('encodePng', () => {
  const width = 3
  const height = 2
  const pixels = Uint8Array.from([
    ...[255, 0, 0, 255],
    ...[0, 255, 0, 255],
    ...[0, 0, 255, 255],
    ...[0, 0, 0, 0],
    ...[10, 20, 30, 128],
    ...[255, 255, 255, 255],
  ])

  it('writes the signature and IHDR, IDAT, IEND chunks with valid CRCs', () => {
    const png = encodePng(width, height, pixels)
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    const chunks = readChunks(png)
    expect(chunks.map((chunk) => chunk.type)).toEqual(['IHDR', 'IDAT', 'IEND'])
    expect(chunks.every((chunk) => chunk.crcValid)).toBe(true)
    const header = chunks[0]!.data
    expect([header.readUInt32BE(0), header.readUInt32BE(4), header[8], header[9]]).toEqual([
      3, 2, 8, 6,
    ])
  })

  it('stores every scanline with filter byte 0 followed by the RGBA bytes', () => {
    const idat = readChunks(encodePng(width, height, pixels))[1]!.data
    const scanlines = zlib.inflateSync(idat)
    expect(scanlines.length).toBe(height * (width * 4 + 1))
    expect(scanlines[0]).toBe(0)
    expect(scanlines[13]).toBe(0)
    expect([...scanlines.subarray(1, 13)]).toEqual([...pixels.subarray(0, 12)])
    expect([...scanlines.subarray(14)]).toEqual([...pixels.subarray(12)])
  })

  it('refuses pixel buffers of the wrong size and empty images', () => {
    expect(() => encodePng(2, 2, new Uint8Array(15))).toThrow(
      '2x2 RGBA pixels need 16 bytes, not 15',
    )
    expect(() => encodePng(0, 2, new Uint8Array(0))).toThrow('PNG dimensions must be positive')
  })
})
