import type { UploadOptions } from '../../../api/index.ts'
import { AppError } from '../../../shared/app-error.ts'
import type { Attachment } from '../outbox-item.ts'
import type { SendContext } from './operation.ts'

/** The copy of the item's file made when it was queued. */
export function queuedFile(context: SendContext): Attachment {
  const attachment = context.item.attachment
  if (!attachment) {
    throw new AppError('storage', `Item ${context.item.id} has lost the copy of its file.`)
  }
  return attachment
}

/**
 * Call options of an upload: progress, and the longest silence allowed. The client's deadline is
 * idle time, restarted by every chunk the connection takes, so a slow line never cuts a large
 * upload short; only after the last byte does the server's silence grow with the size (it stores
 * the file before answering): two minutes, plus a second per 16 MiB.
 */
export function uploadOptions(context: SendContext, bytes: number): UploadOptions {
  return {
    ...context.options,
    timeoutMs: 120_000 + Math.ceil(bytes / 16_777_216) * 1000,
    onProgress: context.onProgress,
  }
}
