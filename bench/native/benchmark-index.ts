/**
 * The benchmarks' own structure index: a cache database under bench-results/chem/ holding only
 * the structure index tables, kept between runs. Opening it synchronizes it with the data set, so
 * only what is missing or changed is computed (everything, the first time).
 */
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { StructureEngine } from '../../src-main/chem/structure-engine.ts'
import type { SynchronizeSummary } from '../../src-main/chem/structure-synchronization.ts'
import { ChemWorkerPool } from '../../src-main/chem/worker-pool.ts'
import { openDatabase } from '../../src-main/store/sqlite.ts'
import {
  noveltyKeysMigration,
  structureDetailsMigration,
  structureIndexMigration,
} from '../../src-main/store/cache-migrations.ts'
import { StructureIndexRepository } from '../../src-main/store/structure-index-repository.ts'
import { progress } from '../report.ts'
import type { BenchmarkMolecule } from './benchmark-data.ts'

export const benchResultsDir = path.join(import.meta.dirname, '..', '..', 'bench-results', 'chem')

export interface BenchmarkIndex {
  db: Database.Database
  pool: ChemWorkerPool
  engine: StructureEngine
  close(): Promise<void>
  /** Deletes the index's files (after close). */
  remove(): void
}

export async function openBenchmarkIndex(
  moleculeCount: number,
  options: { fresh?: boolean; name?: string } = {},
): Promise<BenchmarkIndex> {
  const file = path.join(
    benchResultsDir,
    `structure-index-${options.name ?? 'chembl'}-${moleculeCount}.sqlite`,
  )
  const remove = (): void => {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true })
  }
  if (options.fresh || hasStaleLayout(file)) remove()
  const db = openDatabase(
    file,
    [structureIndexMigration, structureDetailsMigration, noveltyKeysMigration],
    'the benchmark structure index',
  )
  const pool = new ChemWorkerPool()
  const engine = await StructureEngine.open({ pool, store: new StructureIndexRepository(db, 1) })
  return {
    db,
    pool,
    engine,
    async close() {
      engine.close()
      await pool.close()
      db.close()
    },
    remove,
  }
}

export interface BenchmarkSynchronization extends SynchronizeSummary {
  /** Until every molecule was searchable. */
  searchableSeconds: number
  /** Until the InChIKeys and properties were in too. */
  completeSeconds: number
}

/** Brings the index in step with the molecules, both passes (the searchable index, then details). */
export async function synchronizeBenchmarkIndex(
  index: BenchmarkIndex,
  molecules: readonly BenchmarkMolecule[],
): Promise<BenchmarkSynchronization> {
  const started = performance.now()
  let lastReport = 0
  const summary = await index.engine.synchronize(
    molecules.map(({ id, smiles }) => ({ id, structure: smiles })),
    {
      onProgress: ({ done, total, computed }) => {
        if (computed - lastReport >= 10_000) {
          lastReport = computed
          progress(`indexed ${computed} (looked at ${done} of ${total})`)
        }
      },
    },
  )
  const searchableSeconds = (performance.now() - started) / 1000
  lastReport = 0
  await index.engine.completeDetails({
    onProgress: ({ done, total }) => {
      if (done - lastReport >= 10_000) {
        lastReport = done
        progress(`details computed for ${done} of ${total}`)
      }
    },
  })
  return { ...summary, searchableSeconds, completeSeconds: (performance.now() - started) / 1000 }
}

/** An index kept from before the structure index was keyed by vault is built again. */
function hasStaleLayout(file: string): boolean {
  if (!fs.existsSync(file)) return false
  const db = new Database(file, { readonly: true })
  try {
    const columns = db.prepare('PRAGMA table_info(structure_index)').all() as { name: string }[]
    return columns.length > 0 && !columns.some((column) => column.name === 'vault_id')
  } finally {
    db.close()
  }
}
