import fs from 'node:fs/promises'
import { inflateRawSync } from 'node:zlib'
import { isObject, toId, toLinkId } from '../../../src-common/values.ts'

/**
 * The files of notebook entries, read from the vault's entries export: the one place the
 * specification gives an entry's files (`POST /eln/entries/query` with async is "a zip export of
 * all entries"; the entries list gives summaries only). Each entry's JSON names the files its body
 * shows (`{type: "file", file}`), and the files themselves come under the entry's folder
 * (`entries/<entry id>/files/<file id>-<name>`), whether or not the body shows them.
 *
 * Only the archive's directory and the entries' JSON are read, from the file on disk: the files'
 * bytes are left where they are (the attachment fetcher fetches each within the budget).
 */

export interface EntryFile {
  id: number
  name: string | null
}

export class EntryArchiveError extends Error {
  constructor(message: string) {
    super(`The vault's entries export cannot be read: ${message}.`)
    this.name = 'EntryArchiveError'
  }
}

interface ZipMember {
  name: string
  method: number
  compressedSize: number
  size: number
  localHeaderOffset: number
}

const endOfDirectorySignature = 0x06054b50
const directorySignature = 0x02014b50
const localHeaderSignature = 0x04034b50
/** The end record (22 bytes) and the longest comment a ZIP may have. */
const endSearchBytes = 22 + 0xffff
/** An entry's JSON is text of a few kilobytes; more is not an entry. */
const maxEntryJsonBytes = 16 * 1024 * 1024

const entryJson = /^entries\/(\d+)\/entry\.json$/
const entryFile = /^entries\/(\d+)\/files\/(\d+)-(.*)$/
const listedEntry = /^entries\/(\d+)\//

/** Every entry the archive holds, with the files it names (none for an entry without files). */
export async function readEntryFiles(archive: string): Promise<Map<number, EntryFile[]>> {
  const handle = await fs.open(archive, 'r')
  try {
    const members = await readDirectory(handle)
    const found = new Map<number, Map<number, EntryFile>>()
    const filesOf = (entryId: number) => {
      let files = found.get(entryId)
      if (!files) found.set(entryId, (files = new Map()))
      return files
    }
    const add = (entryId: number, file: EntryFile) => {
      const files = filesOf(entryId)
      const known = files.get(file.id)
      if (!known || known.name === null) files.set(file.id, file)
    }
    for (const member of members) {
      const listed = listedEntry.exec(member.name)
      if (listed) filesOf(Number(listed[1]))
      const file = entryFile.exec(member.name)
      if (file) {
        add(Number(file[1]), { id: Number(file[2]), name: file[3] || null })
        continue
      }
      const json = entryJson.exec(member.name)
      if (!json) continue
      const entry = JSON.parse((await readMember(handle, member)).toString('utf8')) as unknown
      for (const block of isObject(entry) && Array.isArray(entry.body) ? entry.body : []) {
        if (!isObject(block) || block.type !== 'file') continue
        const id = toLinkId(block.file) ?? toId(block.file)
        if (id !== null) {
          add(Number(json[1]), { id, name: typeof block.name === 'string' ? block.name : null })
        }
      }
    }
    return new Map(
      [...found].map(([entryId, files]) => [
        entryId,
        [...files.values()].sort((a, b) => a.id - b.id),
      ]),
    )
  } catch (error) {
    if (error instanceof SyntaxError)
      throw new EntryArchiveError(`an entry is not JSON (${error.message})`)
    throw error
  } finally {
    await handle.close()
  }
}

async function readAt(handle: fs.FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length)
  const { bytesRead } = await handle.read(buffer, 0, length, position)
  if (bytesRead !== length) throw new EntryArchiveError('it ends before its directory says')
  return buffer
}

async function readDirectory(handle: fs.FileHandle): Promise<ZipMember[]> {
  const { size } = await handle.stat()
  if (size < 22) throw new EntryArchiveError(`it is ${size} bytes long, too short for a ZIP`)
  const tailLength = Math.min(size, endSearchBytes)
  const tail = await readAt(handle, size - tailLength, tailLength)
  let end = -1
  for (let at = tail.length - 22; at >= 0; at--) {
    if (tail.readUInt32LE(at) === endOfDirectorySignature) {
      end = at
      break
    }
  }
  if (end < 0) throw new EntryArchiveError('it is not a ZIP archive (no end of directory)')
  const count = tail.readUInt16LE(end + 10)
  const directorySize = tail.readUInt32LE(end + 12)
  const directoryOffset = tail.readUInt32LE(end + 16)
  if (count === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
    throw new EntryArchiveError('it is a ZIP64 archive, which this reader does not take')
  }
  if (directoryOffset + directorySize > size) {
    throw new EntryArchiveError('its directory lies beyond its end')
  }
  const directory = await readAt(handle, directoryOffset, directorySize)
  const members: ZipMember[] = []
  let at = 0
  for (let index = 0; index < count; index++) {
    if (at + 46 > directory.length || directory.readUInt32LE(at) !== directorySignature) {
      throw new EntryArchiveError(`its directory's member ${index + 1} is damaged`)
    }
    const nameLength = directory.readUInt16LE(at + 28)
    const extraLength = directory.readUInt16LE(at + 30)
    const commentLength = directory.readUInt16LE(at + 32)
    members.push({
      method: directory.readUInt16LE(at + 10),
      compressedSize: directory.readUInt32LE(at + 20),
      size: directory.readUInt32LE(at + 24),
      localHeaderOffset: directory.readUInt32LE(at + 42),
      name: directory.toString('utf8', at + 46, at + 46 + nameLength),
    })
    at += 46 + nameLength + extraLength + commentLength
  }
  return members
}

async function readMember(handle: fs.FileHandle, member: ZipMember): Promise<Buffer> {
  if (member.size > maxEntryJsonBytes || member.compressedSize > maxEntryJsonBytes) {
    throw new EntryArchiveError(`${member.name} is ${member.size} bytes, too large for an entry`)
  }
  const header = await readAt(handle, member.localHeaderOffset, 30)
  if (header.readUInt32LE(0) !== localHeaderSignature) {
    throw new EntryArchiveError(`${member.name} has no local header where the directory says`)
  }
  const start = member.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28)
  const stored = await readAt(handle, start, member.compressedSize)
  if (member.method === 0) return stored
  if (member.method === 8) return inflateRawSync(stored, { maxOutputLength: maxEntryJsonBytes })
  throw new EntryArchiveError(`${member.name} is compressed with method ${member.method}`)
}
