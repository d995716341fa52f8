import type Database from 'better-sqlite3'
import type { ConnectionSummary } from '../shared/connection.ts'

interface ConnectionRow {
  id: string
  name: string
  base_url: string
  created_at: string
}

export class ConnectionsRepository {
  readonly #db: Database.Database

  constructor(db: Database.Database) {
    this.#db = db
  }

  list(): ConnectionSummary[] {
    const rows = this.#db
      .prepare(
        'SELECT id, name, base_url, created_at FROM connections ORDER BY name COLLATE NOCASE',
      )
      .all() as ConnectionRow[]
    return rows.map(toSummary)
  }
}

function toSummary(row: ConnectionRow): ConnectionSummary {
  return { id: row.id, name: row.name, baseUrl: row.base_url, createdAt: row.created_at }
}
