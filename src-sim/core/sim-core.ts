import type { Database } from 'better-sqlite3'
import type { Chemistry } from '../chem/chemistry.ts'
import type { SimClock } from './clock.ts'
import type { Faults } from './faults.ts'
import type { Params } from './params.ts'
import type { IndexingSettings } from '../resources/molecule-query/indexing-settings.ts'
import type { SimStats } from './stats.ts'
import type { SimUser, SimVault, VaultRole } from './users-and-vaults.ts'

/** A file as a record lists it (`source_files`). */
export interface ListedFile {
  id: number
  name: string
}

// SimCore and VaultAccess refer to each other (`access.sim`, `sim.accessFor`), as do the export
// and protocol-criteria members of SimCore to VaultAccess, so they share this file: apart, their
// files would import each other.

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
  exports: SimExports
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
  /**
   * The files attached to each of these molecules, oldest first (every module's moleculeFiles
   * hook); a molecule without files is not in the map.
   */
  moleculeFiles(moleculeIds: readonly number[]): Map<number, ListedFile[]>
  /**
   * Bumped after every successful write through the API (any POST, PUT or DELETE that is not a
   * query form), so modules may cache query results keyed on it.
   */
  dataVersion: number
  /** The assay module's resolver for protocol_criteria; undefined until one is registered. */
  protocolCriteria: ProtocolCriteriaResolver | undefined
  log(line: string): void
}

/**
 * What one user may do in one vault. Built for every vault request, and rebuilt by the export
 * engine when it renders an export later, so queries take this rather than the HTTP request.
 */
export interface VaultAccess {
  sim: SimCore
  db: Database
  user: SimUser
  tokenId: number
  vault: SimVault
  role: VaultRole
  isAdmin: boolean
  /** Admins and members with write permission. */
  canWrite: boolean
  /** May create projects (vault administrators, and members given that permission). */
  canManageProjects: boolean
  /** Projects whose data the user may read, ascending. */
  projectIds: readonly number[]
  /** Projects whose data the user may change. */
  writableProjectIds: readonly number[]
  canReadProject(projectId: number): boolean
  canEditProject(projectId: number): boolean
}

/**
 * Async exports as handlers use them (`ctx.sim.exports`); the simulator registers the exportable
 * kinds and stops the engine itself (core/exports/engine.ts).
 */
export interface SimExports {
  /**
   * Creates an export of `kind` for these parameters, answering its progress record. With `zip`
   * the file is delivered inside a ZIP archive.
   */
  start(
    access: VaultAccess,
    kind: string,
    params: Params,
    requestedFormat: string | undefined,
    options?: { zip?: boolean },
  ): Record<string, unknown>
  /** The progress record, as export_progress answers it. */
  progress(access: VaultAccess, exportId: number): Record<string, unknown>
  /** Active exports of one API key in every vault. */
  listForToken(tokenId: number, userId: number): Record<string, unknown>[]
  /** The download address of a finished export; 403 with the progress before that. */
  downloadLocation(access: VaultAccess, exportId: number): string
  /** Cancels an export under way; 405 with the unchanged record when it is finished or over. */
  cancel(access: VaultAccess, exportId: number): Record<string, unknown>
  /** The file behind a download address (no token needed: the key is the secret). */
  fileForDownload(key: string): { path: string; fileName: string; contentType: string } | undefined
}

/** Records whose deletion other modules may veto (SimModule.dependentData). */
export type DependentKind = 'project' | 'batch'

/**
 * Returns the ids of the batches that satisfy every protocol criterion (with their junctions).
 * Criteria arrive unread: the resolver validates them and throws a 422 naming the member at
 * fault. Only batches in `access.projectIds` may be returned.
 */
export type ProtocolCriteriaResolver = (access: VaultAccess, criteria: Params[]) => Set<number>
