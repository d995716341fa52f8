import zlib from 'node:zlib'

/** Writes ZIP archives (PKWARE APPNOTE 6.3, no ZIP64) with stored or deflated entries. */

export interface ZipInputEntry {
  /** Path inside the archive, `/`-separated. */
  name: string
  data: Uint8Array | string
  /** Deflate unless told otherwise; PNGs and other compressed data gain nothing from it. */
  method?: 'store' | 'deflate'
  modified?: Date
}

const LOCAL_HEADER = 0x04034b50
const CENTRAL_HEADER = 0x02014b50
const END_OF_CENTRAL_DIRECTORY = 0x06054b50
const UTF8_NAMES = 0x0800
const VERSION = 20
const MAX_32 = 0xffffffff

export function createZip(entries: readonly ZipInputEntry[]): Buffer {
  if (entries.length > 0xffff) {
    throw new Error(`A ZIP without ZIP64 holds at most 65535 entries, not ${entries.length}`)
  }
  const seen = new Set<string>()
  const localParts: Buffer[] = []
  const centralParts: Buffer[] = []
  let offset = 0

  for (const entry of entries) {
    if (entry.name === '' || entry.name.startsWith('/') || entry.name.split('/').includes('..')) {
      throw new Error(`ZIP entry name ${JSON.stringify(entry.name)} must be a relative path`)
    }
    if (seen.has(entry.name)) throw new Error(`ZIP entry ${entry.name} appears twice`)
    seen.add(entry.name)

    const data = typeof entry.data === 'string' ? Buffer.from(entry.data, 'utf8') : entry.data
    const method = entry.method === 'store' ? 0 : 8
    const compressed = method === 8 ? zlib.deflateRawSync(data) : Buffer.from(data)
    if (data.length > MAX_32 || compressed.length > MAX_32 || offset > MAX_32) {
      throw new Error(`ZIP entry ${entry.name} is beyond the 4 GiB a ZIP without ZIP64 can hold`)
    }
    const name = Buffer.from(entry.name, 'utf8')
    const crc = zlib.crc32(data)
    const { time, date } = dosDateTime(entry.modified ?? new Date(0))

    const local = Buffer.alloc(30)
    local.writeUInt32LE(LOCAL_HEADER, 0)
    local.writeUInt16LE(VERSION, 4)
    local.writeUInt16LE(UTF8_NAMES, 6)
    local.writeUInt16LE(method, 8)
    local.writeUInt16LE(time, 10)
    local.writeUInt16LE(date, 12)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(compressed.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(name.length, 26)
    local.writeUInt16LE(0, 28)

    const central = Buffer.alloc(46)
    central.writeUInt32LE(CENTRAL_HEADER, 0)
    central.writeUInt16LE(VERSION, 4)
    central.writeUInt16LE(VERSION, 6)
    central.writeUInt16LE(UTF8_NAMES, 8)
    central.writeUInt16LE(method, 10)
    central.writeUInt16LE(time, 12)
    central.writeUInt16LE(date, 14)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(compressed.length, 20)
    central.writeUInt32LE(data.length, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE(offset, 42)

    localParts.push(local, name, compressed)
    centralParts.push(central, name)
    offset += local.length + name.length + compressed.length
  }

  const centralDirectory = Buffer.concat(centralParts)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(centralDirectory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...localParts, centralDirectory, end])
}

/**
 * MS-DOS date and time, taken in UTC so that the same input gives the same bytes on every machine.
 * The format starts in 1980; earlier moments become 1980-01-01 00:00.
 */
function dosDateTime(moment: Date): { time: number; date: number } {
  if (moment.getUTCFullYear() < 1980) return { time: 0, date: (1 << 5) | 1 }
  return {
    time:
      (moment.getUTCHours() << 11) |
      (moment.getUTCMinutes() << 5) |
      Math.floor(moment.getUTCSeconds() / 2),
    date:
      ((moment.getUTCFullYear() - 1980) << 9) |
      ((moment.getUTCMonth() + 1) << 5) |
      moment.getUTCDate(),
  }
}
