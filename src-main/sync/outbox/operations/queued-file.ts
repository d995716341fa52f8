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
 * Call options of an upload: progress, and a deadline that allows a slow line (256 KiB a second)
 * to finish, never less than two minutes, since the client's deadline covers the whole attempt.
 */
export function uploadOptions(context: SendContext, bytes: number): UploadOptions {
  return {
    ...context.options,
    timeoutMs: 120_000 + Math.ceil(bytes / 262_144) * 1000,
    onProgress: context.onProgress,
  }
}
