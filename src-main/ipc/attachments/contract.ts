import { z } from 'zod'
import type {
  AttachmentBudget,
  AttachmentPreview,
  AttachmentView,
} from '../../services/attachments-service.ts'
import { connectionIdSchema, vaultIdSchema } from '../records/arguments.ts'
import type { AttachmentChannel } from './channels.ts'

export type {
  AttachmentBudget,
  AttachmentPreview,
  AttachmentStatus,
  AttachmentView,
} from '../../services/attachments-service.ts'

const fileIdSchema = z.number().int().positive()
const oneFile = { connectionId: connectionIdSchema, vaultId: vaultIdSchema, fileId: fileIdSchema }

/** A budget up to 16 TiB: more is a mistake, not a disk. */
const maxBudgetBytes = 16 * 1024 ** 4

export const attachmentSchemas = {
  'attachments.forRecord': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      kind: z.enum(['molecules', 'runs', 'protocols', 'eln_entries']),
      id: fileIdSchema,
    })
    .strict(),
  'attachments.states': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      /** A record's files: at most a page of them. */
      fileIds: z.array(fileIdSchema).max(500),
    })
    .strict(),
  'attachments.fetchNow': z
    .object({
      ...oneFile,
      /** Keep it even when the budget is full (nothing else is removed for it). */
      beyondBudget: z.boolean().optional(),
    })
    .strict(),
  'attachments.open': z.object(oneFile).strict(),
  'attachments.localPath': z.object(oneFile).strict(),
  'attachments.preview': z.object(oneFile).strict(),
  'attachments.remove': z.object(oneFile).strict(),
  'attachments.budget': z.object({ connectionId: connectionIdSchema }).strict(),
  'attachments.setBudget': z
    .object({
      connectionId: connectionIdSchema,
      budgetBytes: z.number().int().min(0).max(maxBudgetBytes),
    })
    .strict(),
} satisfies Record<AttachmentChannel, z.ZodType>

export interface AttachmentResults {
  /**
   * A record's files and their state: those the cache names, and for a molecule online those the
   * vault lists now (remembered, so that sync fetches them too).
   */
  'attachments.forRecord': AttachmentView[]
  /** Each file's state, size and what can be done with it, in the order asked. */
  'attachments.states': AttachmentView[]
  /**
   * Fetches a file now, ahead of the background's order; answers its new state (fetched, set
   * aside with the reason, or left out for the budget). Refused while the connection is offline.
   */
  'attachments.fetchNow': AttachmentView
  /**
   * Opens a fetched file with the system's default application (Electron); programs and scripts
   * are refused. Hosts without a desktop refuse it.
   */
  'attachments.open': { opened: true }
  /** Where a fetched file is on this computer (the host's shell opens it from there). */
  'attachments.localPath': { path: string }
  /**
   * A preview: an image as a data: URL (up to 16 MB), a PDF whole as base64 (up to 32 MB, its
   * header checked), text or a CSV table from the file's beginning (512 KB, 500 rows); other
   * types are refused with a message saying to open them.
   */
  'attachments.preview': AttachmentPreview
  /** Removes a fetched file's contents from this computer; it can be fetched again. */
  'attachments.remove': AttachmentView
  'attachments.budget': AttachmentBudget
  /** Sets the connection's budget; files beyond a smaller one are removed at once. */
  'attachments.setBudget': AttachmentBudget
}
