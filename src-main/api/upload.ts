import { ApiError } from './errors.ts'
import { multipartBody, type Part, type UploadProgress } from './multipart.ts'
import type { CallOptions, RequestSpec, Transport } from './transport.ts'

export interface UploadOptions extends CallOptions {
  onProgress?: (progress: UploadProgress) => void
}

/**
 * Sends a multipart request whose file parts stream from disk. Uploads create records, so they
 * are never retried here: the outbox looks at the server before sending one again.
 */
export async function upload(
  transport: Transport,
  spec: Omit<RequestSpec, 'streamed' | 'json' | 'retry'>,
  parts: readonly Part[],
  options: UploadOptions,
): Promise<unknown> {
  const { onProgress, ...callOptions } = options
  let streamed
  try {
    streamed = await multipartBody(parts, onProgress)
  } catch (error) {
    throw new ApiError({
      kind: 'validation',
      operation: spec.operation,
      message: `cannot read the file to upload (${(error as Error).message})`,
      cause: error,
    })
  }
  return transport.json({ ...spec, ...callOptions, streamed, retry: 'never' })
}
