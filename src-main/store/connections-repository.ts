import type Database from 'better-sqlite3'
import type { TokenStorage } from '../secrets/token-store.ts'
import { AppError } from '../shared/app-error.ts'
import type { ConnectionSummary } from '../shared/connection.ts'

export interface ConnectionRecord extends ConnectionSummary {
  tokenStorage: TokenStorage
}

interface ConnectionRow {
  id: string
  name: string
  base_url: string
  created_at: string
  token_storage: TokenStorage
}

const columns = 'id, name, base_url, created_at, token_storage'

/** The saved connections in the app database: names and addresses, never tokens. */
export class ConnectionsRepository {
  readonly #db: Database.Database

  constructor(db: Database.Database) {
    this.#db = db
  }

  list(): ConnectionSummary[] {
    return this.#records().map(toSummary)
  }

  get(id: string): ConnectionRecord | null {
    const row = this.#db.prepare(`SELECT ${columns} FROM connections WHERE id = ?`).get(id) as
      ConnectionRow | undefined
    return row ? toRecord(row) : null
  }

  insert(connection: ConnectionRecord): void {
    this.#guardName(connection.name, () =>
      this.#db
        .prepare(
          `INSERT INTO connections (${columns}) VALUES (@id, @name, @baseUrl, @createdAt, @tokenStorage)`,
        )
        .run(connection),
    )
  }

  rename(id: string, name: string): void {
    this.#guardName(name, () => {
      const { changes } = this.#db
        .prepare('UPDATE connections SET name = ? WHERE id = ?')
        .run(name, id)
      if (changes === 0) throw connectionNotFound(id)
    })
  }

  /** Moves a connection to another address (the demo vault's port changes at every start). */
  setBaseUrl(id: string, baseUrl: string): void {
    const { changes } = this.#db
      .prepare('UPDATE connections SET base_url = ? WHERE id = ?')
      .run(baseUrl, id)
    if (changes === 0) throw connectionNotFound(id)
  }

  setTokenStorage(id: string, storage: TokenStorage): void {
    this.#db.prepare('UPDATE connections SET token_storage = ? WHERE id = ?').run(storage, id)
  }

  delete(id: string): void {
    this.#db.prepare('DELETE FROM connections WHERE id = ?').run(id)
  }

  #records(): ConnectionRecord[] {
    const rows = this.#db
      .prepare(`SELECT ${columns} FROM connections ORDER BY name COLLATE NOCASE`)
      .all() as ConnectionRow[]
    return rows.map(toRecord)
  }

  #guardName(name: string, write: () => void): void {
    try {
      write()
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) {
        throw new AppError('conflict', `A connection named "${name}" already exists.`, {
          cause: error,
        })
      }
      throw error
    }
  }
}

export function connectionNotFound(id: string): AppError {
  return new AppError('not_found', `No connection with id ${id}.`)
}

function toRecord(row: ConnectionRow): ConnectionRecord {
  return {
    id: row.id,
    name: row.name,
    baseUrl: row.base_url,
    createdAt: row.created_at,
    tokenStorage: row.token_storage,
  }
}

function toSummary({ id, name, baseUrl, createdAt }: ConnectionRecord): ConnectionSummary {
  return { id, name, baseUrl, createdAt }
}
