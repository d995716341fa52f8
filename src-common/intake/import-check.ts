/**
 * The local pre-validation of an import file (a CSV, SD file or spreadsheet bound for a protocol
 * through a mapping template), done before anything is queued, and what the person decides about
 * it. Shared by the checker in main, the watched-folder service, the window and the CLI.
 */

export const importFileFormats = ['csv', 'sdf', 'xlsx'] as const
export type ImportFileFormat = (typeof importFileFormats)[number]

/** What a problem is about; each is named in words by `message`. */
export const importProblemKinds = [
  /** The file cannot be read at all: empty, unreadable, too large, vanished, locked. */
  'file',
  /** A column the mapping template expects is missing from the file. */
  'missing-column',
  /** A column of the file the mapping template does not map (it will be ignored). */
  'unmapped-column',
  /** A structure that does not parse or has an impossible valence. */
  'structure',
  /** A molecule or batch reference that matches no cached record. */
  'unknown-reference',
  /** A molecule or batch reference that matches more than one cached record. */
  'ambiguous-reference',
  /** A value of a numeric readout that is not a number. */
  'not-a-number',
  /** A value outside the readout definition's declared range. */
  'out-of-range',
] as const
export type ImportProblemKind = (typeof importProblemKinds)[number]

export interface ImportProblem {
  kind: ImportProblemKind
  /** 'error' stops a file from being queued without the person's consent; 'warning' does not. */
  severity: 'error' | 'warning'
  /** The 1-based data row (a record of an SD file, a sheet row), null for the whole file. */
  row: number | null
  /** The column (header) it is about, where there is one. */
  column: string | null
  /** The offending value as read, shortened. */
  value: string | null
  message: string
}

export interface ImportCheckReport {
  fileName: string
  format: ImportFileFormat | null
  /** SHA-256 of the file's bytes, hex: how a watched folder knows it took a file already. */
  sha256: string | null
  /** How the text was read: encoding and, for CSV, the delimiter found. */
  encoding: string | null
  delimiter: string | null
  rows: number
  columns: string[]
  /** Problems, at most `limit` listed (errors first); `counts` has them all by kind. */
  problems: ImportProblem[]
  counts: Partial<Record<ImportProblemKind, number>>
  errors: number
  warnings: number
}

/** What the person chose for a checked file. */
export type ImportDecision = 'queue' | 'queue-anyway' | 'discard'
