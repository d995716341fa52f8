import { z } from 'zod'
import {
  exportColumnChoices,
  exportFormats,
  formatInfo,
  type ExportFormat,
} from '../../export/formats.ts'
import { recordSchemas } from '../records/contract.ts'
import type { ExportChannel } from './channels.ts'

export type { ExportColumnChoice, ExportFormat } from '../../export/formats.ts'
export type { ExportProgress } from '../../shared/events.ts'

/** The list to export: what `records.list` takes, paging aside (an export is the whole list). */
const listQuestion = recordSchemas['records.list'].omit({ limit: true, offset: true })

export const exportSchemas = {
  'exports.start': listQuestion
    .extend({
      format: z.enum(exportFormats),
      /** The columns the view shows (default), or every field of the records. */
      columns: z.enum(exportColumnChoices).optional(),
      /** CSV: start with a UTF-8 byte order mark, which Excel needs to read UTF-8 text. */
      bom: z.boolean().optional(),
      /**
       * The file to write, a full path ending as the format does (`.csv`, `.sdf`, `.xlsx`,
       * `.jsonl`), in a folder that exists; a file of that name is replaced once the export is
       * complete.
       */
      path: z.string().min(1).max(4096),
    })
    .strict()
    .superRefine(({ format, path }, context) => {
      const problem = extensionProblem(format, path)
      if (problem) context.addIssue({ code: 'custom', path: ['path'], message: problem })
    }),
  'exports.cancel': z.object({ exportId: z.string().uuid() }).strict(),
} satisfies Record<ExportChannel, z.ZodType>

/**
 * A window names the file through the save dialog, which adds the format's ending; requiring it
 * also keeps a window from writing anything but an export file.
 */
function extensionProblem(format: ExportFormat, path: string): string | null {
  const { extension, label } = formatInfo[format]
  if (path.toLowerCase().endsWith(extension) && path.length > extension.length) return null
  return `An export as ${label} is saved in a ${extension} file, not ${path}.`
}

export interface ExportStarted {
  /** Names the export in `exports.progress` events and `exports.cancel`. */
  exportId: string
  path: string
}

export interface ExportResults {
  /**
   * Starts exporting a list to a file: answers once the list and the file are checked (a format
   * the kind cannot have, a folder that does not exist or is read-only: refused here, and no file
   * is made), then `exports.progress` follows it to the end; a failed or cancelled export leaves
   * no file.
   */
  'exports.start': ExportStarted
  /** Stops an export and removes its file; `cancelled` is false when it had already ended. */
  'exports.cancel': { cancelled: boolean }
}
