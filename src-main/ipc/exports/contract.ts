import { z } from 'zod'
import {
  exportColumnChoices,
  exportFormats,
  formatInfo,
  type ExportFormat,
} from '../../export/formats.ts'
import { recordSchemas } from '../records/contract.ts'
import { resultsSchemas } from '../results/contract.ts'
import type { ExportChannel } from './channels.ts'

export type { ExportColumnChoice, ExportFormat } from '../../export/formats.ts'
export type { ExportProgress } from '../../shared/events.ts'

/** The list to export: what `records.list` takes, paging aside (an export is the whole list). */
const listQuestion = recordSchemas['records.list'].omit({ limit: true, offset: true })

/** The results table to export: what `results.table` takes, paging aside (the whole table). */
const resultsQuestion = resultsSchemas['results.table'].omit({ limit: true, offset: true })

const formatSchema = z.enum(exportFormats)
/** CSV: start with a UTF-8 byte order mark, which Excel needs to read UTF-8 text. */
const bomSchema = z.boolean().optional()
/**
 * The file to write, a full path ending as the format does (`.csv`, `.sdf`, `.xlsx`, `.jsonl`),
 * in a folder that exists; a file of that name is replaced once the export is complete.
 */
const pathSchema = z.string().min(1).max(4096)

function checkExtension(
  { format, path }: { format: ExportFormat; path: string },
  context: z.RefinementCtx,
): void {
  const problem = extensionProblem(format, path)
  if (problem) context.addIssue({ code: 'custom', path: ['path'], message: problem })
}

export const exportSchemas = {
  'exports.start': listQuestion
    .extend({
      format: formatSchema,
      /** The columns the view shows (default), or every field of the records. */
      columns: z.enum(exportColumnChoices).optional(),
      bom: bomSchema,
      path: pathSchema,
    })
    .strict()
    .superRefine(checkExtension),
  'exports.startResults': resultsQuestion
    .extend({
      /** The table's readout columns, as `results.table` takes them: at least one. */
      columns: resultsQuestion.shape.columns.min(1),
      format: formatSchema,
      bom: bomSchema,
      path: pathSchema,
    })
    .strict()
    .superRefine(checkExtension),
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
  /**
   * Starts exporting a results table to a file, as `exports.start` does a list, with the same
   * progress events, cancel and refusals. It takes the question `results.table` takes (level,
   * columns, sort, ranges, criteria, within, moleculeIds; paging aside: the whole table) and writes
   * a row per molecule or batch in the table's order: its ID (a batch's molecule ID too), name,
   * structure (an SD file's molfile; SMILES in CSV, Excel and JSON Lines), then for each readout
   * column `PROTOCOL: READOUT` (the aggregate: a number in the readout's unit, a date as its ISO
   * day, else the vault's text), `PROTOCOL: READOUT modifier` (`<`, `>`... of a qualified value),
   * `PROTOCOL: READOUT unit` and `PROTOCOL: READOUT n` (the readout rows it summarises). A column
   * whose protocol or readout the vault does not have is refused, naming it.
   */
  'exports.startResults': ExportStarted
  /** Stops an export and removes its file; `cancelled` is false when it had already ended. */
  'exports.cancel': { cancelled: boolean }
}
