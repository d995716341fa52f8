import type { FileTarget } from '../../../src-common/outbox/attach-targets.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import { readAnswer, integer, object, optional, string, anything, type Infer } from '../shape.ts'
import type { CallOptions, OpenResponse } from '../transport.ts'
import { upload, type UploadOptions } from '../upload.ts'
import { message, type Message } from './common.ts'

/** What an upload answers; the id may come as a string. */
const uploadedFileRef = object({ id: integer, name: optional(string) })
export type UploadedFileRef = Infer<typeof uploadedFileRef>

/** A stored file with its content, base64 encoded. */
const uploadedFile = object({
  id: integer,
  class: optional(string),
  name: optional(string),
  mime_type: optional(anything),
  contents: optional(string),
})
export type UploadedFile = Infer<typeof uploadedFile>

export interface FileAttachment {
  /** Path of the file on disk; it is streamed, never read whole. */
  file: string
  /** The name the server records; default the file's own name. */
  filename?: string
  /** Readout rows cannot take files: attach to their run or protocol. */
  resource_class: FileTarget
  resource_id: number
}

export class FilesApi {
  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  async attach(
    vaultId: number,
    attachment: FileAttachment,
    options: UploadOptions = {},
  ): Promise<UploadedFileRef> {
    const operation = 'files.attach'
    const answer = await upload(
      this.#context.transport,
      { operation, method: 'POST', path: vaultPath(operation, vaultId, 'files') },
      [
        { name: 'resource_class', value: attachment.resource_class },
        { name: 'resource_id', value: String(attachment.resource_id) },
        {
          name: 'file',
          file: attachment.file,
          ...(attachment.filename ? { filename: attachment.filename } : {}),
        },
      ],
      options,
    )
    return readAnswer(operation, uploadedFileRef, answer)
  }

  get(vaultId: number, id: number, options: CallOptions = {}): Promise<UploadedFile> {
    const operation = 'files.get'
    return call(this.#context.transport, uploadedFile, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'files', id),
    })
  }

  /**
   * A file's answer as a stream, for a reader that decodes its base64 contents as they arrive
   * (sync/attachments/contents-decoder.ts): `get` would hold the whole file in memory twice.
   */
  openContents(vaultId: number, id: number, options: CallOptions = {}): Promise<OpenResponse> {
    const operation = 'files.get'
    return this.#context.transport.open({
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'files', id),
      accept: 'application/json',
    })
  }

  delete(
    vaultId: number,
    id: number,
    options: CallOptions = {},
  ): Promise<Message | null | undefined> {
    const operation = 'files.delete'
    return call(this.#context.transport, optional(message), {
      ...options,
      operation,
      method: 'DELETE',
      path: vaultPath(operation, vaultId, 'files', id),
    })
  }
}
