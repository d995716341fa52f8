/**
 * What a handler may return besides a plain JSON value (which becomes a 200 JSON answer).
 */
export type Reply =
  | { kind: 'json'; status: number; value: unknown; headers?: Record<string, string> }
  | {
      kind: 'bytes'
      status: number
      /** The body, or its parts in order (written one after another, never joined in memory). */
      bytes: Uint8Array | readonly Uint8Array[]
      contentType: string
      headers?: Record<string, string>
    }
  | { kind: 'file'; path: string; contentType: string; fileName: string }
  | {
      kind: 'stream'
      status: number
      contentType: string
      /** The body's length in bytes, sent as Content-Length. */
      length: number
      /** The body, produced as it is written (with backpressure), never whole in memory. */
      chunks: () => AsyncIterable<Uint8Array>
    }
  | { kind: 'redirect'; location: string }
  | { kind: 'empty'; status: number }

const replyMarker = Symbol('reply')

type MarkedReply = Reply & { [replyMarker]: true }

function mark(reply: Reply): MarkedReply {
  return Object.assign(reply, { [replyMarker]: true as const })
}

export function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && replyMarker in value
}

export const jsonReply = (value: unknown, status = 200, headers?: Record<string, string>): Reply =>
  mark({ kind: 'json', status, value, ...(headers ? { headers } : {}) })

export const bytesReply = (
  bytes: Uint8Array | readonly Uint8Array[],
  contentType: string,
  headers?: Record<string, string>,
): Reply =>
  mark({ kind: 'bytes', status: 200, bytes, contentType, ...(headers ? { headers } : {}) })

export const fileReply = (path: string, contentType: string, fileName: string): Reply =>
  mark({ kind: 'file', path, contentType, fileName })

export const streamReply = (
  contentType: string,
  length: number,
  chunks: () => AsyncIterable<Uint8Array>,
): Reply => mark({ kind: 'stream', status: 200, contentType, length, chunks })

export const redirectReply = (location: string): Reply => mark({ kind: 'redirect', location })

export const emptyReply = (status = 200): Reply => mark({ kind: 'empty', status })
