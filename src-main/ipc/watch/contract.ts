import { z } from 'zod'
import { watchSettings } from '../../store/watch-repository.ts'
// Types from the store only: the window type-checks what this file imports.
import type { TakenFile, WatchedFolderView } from '../../store/watch-repository.ts'
import { connectionIdSchema, vaultIdSchema } from '../records/arguments.ts'
import type { WatchChannel } from './channels.ts'

export type {
  TakenFile,
  TakenOutcome,
  WatchedFolderView,
  WatchSettings,
} from '../../store/watch-repository.ts'
export type { WatchActivity } from '../../shared/events.ts'

const folderPath = z.string().trim().min(1, 'choose a folder').max(4096)
const id = z.int().positive()

export const watchSchemas = {
  'watch.list': z.object({}).strict(),
  'watch.add': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      folder: folderPath,
      settings: watchSettings,
      enabled: z.boolean().optional(),
    })
    .strict(),
  'watch.update': z
    .object({
      id,
      folder: folderPath.optional(),
      settings: watchSettings.optional(),
      enabled: z.boolean().optional(),
    })
    .strict(),
  'watch.remove': z.object({ id }).strict(),
  'watch.files': z
    .object({
      /** One folder's files; every folder's without it. */
      folderId: id.optional(),
      /** Only files held for a decision. */
      held: z.boolean().optional(),
      limit: z.int().min(1).max(1000).optional(),
    })
    .strict(),
  'watch.decide': z
    .object({
      takenFileId: id,
      decision: z.enum(['queue', 'queue-anyway', 'discard']),
    })
    .strict(),
} satisfies Record<WatchChannel, z.ZodType>

export interface WatchResults {
  /** Every watched folder with what its watcher sees now and how many files it holds. */
  'watch.list': WatchedFolderView[]
  /** Saves a folder and starts watching it (when enabled); refused for a relative path, a
   * protocol not in the cache, or a folder watched for the vault already. */
  'watch.add': WatchedFolderView
  'watch.update': WatchedFolderView
  /** Stops watching and forgets the folder; what it took stays recorded. */
  'watch.remove': { removed: true }
  /** Files taken from watched folders, newest first, each with its outcome and report. */
  'watch.files': TakenFile[]
  /**
   * A held file: `queue` checks it again and queues it if clean (else it stays held with the new
   * report), `queue-anyway` queues it as it is, `discard` forgets it (the file stays in its folder).
   */
  'watch.decide': TakenFile
}
