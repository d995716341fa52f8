import type { Database } from 'better-sqlite3'
import type { Chemistry } from '../chem/chemistry.ts'
import type { SimClock } from './clock.ts'
import type { VaultAccess } from './context.ts'
import type { ExportEngine } from './exports/engine.ts'
import type { Faults } from './faults.ts'
import type { DependentKind, ProtocolCriteriaResolver } from './module.ts'
import type { IndexingSettings } from '../resources/molecule-query/search-index.ts'
import type { SimStats } from './stats.ts'

export interface SimLimits {
  /** Requests one user may have in flight (the spec says 3). */
  inFlightPerUser: number
  maxJsonBodyBytes: number
  maxUploadBytes: number
}

/** The running simulator as handlers see it (`ctx.sim`). */
export interface SimCore {
  db: Database
  clock: SimClock
  stats: SimStats
  faults: Faults
  chem: Chemistry
  exports: ExportEngine
  limits: SimLimits
  /** When bulk-seeded molecules are identified in the background (search-index.ts). */
  indexing: IndexingSettings
  /** A private directory for uploads, stored files and export files; deleted at stop. */
  dataDirectory: string
  /**
   * Where the contents of attached files live, one file per id: `<db>-files/` beside a --db
   * file (kept with it), else inside `dataDirectory`.
   */
  filesDirectory: string
  /** What the user may do in a vault, or undefined when the vault answers 401 to them. */
  accessFor(userId: number, tokenId: number, vaultId: number): VaultAccess | undefined
  /** Descriptions of data other modules keep that refers to the record (empty: none). */
  dependentData(kind: DependentKind, id: number): string[]
  /** Runs every module's moleculeDeletion hook (see deleteMolecule). */
  deleteMoleculeDependents(moleculeId: number): void
  /** The files attached to a molecule, oldest first (every module's moleculeFiles hook). */
  moleculeFiles(moleculeId: number): { id: number; name: string }[]
  /**
   * Bumped after every successful write through the API (any POST, PUT or DELETE that is not a
   * query form), so modules may cache query results keyed on it.
   */
  dataVersion: number
  /** The assay module's resolver for protocol_criteria; undefined until one is registered. */
  protocolCriteria: ProtocolCriteriaResolver | undefined
  log(line: string): void
}
