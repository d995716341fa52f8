import { ApiError } from './errors.ts'

/**
 * The most of an answer read whole into memory (JSON pages and records, small files) unless the
 * client's options say otherwise. The largest page the service sends is a few megabytes; exports
 * and downloads are streamed and not bound by it. Past it a broken or hostile server would fill
 * memory until the process dies.
 */
export const defaultMaxBodyBytes = 64 * 1024 ** 2

/** Of an error answer, only this much is read: its message is near the start. */
export const maxErrorBodyBytes = 1024 ** 2

export interface BodyPart {
  bytes: Uint8Array
  /** False when the body went on past the limit (and was not read further). */
  complete: boolean
  /** The size the server announced (Content-Length), when it announced an exact one. */
  announcedBytes: number | undefined
}

/**
 * Reads a body up to `limitBytes`, then stops reading and closes it. Content-Length counts the
 * bytes on the wire, which for a compressed answer are fewer than those read, so it only serves
 * to stop early an answer that says it is too large.
 */
export async function readBodyUpTo(response: Response, limitBytes: number): Promise<BodyPart> {
  const announcedBytes = announcedSize(response.headers)
  if (!response.body) return { bytes: new Uint8Array(0), complete: true, announcedBytes }
  const identity = (response.headers.get('content-encoding') ?? 'identity') === 'identity'
  if (identity && announcedBytes !== undefined && announcedBytes > limitBytes) {
    await response.body.cancel().catch(() => {})
    return { bytes: new Uint8Array(0), complete: false, announcedBytes }
  }
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (total + value.byteLength > limitBytes) {
      chunks.push(value.subarray(0, limitBytes - total))
      total = limitBytes
      await reader.cancel().catch(() => {})
      return { bytes: concatenated(chunks, total), complete: false, announcedBytes }
    }
    chunks.push(value)
    total += value.byteLength
  }
  return { bytes: concatenated(chunks, total), complete: true, announcedBytes }
}

/** The whole body, or an ApiError naming the limit when it is larger. */
export async function readWholeBody(
  response: Response,
  limitBytes: number,
  operation: string,
): Promise<Uint8Array> {
  const part = await readBodyUpTo(response, limitBytes)
  if (part.complete) return part.bytes
  const size =
    part.announcedBytes !== undefined
      ? `it announced ${formatBytes(part.announcedBytes)}`
      : `more than that arrived`
  throw new ApiError({
    kind: 'bad_response',
    operation,
    status: response.status,
    message: `the answer is larger than ${formatBytes(limitBytes)}, the most read whole (${size}); it was not read further.`,
  })
}

/** Bytes as people read sizes: "64 MiB", "1.5 GiB", "812 bytes". */
export function formatBytes(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  if (bytes < 1024) return `${bytes} bytes`
  let value = bytes
  let unit = ''
  for (const next of units) {
    if (value < 1024) break
    value /= 1024
    unit = next
  }
  const shown = Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 1 : 0)
  return `${shown} ${unit}`
}

function announcedSize(headers: Headers): number | undefined {
  const text = headers.get('content-length')
  if (text === null || !/^\d+$/.test(text.trim())) return undefined
  return Number(text)
}

function concatenated(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}
