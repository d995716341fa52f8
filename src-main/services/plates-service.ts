/**
 * Plate quality from the cache, offline: a plate's readouts, one readout's wells with the plate's
 * statistics (controls' means and spreads, signal window, Z′ and Z, flags by the person's
 * thresholds), and a run's plates side by side. Read from the readout value index through a
 * read-only connection of its own, kept per cache with the plate answers kept on it (a plate asked
 * again, or for another readout, reads only that readout's cells), so that the answer never waits
 * for the cache writer and never holds the main connection. Corrections still waiting in the
 * outbox (a well marked as an outlier) are applied first.
 *
 * New samples and plates are checked here before they are queued, the same way for the window and
 * the CLI: a plate's well list read (well-list.ts) and its batches found in the cache, a sample's
 * location and position against the location's grid and the places cached and queued samples take.
 */
import fs from 'node:fs'
import Database from 'better-sqlite3'
import type { PlateQualityOptions } from '../../src-common/analysis/plate-quality.ts'
import { AppError } from '../shared/app-error.ts'
import {
  checkPlacement,
  type LocationPlaces,
  type SampleFieldDefinition,
} from '../../src-common/plates/sample-placement.ts'
import {
  planWells,
  readWellList,
  referencesOf,
  type BatchResolution,
  type WellListReading,
  type WellPlan,
} from '../../src-common/plates/well-list.ts'
import type { PlateSize } from '../../src-common/plates.ts'
import { isObject, toId, toText } from '../../src-common/values.ts'
import {
  InventoryReferences,
  positionLabel,
  type ProjectMatch,
} from '../store/inventory-references.ts'
import { PlateQueries, type PlateAnswer, type RunPlatesAnswer } from '../store/plate-queries.ts'
import type { ReadoutIndexBacklog } from '../store/readout-index.ts'
import type { VaultCache } from '../store/vault-cache.ts'
import type { Outbox } from '../sync/outbox/outbox.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'
import { pendingReadoutRows } from './pending-readout-rows.ts'

export interface PlateQuestion {
  definitionId?: number
  runId?: number
  quality?: PlateQualityOptions
}

export interface RunPlatesQuestion {
  definitionId?: number
  quality?: PlateQualityOptions
}

export interface PlateQualityAnswer extends PlateAnswer {
  /** Readout rows and aggregates still to index (0 and 0: every well is there). */
  backlog: ReadoutIndexBacklog
}

export interface RunPlatesQualityAnswer extends RunPlatesAnswer {
  backlog: ReadoutIndexBacklog
}

/** What a new sample's form needs: the vault's sample fields and the chosen location's places. */
export interface SampleFormAnswer {
  fields: SampleFieldDefinition[]
  /** Null when no location was asked about. */
  location: LocationPlaces | null
  /** How many batches, projects and locations the cache holds (0: never synced). */
  cached: { batches: number; projects: number; locations: number }
}

/** A well list read against the plate's size and resolved against the cache. */
export interface WellListAnswer {
  reading: WellListReading
  plan: WellPlan
}

export interface PlatesServiceOptions {
  runtimes: ConnectionRuntimes
  /** Corrections waiting in it are applied before the statistics. */
  outbox?: Outbox | null
}

/** The read-only connection kept on a connection's cache, and the plate answers kept on it. */
interface KeptReader {
  cache: VaultCache
  /** The file's inode when it was opened: a cache made again at the same path is another file. */
  inode: number
  db: Database.Database
  queries: PlateQueries
  /** Its cache's closing closes it first (a removed connection's file is deleted next). */
  stopListening: () => void
}

export class PlatesService {
  readonly #options: PlatesServiceOptions
  readonly #readers = new Map<string, KeptReader>()
  #closed = false

  /** Read-only connections opened by plates services: what tests read to see one kept. */
  static connectionsOpened = 0

  constructor(options: PlatesServiceOptions) {
    this.#options = options
  }

  /** Closes the kept connections; questions asked afterwards are refused. */
  close(): void {
    this.#closed = true
    for (const connectionId of [...this.#readers.keys()]) this.#drop(connectionId)
  }

  /** A plate's readouts and one readout's wells with the plate's statistics. */
  plate(
    connectionId: string,
    vaultId: number,
    plateId: number,
    question: PlateQuestion = {},
  ): PlateQualityAnswer {
    const pending = pendingReadoutRows(this.#options.outbox, connectionId, vaultId)
    return this.#read(connectionId, (queries) =>
      queries.plate(vaultId, plateId, { ...question, pending }),
    )
  }

  /** A run's plates, each with its wells and statistics of one readout. */
  run(
    connectionId: string,
    vaultId: number,
    runId: number,
    question: RunPlatesQuestion = {},
  ): RunPlatesQualityAnswer {
    const pending = pendingReadoutRows(this.#options.outbox, connectionId, vaultId)
    return this.#read(connectionId, (queries) =>
      queries.runPlates(vaultId, runId, { ...question, pending }),
    )
  }

  /** Every distinct cached batch each reference names, by id, name or identifier. */
  resolveWells(
    connectionId: string,
    vaultId: number,
    references: readonly string[],
  ): BatchResolution[] {
    return this.#readOnly(connectionId, (db) =>
      new InventoryReferences(db).batches(vaultId, references),
    )
  }

  /** A well list read for a plate of `size` wells, its batches found in the cache. */
  readWellList(
    connectionId: string,
    vaultId: number,
    text: string,
    size: PlateSize,
  ): WellListAnswer {
    const reading = readWellList(text, size)
    const resolutions = this.resolveWells(connectionId, vaultId, referencesOf(reading))
    return { reading, plan: planWells(reading, resolutions) }
  }

  /** The projects each reference names in the cache. */
  resolveProjects(
    connectionId: string,
    vaultId: number,
    references: readonly (string | number)[],
  ): ProjectMatch[][] {
    return this.#readOnly(connectionId, (db) =>
      new InventoryReferences(db).projects(vaultId, references),
    )
  }

