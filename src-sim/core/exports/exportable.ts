import type { Params } from '../params.ts'
import type { VaultAccess } from '../sim-core.ts'

export type RecordFormat = 'json' | 'csv' | 'sdf'

/**
 * A query whose complete result can be exported as JSON, CSV or SDF. `pages` yields the records
 * in order; the engine writes them and yields to the event loop between pages, so keep pages
 * around a thousand records.
 */
export interface RecordExportable {
  kind: string
  formats: readonly RecordFormat[]
  pages(
    access: VaultAccess,
    params: Params,
  ):
    Iterable<readonly Record<string, unknown>[]> | AsyncIterable<readonly Record<string, unknown>[]>
  /**
   * The same records as JSON, for kinds that keep their records as JSON: pages of segments, each
   * records joined by `separator`, which a JSON export writes as they are, with how many records
   * the page holds.
   */
  jsonPages?(
    access: VaultAccess,
    params: Params,
    separator: string,
  ): AsyncIterable<{ records: number; segments: readonly Uint8Array[] }>
}

/** An export that is one file: a molecule image, a zip of notebook entries. */
export interface FileExportable {
  kind: string
  /** File extensions this kind can produce, the first being the default. */
  formats: readonly string[]
  render(access: VaultAccess, params: Params, format: string): Uint8Array | Promise<Uint8Array>
}

export type Exportable = RecordExportable | FileExportable

export function isRecordExportable(exportable: Exportable): exportable is RecordExportable {
  return 'pages' in exportable
}

export const contentTypes: Record<string, string> = {
  json: 'application/json',
  csv: 'text/csv; charset=utf-8',
  sdf: 'chemical/x-mdl-sdfile',
  zip: 'application/zip',
  png: 'image/png',
  svg: 'image/svg+xml',
}
