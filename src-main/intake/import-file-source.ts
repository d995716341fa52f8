/**
 * An import file as bytes and as text, read in streams so that memory stays small whatever its
 * size: a first pass takes its SHA-256 and finds its encoding, a second pass gives decoded text.
 *
 * Files above `maximumImportFileBytes` are refused before a byte is read, with a message that says
 * so: an import travels to the vault as one upload that the outbox copies first, and an
 * instrument export that large is a mistake (a wrong file, a binary, a runaway log) far more often
 * than data; below the limit everything is streamed, so a check never holds the file in memory.
 *
 * Encodings: a byte order mark says UTF-8, UTF-16 LE or UTF-16 BE; without one, UTF-8 when every
 * byte sequence is valid UTF-8 (checked by a fatal decoder over the whole file), else
 * Windows-1252, which is what Latin-1 files from Windows instruments are in practice (WHATWG
 * decodes the "latin1" label as Windows-1252 too).
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'

/** The largest import file checked: 256 MiB. */
export const maximumImportFileBytes = 256 * 1024 * 1024

export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252'

/** A file that cannot be checked at all; `message` is for the person. */
export class ImportFileError extends Error {
  override readonly name = 'ImportFileError'
}

export interface ScannedFile {
  size: number
  modifiedMs: number
  sha256: string
  /** For text formats: how the bytes decode. */
  encoding: TextEncodingName
  /** Whether the last byte ends a line: without it a last row may be cut short. */
  endsWithNewline: boolean
  /** The first bytes (up to `headBytes`), to tell a zip (xlsx) or binary data from text. */
  head: Uint8Array
}

const byteOrderMarks: { bytes: number[]; encoding: TextEncodingName }[] = [
  { bytes: [0xef, 0xbb, 0xbf], encoding: 'utf-8' },
  { bytes: [0xff, 0xfe], encoding: 'utf-16le' },
  { bytes: [0xfe, 0xff], encoding: 'utf-16be' },
]

const headBytes = 8192

/** Size, hash and encoding of a file, in one streamed pass. Throws ImportFileError. */
export async function scanImportFile(filePath: string, signal?: AbortSignal): Promise<ScannedFile> {
  const stat = await statFile(filePath)
  if (stat.size === 0) throw new ImportFileError('The file is empty: there is nothing to import.')
  if (stat.size > maximumImportFileBytes) {
    throw new ImportFileError(
      `The file is ${formatBytes(stat.size)}, above the ${formatBytes(maximumImportFileBytes)} ` +
        'an import may have: is it the right file? Split a larger export into several files.',
    )
  }
  const hash = createHash('sha256')
  let head = new Uint8Array(0)
  let utf8: InstanceType<typeof TextDecoder> | null = new TextDecoder('utf-8', { fatal: true })
  let lastByte = -1
  let size = 0
  try {
    for await (const chunk of fs.createReadStream(filePath, signal ? { signal } : {})) {
      const bytes = chunk as Buffer
      hash.update(bytes)
      if (head.length < headBytes) {
        head = Buffer.concat([head, bytes.subarray(0, headBytes - head.length)])
      }
      if (utf8) {
        try {
          utf8.decode(bytes, { stream: true })
        } catch {
          utf8 = null
        }
      }
      if (bytes.length > 0) lastByte = bytes[bytes.length - 1]!
      size += bytes.length
    }
    if (utf8) utf8.decode()
  } catch (error) {
    if (utf8 && error instanceof TypeError) utf8 = null
    else throw fileErrorOf(error)
  }
  const after = await statFile(filePath)
  if (after.size !== size || after.mtimeMs !== stat.mtimeMs) {
    throw new ImportFileError(
      'The file changed while it was read: it is still being written. Check it again once the ' +
        'program writing it has finished.',
    )
  }
  const marked = byteOrderMarks.find((mark) => mark.bytes.every((byte, i) => head[i] === byte))
  return {
    size,
    modifiedMs: stat.mtimeMs,
    sha256: hash.digest('hex'),
    encoding: marked?.encoding ?? (utf8 ? 'utf-8' : 'windows-1252'),
    endsWithNewline: lastByte === 0x0a || lastByte === 0x0d,
    head,
  }
}

/** The file's text, decoded chunk by chunk (a byte order mark is dropped). */
export async function* decodedText(
  filePath: string,
  scanned: ScannedFile,
  signal?: AbortSignal,
): AsyncGenerator<string> {
  const decoder = new TextDecoder(scanned.encoding, { fatal: false })
  try {
    for await (const chunk of fs.createReadStream(filePath, signal ? { signal } : {})) {
      const text = decoder.decode(chunk as Buffer, { stream: true })
      if (text !== '') yield text
    }
  } catch (error) {
    throw fileErrorOf(error)
  }
  const rest = decoder.decode()
  if (rest !== '') yield rest
}

/** Whether the text holds NUL bytes, which no text in an 8-bit or UTF-8 encoding has. */
export function looksBinary(scanned: ScannedFile): boolean {
  return !scanned.encoding.startsWith('utf-16') && scanned.head.includes(0)
}

/** Whether the file starts as a zip archive does (an xlsx, or a zip of files). */
export function looksLikeZip(head: Uint8Array): boolean {
  return head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04
}

async function statFile(filePath: string): Promise<fs.Stats> {
  try {
    const stat = await fs.promises.stat(filePath)
    if (!stat.isFile()) throw new ImportFileError('This is not a file (a folder or a device?).')
    return stat
  } catch (error) {
    throw fileErrorOf(error)
  }
}

/** A read failure in words; an abort passes through as it is. */
export function fileErrorOf(error: unknown): Error {
  if (error instanceof ImportFileError) return error
  if (error instanceof Error && error.name === 'AbortError') return error
  const code = (error as NodeJS.ErrnoException | null)?.code
  switch (code) {
    case 'ENOENT':
      return new ImportFileError(
        'The file is no longer there: it was moved or deleted while it was read.',
      )
    case 'EACCES':
    case 'EPERM':
      return new ImportFileError(
        'The file cannot be read: permission denied (another program may hold it locked).',
      )
    case 'EBUSY':
      return new ImportFileError(
        'The file is locked by another program: try again once it is closed.',
      )
    case 'EISDIR':
      return new ImportFileError('This is a folder, not a file.')
    default:
      return new ImportFileError(
        `The file cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      )
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GiB`
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${bytes} bytes`
}
