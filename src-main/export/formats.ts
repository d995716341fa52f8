/**
 * The file formats a list can be exported to, and which kinds each can hold. An SD file holds
 * structures, so only molecules can be one: any other kind is refused before anything is written.
 */
import { AppError } from '../shared/app-error.ts'

export const exportFormats = ['csv', 'sdf', 'xlsx', 'jsonl'] as const
export type ExportFormat = (typeof exportFormats)[number]

/** Which columns an export writes: those the view shows, or every field of the record. */
export const exportColumnChoices = ['view', 'all'] as const
export type ExportColumnChoice = (typeof exportColumnChoices)[number]

interface FormatInfo {
  label: string
  /** The file name ending, with its dot. */
  extension: string
  /** Written as bytes that are not text (a terminal would show garbage). */
  binary: boolean
}

export const formatInfo: Readonly<Record<ExportFormat, FormatInfo>> = {
  csv: { label: 'CSV', extension: '.csv', binary: false },
  sdf: { label: 'SD file', extension: '.sdf', binary: false },
  xlsx: { label: 'Excel workbook', extension: '.xlsx', binary: true },
  jsonl: { label: 'JSON Lines', extension: '.jsonl', binary: false },
}

export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && (exportFormats as readonly string[]).includes(value)
}

/** Kinds whose records carry a structure, the only ones an SD file can hold. */
const structureKinds: ReadonlySet<string> = new Set(['molecules'])

/** Refuses a format the kind cannot have (an SD file of plates), naming what would work. */
export function checkFormatForKind(format: ExportFormat, kind: string, plural: string): void {
  if (format === 'sdf' && !structureKinds.has(kind)) {
    throw new AppError(
      'invalid_argument',
      `An SD file holds structures, and ${plural.toLowerCase()} have none: only molecules can be exported as an SD file. Choose CSV, Excel or JSON Lines.`,
    )
  }
}
