import { z } from 'zod'
import type { ImportCheckReport } from '../../../src-common/intake/import-check.ts'
import { connectionIdSchema, vaultIdSchema } from '../records/arguments.ts'
import type { IntakeChannel } from './channels.ts'

export type {
  ImportCheckReport,
  ImportProblem,
  ImportProblemKind,
} from '../../../src-common/intake/import-check.ts'

const idSchema = z.number().int().positive()
/** POSIX, Windows drive or UNC: a relative path would mean main's working folder, not the window's. */
const absolutePath = /^(\/|[A-Za-z]:[\\/]|\\\\)/

export const intakeSchemas = {
  'intake.check': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      /** The file as the window got it (a dropped file's path): absolute, on this machine. */
      path: z.string().min(1).max(4096).regex(absolutePath, 'must be an absolute file path'),
      protocolId: idSchema,
      /** The mapping template by id, or by name as the import will name it. */
      mappingTemplate: z.union([idSchema, z.string().trim().min(1).max(500)]),
    })
    .strict(),
} satisfies Record<IntakeChannel, z.ZodType>

export interface IntakeResults {
  /** The local pre-validation of an import file against the cache; nothing is queued. */
  'intake.check': ImportCheckReport
}
