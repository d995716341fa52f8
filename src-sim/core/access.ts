import type { Database } from 'better-sqlite3'
import type { SimCore, VaultAccess } from './sim-core.ts'
import type { SimUser, SimVault, VaultRole } from './users-and-vaults.ts'
import { preparedOnce } from './statements.ts'

interface UserRow {
  id: number
  first_name: string
  last_name: string
  email: string
  time_zone: string
  can_witness_eln: number
}

interface VaultRow {
  id: number
  name: string
  api_access: number
  deep_learning: number
  registration_system: number
  inventory_fields: number
  eln_witnessing: number
}

export function toUser(row: UserRow): SimUser {
  return {
    id: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    timeZone: row.time_zone,
    canWitnessEln: row.can_witness_eln === 1,
  }
}

export function toVault(row: VaultRow): SimVault {
  return {
    id: row.id,
    name: row.name,
    apiAccess: row.api_access === 1,
    deepLearning: row.deep_learning === 1,
    registrationSystem: row.registration_system === 1,
    inventoryFields: row.inventory_fields === 1,
    elnWitnessing: row.eln_witnessing === 1,
  }
}

/** The token's owner, or undefined for an unknown token. */
export function authenticate(
  db: Database,
  token: string,
): { user: SimUser; tokenId: number } | undefined {
  const row = preparedOnce(
    db,
    `SELECT users.*, api_tokens.id AS token_id FROM api_tokens JOIN users ON users.id = api_tokens.user_id
     WHERE api_tokens.token = ?`,
  ).get(token) as (UserRow & { token_id: number }) | undefined
  return row ? { user: toUser(row), tokenId: row.token_id } : undefined
}

/**
 * Builds what a user may do in a vault; undefined (a 401) when the vault does not exist, has API
 * access off, or the user is not a member. Vault administrators reach every project of the vault;
 * other members reach the projects they belong to and may edit data where the membership says so
 * (never as read-only members).
 */
export function buildAccess(
  sim: SimCore,
  userId: number,
  tokenId: number,
  vaultId: number,
): VaultAccess | undefined {
  const db = sim.db
  const vaultRow = preparedOnce(db, `SELECT * FROM vaults WHERE id = ?`).get(vaultId) as
    VaultRow | undefined
  if (!vaultRow || vaultRow.api_access !== 1) return undefined
  const member = preparedOnce(
    db,
    `SELECT users.*, vault_members.role, vault_members.can_manage_projects FROM vault_members
     JOIN users ON users.id = vault_members.user_id WHERE vault_members.vault_id = ? AND vault_members.user_id = ?`,
  ).get(vaultId, userId) as (UserRow & { role: VaultRole; can_manage_projects: number }) | undefined
  if (!member) return undefined
  const isAdmin = member.role === 'admin'
  const memberships = isAdmin
    ? (preparedOnce(
        db,
        `SELECT id AS project_id, 1 AS can_edit_data FROM projects WHERE vault_id = ? ORDER BY id`,
      ).all(vaultId) as {
        project_id: number
        can_edit_data: number
      }[])
    : (preparedOnce(
        db,
        `SELECT project_members.project_id, project_members.can_edit_data FROM project_members
         JOIN projects ON projects.id = project_members.project_id
         WHERE projects.vault_id = ? AND project_members.user_id = ? ORDER BY project_members.project_id`,
      ).all(vaultId, userId) as { project_id: number; can_edit_data: number }[])
  const projectIds = memberships.map((membership) => membership.project_id)
  const writableProjectIds =
    member.role === 'reader'
      ? []
      : memberships
          .filter((membership) => membership.can_edit_data === 1)
          .map((membership) => membership.project_id)
  const readable = new Set(projectIds)
  const writable = new Set(writableProjectIds)
  return {
    sim,
    db,
    user: toUser(member),
    tokenId,
    vault: toVault(vaultRow),
    role: member.role,
    isAdmin,
    canWrite: member.role !== 'reader',
    canManageProjects: isAdmin || member.can_manage_projects === 1,
    projectIds,
    writableProjectIds,
    canReadProject: (projectId) => readable.has(projectId),
    canEditProject: (projectId) => writable.has(projectId),
  }
}
