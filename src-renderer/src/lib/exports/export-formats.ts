/**
 * The formats a window offers to save a view as, in words. Which kinds each can hold is main's
 * rule (`src-main/export/formats.ts`): an SD file holds structures, so a list can be one only when
 * its records are molecules; a results table always can (each row carries its molecule).
 */
import type { ExportFormat } from '../../../../src-main/ipc/contract.ts'

export type { ExportFormat }

export interface FormatChoice {
  format: ExportFormat
  label: string
  /** What the file is good for, shown under its name. */
  hint: string
}

const choices: Readonly<Record<ExportFormat, Omit<FormatChoice, 'format'>>> = {
  csv: { label: 'CSV', hint: 'Text with commas: spreadsheets, R, pandas' },
  xlsx: { label: 'Excel workbook', hint: '.xlsx, one sheet' },
  sdf: { label: 'SD file', hint: 'Structures with their fields, for chemistry tools' },
  jsonl: { label: 'JSON Lines', hint: 'One record per line, every field typed' },
}

const order: readonly ExportFormat[] = ['csv', 'xlsx', 'sdf', 'jsonl']

/** What a view is made of: the records of a list of `kind`, or a results table's rows. */
export type ExportSubject = { kind: string } | 'results'

export function formatChoices(subject: ExportSubject): FormatChoice[] {
  const structures = subject === 'results' || subject.kind === 'molecules'
  return order
    .filter((format) => format !== 'sdf' || structures)
    .map((format) => ({ format, ...choices[format] }))
}

export function formatLabel(format: ExportFormat): string {
  return choices[format].label
}
