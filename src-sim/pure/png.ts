import zlib from 'node:zlib'

/** Encodes 8-bit RGBA pixels as a PNG (ISO/IEC 15948): signature, IHDR, one IDAT, IEND. */

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const BIT_DEPTH = 8
const COLOR_TYPE_RGBA = 6
const FILTER_NONE = 0

export function encodePng(width: number, height: number, rgba: Uint8Array): Buffer {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new Error(`PNG dimensions must be positive integers, not ${width}x${height}`)
  }
  if (rgba.length !== width * height * 4) {
    throw new Error(
      `${width}x${height} RGBA pixels need ${width * height * 4} bytes, not ${rgba.length}`,
    )
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = BIT_DEPTH
  header[9] = COLOR_TYPE_RGBA
  // Bytes 10-12: deflate compression, adaptive filtering, no interlace (all zero).

  const stride = width * 4
  const scanlines = Buffer.alloc((stride + 1) * height)
  for (let row = 0; row < height; row += 1) {
    scanlines[row * (stride + 1)] = FILTER_NONE
    scanlines.set(rgba.subarray(row * stride, (row + 1) * stride), row * (stride + 1) + 1)
  }
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(scanlines)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

function chunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const framed = Buffer.alloc(typeAndData.length + 8)
  framed.writeUInt32BE(data.length, 0)
  typeAndData.copy(framed, 4)
  framed.writeUInt32BE(zlib.crc32(typeAndData), typeAndData.length + 4)
  return framed
}
