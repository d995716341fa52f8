import type { Database } from 'better-sqlite3'
import type { QueryScope } from './scope.ts'

/**
 * The molecules and batches a scope reaches (through its projects or public data sets), as
 * bitmaps indexed by id. Reading the memberships once through their project indexes is several
 * times faster than asking SQLite for both memberships of every molecule of a large vault.
 */
function bitmap(db: Database, table: 'molecules' | 'batches', sources: string[], args: string[]) {
  const largest = (db.prepare(`SELECT max(id) FROM ${table}`).pluck().get() as number | null) ?? 0
  const reached = new Uint8Array(largest + 1)
  sources.forEach((sql, index) => {
    for (const id of db.prepare(sql).pluck().all(args[index]) as number[]) reached[id] = 1
  })
  return reached
}

export function reachedMolecules(db: Database, scope: QueryScope): Uint8Array {
  return bitmap(
    db,
    'molecules',
    [
      `SELECT molecule_id FROM molecule_projects WHERE project_id IN (SELECT value FROM json_each(?))`,
      `SELECT molecule_id FROM molecule_data_sets WHERE data_set_id IN (SELECT value FROM json_each(?))`,
    ],
    [JSON.stringify(scope.projectIds), JSON.stringify(scope.dataSetIds)],
  )
}

export function reachedBatches(db: Database, scope: QueryScope): Uint8Array {
  return bitmap(
    db,
    'batches',
    [
      `SELECT batch_id FROM batch_projects WHERE project_id IN (SELECT value FROM json_each(?))`,
      `SELECT id FROM batches WHERE data_set_id IN (SELECT value FROM json_each(?))`,
    ],
    [JSON.stringify(scope.projectIds), JSON.stringify(scope.dataSetIds)],
  )
}
