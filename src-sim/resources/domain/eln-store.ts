import type { VaultAccess } from '../../core/sim-core.ts'
import { formatSeconds } from '../../core/dates.ts'
import { notFound } from '../../core/http-error.ts'
import type { ElnStatus } from '../../pure/eln-status.ts'
import { projectRef, readableProjects, userRef } from './access-rules.ts'

/**
 * ELN entries and their status history. The body is a list of blocks (text, link, file) that
 * updates append to; the answers follow docs/spec/gaps.md
 * (summary `{id, name, status, author, url}`).
 */

export const elnSchema = `
CREATE TABLE IF NOT EXISTS eln_entries (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  title TEXT NOT NULL,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  author_id INTEGER NOT NULL REFERENCES users(id),
  status TEXT NOT NULL CHECK (status IN ('open', 'submitted', 'finalized', 'discarded')),
  fields TEXT NOT NULL DEFAULT '{}',
  body TEXT NOT NULL DEFAULT '[]',
  witness_id INTEGER REFERENCES users(id),
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS eln_status_changes (
  id INTEGER PRIMARY KEY,
  entry_id INTEGER NOT NULL REFERENCES eln_entries(id) ON DELETE CASCADE,
  action TEXT NOT NULL,
  from_status TEXT NOT NULL,
  to_status TEXT NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users(id),
  witness_id INTEGER REFERENCES users(id),
  reason TEXT,
  at INTEGER NOT NULL
);
`

export type BodyBlock =
  | { type: 'text'; text: string }
  | { type: 'link'; url: string; label?: string }
  | { type: 'file'; file: number; name: string }

export interface EntryRow {
  id: number
  vault_id: number
  title: string
  project_id: number
  author_id: number
  status: ElnStatus
  fields: string
  body: string
  witness_id: number | null
  created_at: number
  modified_at: number
}

export function visibleEntry(access: VaultAccess, id: number): EntryRow {
  const row = access.db
    .prepare(
      `SELECT * FROM eln_entries WHERE id = ? AND vault_id = ?
       AND project_id IN (SELECT value FROM json_each(?))`,
    )
    .get(id, access.vault.id, readableProjects(access)) as EntryRow | undefined
  if (!row) throw notFound(`ELN entry ${id}`)
  return row
}

/** Where the entry would open in the vault's web application. */
function entryUrl(row: EntryRow): string {
  return `https://vault.example.org/vaults/${row.vault_id}/eln/entries/${row.id}`
}

export function entrySummary(access: VaultAccess, row: EntryRow): Record<string, unknown> {
  return {
    id: row.id,
    name: row.title,
    status: row.status,
    author: userRef(access.db, row.author_id),
    url: entryUrl(row),
  }
}

export function entryRecord(access: VaultAccess, row: EntryRow): Record<string, unknown> {
  const history = access.db
    .prepare(`SELECT * FROM eln_status_changes WHERE entry_id = ? ORDER BY at, id`)
    .all(row.id) as {
    action: string
    from_status: string
    to_status: string
    user_id: number
    witness_id: number | null
    reason: string | null
    at: number
  }[]
  return {
    ...entrySummary(access, row),
    project: projectRef(access.db, row.project_id),
    eln_fields: JSON.parse(row.fields) as Record<string, unknown>,
    body: JSON.parse(row.body) as BodyBlock[],
    witness: row.witness_id === null ? null : userRef(access.db, row.witness_id),
    status_history: history.map((change) => ({
      action: change.action,
      from: change.from_status,
      to: change.to_status,
      user: userRef(access.db, change.user_id),
      ...(change.witness_id === null ? {} : { witness: userRef(access.db, change.witness_id) }),
      ...(change.reason === null ? {} : { reason: change.reason }),
      at: formatSeconds(change.at),
    })),
    created_at: formatSeconds(row.created_at),
    modified_at: formatSeconds(row.modified_at),
  }
}
