import { randomBytes } from 'node:crypto'
import type { Database } from 'better-sqlite3'
import type { VaultRole } from './users-and-vaults.ts'

export type VaultKey = 'main' | 'ai' | 'closed'
export type UserKey = 'admin' | 'writer' | 'reader' | 'outsider'
export type ProjectKey = 'kinase' | 'gpcr' | 'confidential' | 'aiExploration' | 'archive'

export interface CastVault {
  key: VaultKey
  id: number
  name: string
  apiAccess: boolean
  deepLearning: boolean
  registrationSystem: boolean
}

export interface CastUser {
  key: UserKey
  id: number
  name: string
  email: string
  tokens: string[]
  /** Role per vault id. */
  roles: Record<number, VaultRole>
}

export interface CastProject {
  key: ProjectKey
  id: number
  vaultId: number
  name: string
}

/**
 * The people and places every seed starts from: the main vault (API on, no registration
 * system), an AI vault (deep learning on, registration system), and a vault with API access off;
 * an administrator, a member with write permission (two tokens), a read-only member, and an
 * outsider who belongs to the AI vault only.
 */
export interface SeedCast {
  vaults: Record<VaultKey, CastVault>
  users: Record<UserKey, CastUser>
  projects: Record<ProjectKey, CastProject>
  /** The main vault's public data set. */
  referenceDataSetId: number
}

interface UserPlan {
  key: UserKey
  first: string
  last: string
  timeZone: string
  witness: boolean
  tokenNames: string[]
}

const userPlans: UserPlan[] = [
  {
    key: 'admin',
    first: 'Ada',
    last: 'Lovelace',
    timeZone: 'UTC',
    witness: true,
    tokenNames: ['Ada desktop'],
  },
  {
    key: 'writer',
    first: 'Rosalind',
    last: 'Franklin',
    timeZone: 'America/New_York',
    witness: true,
    tokenNames: ['Rosalind desktop', 'Rosalind pipeline'],
  },
  {
    key: 'reader',
    first: 'Dorothy',
    last: 'Hodgkin',
    timeZone: 'Europe/Berlin',
    witness: false,
    tokenNames: ['Dorothy desktop'],
  },
  {
    key: 'outsider',
    first: 'Otto',
    last: 'Warburg',
    timeZone: 'Asia/Tokyo',
    witness: false,
    tokenNames: ['Otto desktop'],
  },
]

export function seedCast(db: Database, now: number): SeedCast {
  const insertVault = db.prepare(
    `INSERT INTO vaults (name, api_access, deep_learning, registration_system) VALUES (?, ?, ?, ?)`,
  )
  const vault = (
    key: VaultKey,
    name: string,
    apiAccess: boolean,
    deepLearning: boolean,
    registrationSystem: boolean,
  ): CastVault => ({
    key,
    id: Number(
      insertVault.run(name, Number(apiAccess), Number(deepLearning), Number(registrationSystem))
        .lastInsertRowid,
    ),
    name,
    apiAccess,
    deepLearning,
    registrationSystem,
  })
  const vaults: Record<VaultKey, CastVault> = {
    main: vault('main', 'Vault Desk Demo', true, false, false),
    ai: vault('ai', 'Discovery AI', true, true, true),
    closed: vault('closed', 'Legacy Archive', false, false, false),
  }

  const insertUser = db.prepare(
    `INSERT INTO users (first_name, last_name, email, time_zone, can_witness_eln) VALUES (?, ?, ?, ?, ?)`,
  )
  const insertToken = db.prepare(`INSERT INTO api_tokens (user_id, name, token) VALUES (?, ?, ?)`)
  const users = {} as Record<UserKey, CastUser>
  for (const plan of userPlans) {
    const email = `${plan.first}.${plan.last}@example.org`.toLowerCase()
    const id = Number(
      insertUser.run(plan.first, plan.last, email, plan.timeZone, Number(plan.witness))
        .lastInsertRowid,
    )
    const tokens = plan.tokenNames.map((name) => {
      const token = randomBytes(24).toString('base64url')
      insertToken.run(id, name, token)
      return token
    })
    users[plan.key] = {
      key: plan.key,
      id,
      name: `${plan.first} ${plan.last}`,
      email,
      tokens,
      roles: {},
    }
  }

  const insertMember = db.prepare(
    `INSERT INTO vault_members (vault_id, user_id, role, can_manage_projects) VALUES (?, ?, ?, ?)`,
  )
  const member = (
    vaultKey: VaultKey,
    userKey: UserKey,
    role: VaultRole,
    canManageProjects = false,
  ): void => {
    insertMember.run(vaults[vaultKey].id, users[userKey].id, role, Number(canManageProjects))
    users[userKey].roles[vaults[vaultKey].id] = role
  }
  member('main', 'admin', 'admin')
  member('main', 'writer', 'writer', true)
  member('main', 'reader', 'reader')
  member('ai', 'admin', 'admin')
  member('ai', 'writer', 'writer')
  member('ai', 'outsider', 'reader')
  member('closed', 'admin', 'admin')
  member('closed', 'writer', 'writer')

  const insertProject = db.prepare(
    `INSERT INTO projects (vault_id, name, description, created_at, modified_at) VALUES (?, ?, ?, ?, ?)`,
  )
  const insertProjectMember = db.prepare(
    `INSERT INTO project_members (project_id, user_id, can_manage_project, can_edit_data) VALUES (?, ?, ?, ?)`,
  )
  const project = (
    key: ProjectKey,
    vaultKey: VaultKey,
    name: string,
    description: string,
    members: [UserKey, 'manage' | 'edit' | 'view'][],
  ): CastProject => {
    const created = now - 400 * 86_400
    const id = Number(
      insertProject.run(vaults[vaultKey].id, name, description, created, created).lastInsertRowid,
    )
    for (const [userKey, level] of members) {
      insertProjectMember.run(
        id,
        users[userKey].id,
        Number(level === 'manage'),
        Number(level !== 'view' && users[userKey].roles[vaults[vaultKey].id] !== 'reader'),
      )
    }
    return { key, id, vaultId: vaults[vaultKey].id, name }
  }
  const projects: Record<ProjectKey, CastProject> = {
    kinase: project(
      'kinase',
      'main',
      'Kinase Inhibitors',
      'ATP-competitive kinase inhibitor series',
      [
        ['admin', 'manage'],
        ['writer', 'manage'],
        ['reader', 'view'],
      ],
    ),
    gpcr: project('gpcr', 'main', 'GPCR Ligands', 'Aminergic GPCR ligand optimisation', [
      ['admin', 'manage'],
      ['writer', 'edit'],
    ]),
    confidential: project(
      'confidential',
      'main',
      'Confidential Leads',
      'Partnered leads: restricted access',
      [['admin', 'manage']],
    ),
    aiExploration: project('aiExploration', 'ai', 'AI Exploration', 'Generative design follow-up', [
      ['admin', 'manage'],
      ['writer', 'edit'],
      ['outsider', 'view'],
    ]),
    archive: project('archive', 'closed', 'Archive', 'Historic screening data', [
      ['admin', 'manage'],
      ['writer', 'edit'],
    ]),
  }

  const referenceDataSetId = Number(
    db
      .prepare(`INSERT INTO data_sets (vault_id, name) VALUES (?, ?)`)
      .run(vaults.main.id, 'Reference Compounds').lastInsertRowid,
  )
  return { vaults, users, projects, referenceDataSetId }
}
