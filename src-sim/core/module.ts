import type { Database } from 'better-sqlite3'
import type { Chemistry } from '../chem/chemistry.ts'
import type { Exportable } from './exports/exportable.ts'
import type { Random } from './random.ts'
import type { Router } from './router.ts'
import type { SeedCast } from './seed-cast.ts'
import type { DependentKind, ListedFile, ProtocolCriteriaResolver, SimCore } from './sim-core.ts'

/**
 * A resource family: its tables, its routes, its part of the seeds and the hooks other families
 * call. `src-sim/modules.ts` lists every module in order; schemas and seeds run in that order.
 */
export interface SimModule {
  name: string
  /** SQL run when a database is opened; use CREATE ... IF NOT EXISTS. */
  schema?: string
  routes?(router: Router): void
  seed?(seed: SeedContext): void | Promise<void>
  /** Runs each time the simulator starts, once any seeding is done (a reopened --db file too). */
  start?(sim: SimCore): void
  /** Runs when the simulator stops, before the database closes. */
  stop?(sim: SimCore): void
  exportables?: readonly Exportable[]
  /**
   * Describes data of this module that still refers to a record of another module, so that the
   * owner refuses to delete it (422). Answer undefined when nothing refers to it.
   */
  dependentData?: Partial<Record<DependentKind, (db: Database, id: number) => string | undefined>>
  /**
   * Deletes this module's records that belong to a molecule being deleted (its attached files),
   * inside the deleting transaction.
   */
  moleculeDeletion?: (db: Database, moleculeId: number) => void
  /**
   * The files attached to each of these molecules, oldest first, as their records list them
   * (docs/spec/gaps.md: `source_files[{id,name}]`); a molecule without files is not in the map.
   */
  moleculeFiles?: (db: Database, moleculeIds: readonly number[]) => Map<number, ListedFile[]>
  /** Resolves the protocol_criteria of molecule and batch queries (the assay module). */
  protocolCriteria?: ProtocolCriteriaResolver
}

export type SeedKind = 'empty' | 'demo' | 'count'

export interface SeededBatch {
  id: number
  vaultId: number
  moleculeId: number
  projectIds: number[]
}

export interface SeedContext {
  db: Database
  kind: SeedKind
  /** For `count` seeds: how many molecules the main vault gets. */
  moleculeCount: number
  random: Random
  /** Seconds since the epoch at seeding; spread created_at values before it. */
  now: number
  chem: Chemistry
  cast: SeedCast
  /** Batches seeded so far; the molecule module fills this before later modules run. */
  batches: SeededBatch[]
  /** Where the contents of attached files are kept (SimCore.filesDirectory). */
  filesDirectory: string
}
