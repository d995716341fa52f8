/** A request body read from a stream once (multipart uploads); never retried or replayed. */
export interface StreamedBody {
  contentType: string
  length: number
  stream: ReadableStream<Uint8Array>
}
