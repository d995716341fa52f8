import type { VaultAccess } from '../../core/sim-core.ts'
import { missingIds } from '../../core/http-error.ts'
import type { Params } from '../../core/params.ts'

/** The projects and public data sets a query searches. */
export interface QueryScope {
  projectIds: readonly number[]
  dataSetIds: readonly number[]
}

/**
 * `projects` (default: every project the user reaches) and `data_sets` (default: every public
 * data set of the vault). A project the user cannot reach counts as missing: 404 listing it.
 */
export function readScope(access: VaultAccess, params: Params): QueryScope {
  const requestedProjects = params.ids('projects')
  if (requestedProjects) {
    const missing = requestedProjects.filter((id) => !access.canReadProject(id))
    if (missing.length > 0) throw missingIds('Projects', missing)
  }
  const vaultDataSets = (
    access.db
      .prepare(`SELECT id FROM data_sets WHERE vault_id = ? ORDER BY id`)
      .all(access.vault.id) as { id: number }[]
  ).map((row) => row.id)
  const requestedDataSets = params.ids('data_sets')
  if (requestedDataSets) {
    const missing = requestedDataSets.filter((id) => !vaultDataSets.includes(id))
    if (missing.length > 0) throw missingIds('Data sets', missing)
  }
  return {
    projectIds: requestedProjects ?? access.projectIds,
    dataSetIds: requestedDataSets ?? vaultDataSets,
  }
}

/** `(1,2,3)` for validated integer ids; `(NULL)` matches nothing. */
export function sqlList(ids: readonly number[]): string {
  return ids.length === 0 ? '(NULL)' : `(${ids.map((id) => Math.trunc(id)).join(',')})`
}

export function moleculeVisibleSql(scope: QueryScope, alias = 'm'): string {
  return `(EXISTS (SELECT 1 FROM molecule_projects mp WHERE mp.molecule_id = ${alias}.id AND mp.project_id IN ${sqlList(scope.projectIds)})
    OR EXISTS (SELECT 1 FROM molecule_data_sets md WHERE md.molecule_id = ${alias}.id AND md.data_set_id IN ${sqlList(scope.dataSetIds)}))`
}

export function batchVisibleSql(scope: QueryScope, alias = 'b'): string {
  return `(EXISTS (SELECT 1 FROM batch_projects bp WHERE bp.batch_id = ${alias}.id AND bp.project_id IN ${sqlList(scope.projectIds)})
    OR ${alias}.data_set_id IN ${sqlList(scope.dataSetIds)})`
}

/** Everything the user reaches in the vault, as single-record reads use it. */
export function fullScope(access: VaultAccess): QueryScope {
  const dataSetIds = (
    access.db.prepare(`SELECT id FROM data_sets WHERE vault_id = ?`).all(access.vault.id) as {
      id: number
    }[]
  ).map((row) => row.id)
  return { projectIds: access.projectIds, dataSetIds }
}
