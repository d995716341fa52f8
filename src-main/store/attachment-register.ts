import Database from 'better-sqlite3'
import { openDatabase } from './sqlite.ts'

/**
 * The register of one connection's attachment contents: which files of which vault were fetched
 * (size, SHA-256, when fetched and last opened), which were left out for the budget, which failed
 * and why, which were set aside. It is a database of its own beside the contents
 * (`<dataDir>/attachments/<connection>/register.db`), not a table of the cache: a cache that is
 * rebuilt must not forget hundreds of megabytes already on disk.
 */

export const attachmentStates = ['fetched', 'over_budget', 'failed', 'quarantined'] as const
export type AttachmentState = (typeof attachmentStates)[number]

export interface AttachmentEntry {
  vaultId: number
  fileId: number
  name: string | null
  mimeType: string | null
  /** The size the vault gave, else the bytes fetched; null when neither is known yet. */
  size: number | null
  /** Of the fetched contents. */
  sha256: string | null
  /** The contents' file name in the connection's contents folder, while fetched. */
  storedAs: string | null
  state: AttachmentState
  /** Why it failed, was set aside or left out, in words. */
  reason: string | null
  /** The person asked for it beyond the budget: automatic eviction leaves it. */
  kept: boolean
  fetchedAt: string | null
  lastOpenedAt: string | null
  updatedAt: string
}

const migrations = [
  (db: Database.Database) => {
    db.exec(`
      CREATE TABLE attachments (
        vault_id INTEGER NOT NULL,
        file_id INTEGER NOT NULL,
        name TEXT,
        mime_type TEXT,
        size INTEGER,
        sha256 TEXT,
        stored_as TEXT,
        state TEXT NOT NULL CHECK (state IN ('fetched', 'over_budget', 'failed', 'quarantined')),
        reason TEXT,
        kept INTEGER NOT NULL DEFAULT 0,
        fetched_at TEXT,
        last_opened_at TEXT,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (vault_id, file_id)
      );
      CREATE INDEX attachments_by_state ON attachments (state);
      -- Files learned of by reading one record online (a molecule's files attached after it was
      -- synced: attaching leaves its modified_at, so the cache's copy does not name them).
      CREATE TABLE known_files (
        vault_id INTEGER NOT NULL,
        file_id INTEGER NOT NULL,
        resource_class TEXT NOT NULL,
        resource_id INTEGER NOT NULL,
        name TEXT,
        PRIMARY KEY (vault_id, file_id)
      );
      CREATE INDEX known_files_by_resource ON known_files (vault_id, resource_class, resource_id);
    `)
  },
  (db: Database.Database) => {
    // Where the last reading of a listing that names files left off (the notebook entries
    // export): the next asks only what changed since.
    db.exec(`
      CREATE TABLE file_listings (
        vault_id INTEGER NOT NULL,
        listing TEXT NOT NULL,
        read_since TEXT NOT NULL,
        PRIMARY KEY (vault_id, listing)
      );
    `)
  },
]

interface Row {
  vault_id: number
  file_id: number
  name: string | null
  mime_type: string | null
  size: number | null
  sha256: string | null
  stored_as: string | null
  state: AttachmentState
  reason: string | null
  kept: number
  fetched_at: string | null
  last_opened_at: string | null
  updated_at: string
}

function entryOf(row: Row): AttachmentEntry {
  return {
    vaultId: row.vault_id,
    fileId: row.file_id,
    name: row.name,
    mimeType: row.mime_type,
    size: row.size,
    sha256: row.sha256,
    storedAs: row.stored_as,
    state: row.state,
    reason: row.reason,
    kept: row.kept === 1,
    fetchedAt: row.fetched_at,
    lastOpenedAt: row.last_opened_at,
    updatedAt: row.updated_at,
  }
}

export type AttachmentRecord = Omit<AttachmentEntry, 'updatedAt' | 'lastOpenedAt'> & {
  lastOpenedAt?: string | null
}

export class AttachmentRegister {
  readonly file: string
  readonly #db: Database.Database

  constructor(file: string) {
    this.file = file
    this.#db = openDatabase(file, migrations, 'the attachment register')
  }

  get(vaultId: number, fileId: number): AttachmentEntry | null {
    const row = this.#db
      .prepare<[number, number], Row>(
        `SELECT * FROM attachments WHERE vault_id = ? AND file_id = ?`,
      )
      .get(vaultId, fileId)
    return row ? entryOf(row) : null
  }