  /**
   * The vault's sample fields, and a location's grid with the positions cached samples and
   * samples waiting in the outbox take.
   */
  sampleForm(connectionId: string, vaultId: number, locationId?: number): SampleFormAnswer {
    const answer = this.#readOnly(connectionId, (db) => {
      const references = new InventoryReferences(db)
      return {
        fields: references.sampleFields(vaultId),
        location: locationId === undefined ? null : references.location(vaultId, locationId),
        cached: {
          batches: references.count('batches', vaultId),
          projects: references.count('projects', vaultId),
          locations: references.count('inventory_locations', vaultId),
        },
      }
    })
    if (locationId !== undefined && answer.location === null) {
      throw new AppError(
        'not_found',
        `Inventory location ${locationId} is not in the local copy of vault ${vaultId}.`,
      )
    }
    if (answer.location) answer.location = this.#withQueued(connectionId, vaultId, answer.location)
    return answer
  }

  /** The position a new sample may take at a location, as the vault labels it; else refused. */
  checkPlacement(
    connectionId: string,
    vaultId: number,
    locationId: number,
    position: string | null,
  ): string | null {
    const cached = this.#readOnly(connectionId, (db) =>
      new InventoryReferences(db).location(vaultId, locationId),
    )
    if (!cached) {
      throw new AppError(
        'invalid_argument',
        `Inventory location ${locationId} is not in the local copy of vault ${vaultId}.`,
      )
    }
    const check = checkPlacement(this.#withQueued(connectionId, vaultId, cached), position)
    if (!check.ok) throw new AppError('invalid_argument', check.message)
    return check.position
  }

  /** The location's places with those new samples waiting in the outbox will take. */
  #withQueued(connectionId: string, vaultId: number, places: LocationPlaces): LocationPlaces {
    const queued = (this.#options.outbox?.list({ connectionId }) ?? []).filter(
      (item) =>
        item.vaultId === vaultId &&
        item.operation === 'sample.create' &&
        isObject(item.payload) &&
        toId(item.payload.location_id) === places.id,
    )
    if (queued.length === 0) return places
    const positions = queued.flatMap((item) => {
      const position = toText(item.payload.position)
      return position ? [positionLabel(position)] : []
    })
    return {
      ...places,
      samples: places.samples + queued.length,
      taken: [...new Set([...places.taken, ...positions])].sort(),
    }
  }

  #readOnly<T>(connectionId: string, question: (db: Database.Database) => T): T {
    const { db } = this.#reader(connectionId)
    return db.transaction(() => question(db))()
  }

  #read<T>(
    connectionId: string,
    question: (queries: PlateQueries) => T,
  ): T & { backlog: ReadoutIndexBacklog } {
    const { cache, db, queries } = this.#reader(connectionId)
    // One read transaction: the plate's counts and its wells from the same moment.
    const answer = db.transaction(() => question(queries))()
    return { ...answer, backlog: cache.readoutIndex().backlog() }
  }

  /**
   * The kept connection on the connection's current cache, opened again when the cache was
   * replaced (closed and opened again, rebuilt) or its file is another (a new inode at the path).
   */
  #reader(connectionId: string): KeptReader {
    if (this.#closed) throw new AppError('cancelled', 'Plate quality has shut down.')
    const cache = this.#options.runtimes.get(connectionId).cache
    const inode = inodeOf(cache.file)
    const kept = this.#readers.get(connectionId)
    if (kept && kept.cache === cache && kept.inode === inode) return kept
    this.#drop(connectionId)
    let db: Database.Database
    try {
      db = new Database(cache.file, { readonly: true, fileMustExist: true, timeout: 5000 })
    } catch (error) {
      throw new AppError(
        'storage',
        `Cannot read the cache ${cache.file}: ${(error as Error).message}`,
        { cause: error },
      )
    }
    PlatesService.connectionsOpened += 1
    const stopListening = cache.onClose(() => this.#drop(connectionId))
    const reader = { cache, inode, db, queries: new PlateQueries(db), stopListening }
    this.#readers.set(connectionId, reader)
    return reader
  }

  #drop(connectionId: string): void {
    const kept = this.#readers.get(connectionId)
    kept?.stopListening()
    kept?.db.close()
    this.#readers.delete(connectionId)
  }
}

/** The file's inode; -1 when it cannot be read (opening it then says why). */
function inodeOf(file: string): number {
  try {
    return fs.statSync(file).ino
  } catch {
    return -1
  }
}
