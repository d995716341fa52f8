import type { Database } from 'better-sqlite3'
import type { VaultAccess } from '../../core/sim-core.ts'
import { unauthorized } from '../../core/http-error.ts'

/** Project and user references as answers show them, and the edit check every write makes. */

export interface ProjectRef {
  id: number
  name: string
}

export interface UserRef {
  id: number
  first_name: string
  last_name: string
}

export function projectRefs(db: Database, projectIds: readonly number[]): ProjectRef[] {
  if (projectIds.length === 0) return []
  return db
    .prepare(
      `SELECT id, name FROM projects WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`,
    )
    .all(JSON.stringify(projectIds)) as ProjectRef[]
}

export function projectRef(db: Database, projectId: number): ProjectRef | undefined {
  return db.prepare(`SELECT id, name FROM projects WHERE id = ?`).get(projectId) as
    ProjectRef | undefined
}

export function userRef(db: Database, userId: number): UserRef {
  const row = db.prepare(`SELECT id, first_name, last_name FROM users WHERE id = ?`).get(userId) as
    UserRef | undefined
  return row ?? { id: userId, first_name: '', last_name: '' }
}

/** The owner string of answers: the user's full name. */
export function userName(db: Database, userId: number): string {
  const user = userRef(db, userId)
  return `${user.first_name} ${user.last_name}`.trim()
}

/** The projects a user reads, as one JSON argument for `IN (SELECT value FROM json_each(?))`. */
export function readableProjects(access: VaultAccess): string {
  return JSON.stringify(access.projectIds)
}

/**
 * Refuses a change to a record none of whose projects the user may edit. The spec answers 401
 * for missing permission (write permission, dose response updates).
 */
export function requireEditable(
  access: VaultAccess,
  projectIds: readonly number[],
  what: string,
): void {
  if (!projectIds.some((projectId) => access.canEditProject(projectId))) {
    throw unauthorized(
      `The API key is not authorized to change ${what}: it needs write permission in its project`,
    )
  }
}