  /** The entries of these files of a vault (those the register holds). */
  many(vaultId: number, fileIds: readonly number[]): AttachmentEntry[] {
    return this.#db
      .prepare<[number, string], Row>(
        `SELECT * FROM attachments WHERE vault_id = ? AND file_id IN (SELECT value FROM json_each(?))`,
      )
      .all(vaultId, JSON.stringify(fileIds))
      .map(entryOf)
  }

  fetched(): AttachmentEntry[] {
    return this.#db
      .prepare<[], Row>(`SELECT * FROM attachments WHERE state = 'fetched'`)
      .all()
      .map(entryOf)
  }

  /** Bytes of every fetched file: what counts against the budget. */
  fetchedBytes(): number {
    return this.#db
      .prepare<[], number>(`SELECT coalesce(sum(size), 0) FROM attachments WHERE state = 'fetched'`)
      .pluck()
      .get()!
  }

  /** Records what became of a file (its entry is replaced whole; last opened is kept). */
  record(entry: AttachmentRecord, now: string = new Date().toISOString()): void {
    this.#db
      .prepare(
        `INSERT INTO attachments (vault_id, file_id, name, mime_type, size, sha256, stored_as, state,
           reason, kept, fetched_at, last_opened_at, updated_at)
         VALUES (@vaultId, @fileId, @name, @mimeType, @size, @sha256, @storedAs, @state, @reason, @kept,
           @fetchedAt, @lastOpenedAt, @now)
         ON CONFLICT (vault_id, file_id) DO UPDATE SET name = excluded.name,
           mime_type = excluded.mime_type, size = excluded.size, sha256 = excluded.sha256,
           stored_as = excluded.stored_as,
           state = excluded.state, reason = excluded.reason, kept = excluded.kept,
           fetched_at = excluded.fetched_at,
           last_opened_at = coalesce(excluded.last_opened_at, attachments.last_opened_at),
           updated_at = excluded.updated_at`,
      )
      .run({
        ...entry,
        kept: entry.kept ? 1 : 0,
        lastOpenedAt: entry.lastOpenedAt ?? null,
        now,
      })
  }

  /** The file was opened or previewed: the last to be evicted among files of its size. */
  touch(vaultId: number, fileId: number, now: string = new Date().toISOString()): void {
    this.#db
      .prepare(`UPDATE attachments SET last_opened_at = ? WHERE vault_id = ? AND file_id = ?`)
      .run(now, vaultId, fileId)
  }

  /** Its contents were removed to keep within the budget: it is fetched again only on demand. */
  markEvicted(vaultId: number, fileId: number, reason: string, now = new Date().toISOString()) {
    this.#db
      .prepare(
        `UPDATE attachments SET state = 'over_budget', reason = ?, sha256 = NULL, stored_as = NULL,
           fetched_at = NULL,
           kept = 0, updated_at = ? WHERE vault_id = ? AND file_id = ?`,
      )
      .run(reason, now, vaultId, fileId)
  }

  /** The files a record lists now, as read online: they replace what was known of it. */
  learn(
    vaultId: number,
    resourceClass: string,
    resourceId: number,
    files: readonly { id: number; name: string | null }[],
  ): void {
    this.#db.transaction(() => {
      this.#db
        .prepare(
          `DELETE FROM known_files WHERE vault_id = ? AND resource_class = ? AND resource_id = ?`,
        )
        .run(vaultId, resourceClass, resourceId)
      const insert = this.#db.prepare(
        `INSERT OR REPLACE INTO known_files (vault_id, file_id, resource_class, resource_id, name)
         VALUES (?, ?, ?, ?, ?)`,
      )
      for (const file of files) insert.run(vaultId, file.id, resourceClass, resourceId, file.name)
    })()
  }

  /** Where the last reading of a vault's listing left off (null before the first). */
  listingReadSince(vaultId: number, listing: string): string | null {
    return (
      this.#db
        .prepare<[number, string], string>(
          `SELECT read_since FROM file_listings WHERE vault_id = ? AND listing = ?`,
        )
        .pluck()
        .get(vaultId, listing) ?? null
    )
  }

  /** The records a listing gave learned at once, and where the next reading starts. */
  learnListing(
    vaultId: number,
    listing: { name: string; resourceClass: string; readSince: string },
    records: ReadonlyMap<number, readonly { id: number; name: string | null }[]>,
  ): void {
    this.#db.transaction(() => {
      for (const [resourceId, files] of records) {
        this.learn(vaultId, listing.resourceClass, resourceId, files)
      }
      this.#db
        .prepare(
          `INSERT INTO file_listings (vault_id, listing, read_since) VALUES (?, ?, ?)
           ON CONFLICT (vault_id, listing) DO UPDATE SET read_since = excluded.read_since`,
        )
        .run(vaultId, listing.name, listing.readSince)
    })()
  }

  /** Files known to belong to a record, or (without one) to any record of the vault. */
  known(
    vaultId: number,
    resource?: { resourceClass: string; resourceId: number },
  ): AttachmentCandidate[] {
    const rows = resource
      ? this.#db
          .prepare<[number, string, number], { file_id: number; name: string | null }>(
            `SELECT file_id, name FROM known_files
             WHERE vault_id = ? AND resource_class = ? AND resource_id = ? ORDER BY file_id`,
          )
          .all(vaultId, resource.resourceClass, resource.resourceId)
      : this.#db
          .prepare<[number], { file_id: number; name: string | null }>(
            `SELECT file_id, name FROM known_files WHERE vault_id = ? ORDER BY file_id`,
          )
          .all(vaultId)
    return rows.map((row) => ({ fileId: row.file_id, name: row.name, mimeType: null, size: null }))
  }

  close(): void {
    this.#db.close()
  }
}

