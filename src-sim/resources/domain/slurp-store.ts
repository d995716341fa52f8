import type { Database } from 'better-sqlite3'
import type { VaultAccess } from '../../core/sim-core.ts'
import { formatSeconds } from '../../core/dates.ts'
import { notFound } from '../../core/http-error.ts'
import { projectRef, userName } from './access-rules.ts'
import type { SlurpOptions } from './slurp-options.ts'

/**
 * Slurps (data imports) as stored: the uploaded file, the import options of the json part, the
 * state, and the events and results of processing. States (docs/spec/gaps.md): mapping ->
 * processing -> processed -> committing -> committed, or rejected, invalid, canceled.
 */

export const slurpSchema = `
CREATE TABLE IF NOT EXISTS slurps (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  token_id INTEGER NOT NULL,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  file_name TEXT NOT NULL,
  file_format TEXT NOT NULL CHECK (file_format IN ('csv', 'sdf', 'xlsx', 'zip')),
  contents BLOB NOT NULL,
  options TEXT NOT NULL,
  state TEXT NOT NULL,
  plan TEXT,
  summary TEXT NOT NULL DEFAULT '{}',
  created_ms INTEGER NOT NULL,
  state_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS slurps_by_user ON slurps (user_id, state);

CREATE TABLE IF NOT EXISTS slurp_events (
  id INTEGER PRIMARY KEY,
  slurp_id INTEGER NOT NULL REFERENCES slurps(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('ambiguous', 'suspicious', 'error')),
  record INTEGER NOT NULL,
  message TEXT NOT NULL,
  resolution TEXT
);
`

export const ACTIVE_STATES = ['mapping', 'processing', 'processed', 'committing'] as const
export type SlurpState =
  (typeof ACTIVE_STATES)[number] | 'committed' | 'rejected' | 'invalid' | 'canceled'

/** Imports one account may have under way at once (docs/spec/gaps.md); the next answers 429. */
export const MAX_RUNNING_SLURPS = 3

export interface SlurpRow {
  id: number
  vault_id: number
  user_id: number
  token_id: number
  project_id: number
  file_name: string
  file_format: 'csv' | 'sdf' | 'xlsx' | 'zip'
  contents: Buffer
  options: string
  state: SlurpState
  plan: string | null
  summary: string
  created_ms: number
  state_ms: number
}

export interface SlurpEvent {
  kind: 'ambiguous' | 'suspicious' | 'error'
  record: number
  message: string
  resolution: string | null
}

/** The user's own slurps; administrators see every slurp of the vault. */
export function visibleSlurp(access: VaultAccess, id: number): SlurpRow {
  const row = access.db
    .prepare(`SELECT * FROM slurps WHERE id = ? AND vault_id = ? AND (user_id = ? OR ?)`)
    .get(id, access.vault.id, access.user.id, access.isAdmin ? 1 : 0) as SlurpRow | undefined
  if (!row) throw notFound(`Slurp ${id}`)
  return row
}

/** Cancels a slurp that is still under way; answers whether it did. */
export function cancelSlurp(db: Database, id: number, nowMs: number): boolean {
  const result = db
    .prepare(
      `UPDATE slurps SET state = 'canceled', state_ms = ? WHERE id = ?
       AND state IN (SELECT value FROM json_each(?))`,
    )
    .run(nowMs, id, JSON.stringify(ACTIVE_STATES))
  return result.changes > 0
}

export function eventsOf(db: Database, slurpId: number): SlurpEvent[] {
  return db
    .prepare(
      `SELECT kind, record, message, resolution FROM slurp_events WHERE slurp_id = ? ORDER BY id`,
    )
    .all(slurpId) as SlurpEvent[]
}

export function slurpRecord(
  db: Database,
  row: SlurpRow,
  showEvents: boolean,
): Record<string, unknown> {
  const options = JSON.parse(row.options) as SlurpOptions
  const record: Record<string, unknown> = {
    id: row.id,
    class: 'slurp',
    state: row.state,
    file_name: row.file_name,
    file_format: row.file_format,
    project: projectRef(db, row.project_id),
    owner: userName(db, row.user_id),
    mapping_template: options.template,
    summary: JSON.parse(row.summary) as Record<string, unknown>,
    created_at: formatSeconds(Math.floor(row.created_ms / 1000)),
    modified_at: formatSeconds(Math.floor(row.state_ms / 1000)),
  }
  if (showEvents) {
    const events = eventsOf(db, row.id)
    const of = (kind: SlurpEvent['kind']) =>
      events
        .filter((event) => event.kind === kind)
        .map((event) => ({
          record: event.record,
          message: event.message,
          ...(kind === 'error' ? {} : { resolution: event.resolution }),
        }))
    record.ambiguous_events = of('ambiguous')
    record.suspicious_events = of('suspicious')
    record.import_errors = of('error')
  }
  return record
}
