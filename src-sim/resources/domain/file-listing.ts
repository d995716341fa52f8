import type { Database } from 'better-sqlite3'

/**
 * The files a run or protocol record lists, oldest first, as the deployed service's records list
 * them (`source_files[{id, name}]`, as a molecule's do: docs/spec/gaps.md), in its lists too.
 */
export function listedFiles(
  db: Database,
  resourceClass: 'run' | 'protocol',
  resourceId: number,
): { id: number; name: string }[] {
  return db
    .prepare(
      `SELECT id, name FROM uploaded_files WHERE resource_class = ? AND resource_id = ? ORDER BY id`,
    )
    .all(resourceClass, resourceId) as { id: number; name: string }[]
}
