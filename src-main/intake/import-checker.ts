import type { ImportCheckReport } from '../../src-common/intake/import-check.ts'

/** A file bound for an import, with what it will be imported into. */
export interface ImportCheckInput {
  connectionId: string
  vaultId: number
  filePath: string
  /**
   * The protocol whose readout definitions the file's values are checked against; 0 when the
   * person did not name one: then the cached protocol whose readouts the template maps.
   */
  protocolId: number
  /** The mapping template, by id or name, as the import will name it. */
  mappingTemplate: number | string
}

/**
 * Checks an import file locally, against the cache, before anything is queued
 * (src-common/intake/import-check.ts says what it reports). Never throws for a bad file: a file
 * that cannot be read is a report with a `file` problem. Aborting stops reading at once.
 */
export interface ImportChecker {
  check(input: ImportCheckInput, signal?: AbortSignal): Promise<ImportCheckReport>
}