/** A file a cached record lists, as the cache knows it (its size only when the vault gave one). */
export interface AttachmentCandidate {
  fileId: number
  name: string | null
  mimeType: string | null
  size: number | null
}

/**
 * The files the cached records of a vault list: file records (those the vault gave, or the
 * outbox's uploads stored), the `source_files` of molecules, runs and protocols, and the files
 * notebook entries name. Read through a connection of its own, read-only, so that the cache's
 * owner is not involved.
 */
export function attachmentCandidates(cacheFile: string, vaultId: number): AttachmentCandidate[] {
  const db = new Database(cacheFile, { readonly: true, fileMustExist: true })
  try {
    db.pragma('busy_timeout = 5000')
    const tables = new Set(
      db.prepare<[], string>(`SELECT name FROM sqlite_schema WHERE type = 'table'`).pluck().all(),
    )
    const found = new Map<number, AttachmentCandidate>()
    const addReferenced = (id: unknown, name: unknown) => {
      const fileId = Number(id)
      if (id === null || !Number.isSafeInteger(fileId) || fileId <= 0 || found.has(fileId)) return
      found.set(fileId, {
        fileId,
        name: typeof name === 'string' ? name : null,
        mimeType: null,
        size: null,
      })
    }
    if (tables.has('files')) {
      const rows = db
        .prepare<
          [number],
          { id: number; name: string | null; mime_type: string | null; size: unknown }
        >(`SELECT id, name, mime_type, json ->> '$.size' AS size FROM files WHERE vault_id = ?`)
        .all(vaultId)
      for (const row of rows) {
        found.set(row.id, {
          fileId: row.id,
          name: row.name,
          mimeType: row.mime_type,
          size: sizeOf(row.size),
        })
      }
    }
    // Molecules, runs and protocols list their files as `source_files`, in lists too.
    for (const table of ['molecules', 'runs', 'protocols'].filter((name) => tables.has(name))) {
      const rows = db
        .prepare<[number], { id: unknown; name: unknown }>(
          `SELECT source.value ->> '$.id' AS id, source.value ->> '$.name' AS name
           FROM ${table} AS record, json_each(record.json, '$.source_files') AS source
           WHERE record.vault_id = ? AND json_type(record.json, '$.source_files') = 'array'`,
        )
        .all(vaultId)
      for (const row of rows) addReferenced(row.id, row.name)
    }
    if (tables.has('eln_entries')) {
      // An entry's body and lists name files as `{type: "file", file: id}` or bare ids.
      const rows = db
        .prepare<[number], { id: unknown }>(
          `SELECT CASE
               WHEN item.type = 'object' THEN coalesce(item.value ->> '$.file', item.value ->> '$.id')
               WHEN item.type IN ('integer', 'text') THEN item.value
             END AS id
           FROM eln_entries, json_each(eln_entries.json) AS list, json_each(list.value) AS item
           WHERE eln_entries.vault_id = ? AND list.key IN ('files', 'body', 'append_to_body')
             AND list.type = 'array'`,
        )
        .all(vaultId)
      for (const row of rows) addReferenced(row.id, null)
    }
    return [...found.values()]
  } finally {
    db.close()
  }
}

function sizeOf(value: unknown): number | null {
  const size = Number(value)
  return value !== null && Number.isSafeInteger(size) && size >= 0 ? size : null
}
