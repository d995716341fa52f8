import zlib from 'node:zlib'

/** Reads ZIP archives (stored and deflated entries, no ZIP64, no encryption). */

export class ZipError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ZipError'
  }
}

export interface ZipEntry {
  name: string
  data: Buffer
}

const LOCAL_HEADER = 0x04034b50
const CENTRAL_HEADER = 0x02014b50
const END_OF_CENTRAL_DIRECTORY = 0x06054b50
const ENCRYPTED = 0x0001
/** Uploads are small; this refuses archives that would inflate into something enormous. */
const DEFAULT_MAX_UNCOMPRESSED = 256 * 1024 * 1024

/** Returns the file entries (directories are skipped) in central-directory order. */
export function readZip(
  archive: Uint8Array,
  maxUncompressedBytes = DEFAULT_MAX_UNCOMPRESSED,
): ZipEntry[] {
  const buffer = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength)
  const end = findEndOfCentralDirectory(buffer)
  const entryCount = buffer.readUInt16LE(end + 10)
  const directorySize = buffer.readUInt32LE(end + 12)
  const directoryOffset = buffer.readUInt32LE(end + 16)
  if (entryCount === 0xffff || directoryOffset === 0xffffffff) {
    throw new ZipError('ZIP64 archives are not supported')
  }
  if (directoryOffset + directorySize > end) {
    throw new ZipError('the central directory lies outside the archive; the file is truncated')
  }

  const entries: ZipEntry[] = []
  let totalBytes = 0
  let position = directoryOffset
  for (let index = 0; index < entryCount; index += 1) {
    if (position + 46 > end || buffer.readUInt32LE(position) !== CENTRAL_HEADER) {
      throw new ZipError(`central directory entry ${index + 1} is damaged`)
    }
    const flags = buffer.readUInt16LE(position + 8)
    const method = buffer.readUInt16LE(position + 10)
    const crc = buffer.readUInt32LE(position + 16)
    const compressedSize = buffer.readUInt32LE(position + 20)
    const size = buffer.readUInt32LE(position + 24)
    const nameLength = buffer.readUInt16LE(position + 28)
    const extraLength = buffer.readUInt16LE(position + 30)
    const commentLength = buffer.readUInt16LE(position + 32)
    const localOffset = buffer.readUInt32LE(position + 42)
    const name = buffer.toString('utf8', position + 46, position + 46 + nameLength)
    position += 46 + nameLength + extraLength + commentLength

    if (name.endsWith('/')) continue
    if (flags & ENCRYPTED) throw new ZipError(`${name} is encrypted`)
    totalBytes += size
    if (totalBytes > maxUncompressedBytes) {
      throw new ZipError(`the archive inflates to more than ${maxUncompressedBytes} bytes`)
    }
    if (localOffset + 30 > buffer.length || buffer.readUInt32LE(localOffset) !== LOCAL_HEADER) {
      throw new ZipError(`the local header of ${name} is missing`)
    }
    const dataStart =
      localOffset +
      30 +
      buffer.readUInt16LE(localOffset + 26) +
      buffer.readUInt16LE(localOffset + 28)
    if (dataStart + compressedSize > buffer.length) {
      throw new ZipError(`the data of ${name} is truncated`)
    }
    const stored = buffer.subarray(dataStart, dataStart + compressedSize)
    const data = inflate(name, method, stored, size)
    if (data.length !== size || zlib.crc32(data) !== crc) {
      throw new ZipError(`${name} is corrupt: its checksum or size does not match`)
    }
    entries.push({ name, data })
  }
  return entries
}

function inflate(name: string, method: number, stored: Buffer, size: number): Buffer {
  if (method === 0) return Buffer.from(stored)
  if (method !== 8) {
    throw new ZipError(`${name} uses compression method ${method}; only store and deflate work`)
  }
  try {
    return zlib.inflateRawSync(stored, { maxOutputLength: Math.max(size, 1) })
  } catch (error) {
    throw new ZipError(`${name} cannot be inflated: ${(error as Error).message}`)
  }
}

function findEndOfCentralDirectory(buffer: Buffer): number {
  // The record is 22 bytes followed by a comment of up to 65535 bytes.
  const earliest = Math.max(0, buffer.length - 22 - 0xffff)
  for (let position = buffer.length - 22; position >= earliest; position -= 1) {
    if (buffer.readUInt32LE(position) === END_OF_CENTRAL_DIRECTORY) return position
  }
  throw new ZipError('not a ZIP archive: no end of central directory record')
}
