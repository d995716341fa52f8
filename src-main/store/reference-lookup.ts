import Database from 'better-sqlite3'
import { isObject, toTexts, type JsonObject } from '../../src-common/values.ts'
import { recordKind } from './record-kinds.ts'
import { structureTextHash } from './structure-index-repository.ts'

/**
 * What an import file's column names a record by, as its mapping template says: a molecule by
 * its name or a synonym, a batch by its name or its molecule_batch_identifier.
 */
export type ReferenceField = 'molecule-name' | 'molecule-synonym' | 'batch-name'

/** How many cached records a value names: none, one, or several (an ambiguous reference). */
export interface ReferenceMatch {
  count: number
  /**
   * For a value naming several records, the ids of the first few, to show which (for the first
   * `identifiedValues` such values); else empty.
   */
  ids: readonly number[]
}

export type ReferenceMatches = ReadonlyMap<string, ReferenceMatch>

/** How many of an ambiguous value's records are named by id. */
const shownIds = 5
/**
 * How many ambiguous values (the first, in the order given) have their ids read: a report lists
 * a few hundred problems at most, and each id is a random page read.
 */
const identifiedValues = 100

/**
 * Looks up, in one cache, the records an import file's references name, a whole column's
 * distinct values at a time: one statement joins the values (bound as one JSON array) with the
 * indexed column, so that 10,000 names cost one query instead of 10,000. Names compare without
 * case, as the cache's columns and the vault do. Synonyms have no column: they are found through
 * the search index (one phrase query per value, only over the synonyms) and confirmed against
 * the record's JSON.
 *
 * Reads through its own read-only connection, so that a check never waits for sync's writer and
 * never holds a write lock.
 */
export class ReferenceLookup {
  readonly #db: Database.Database
  readonly #ownsConnection: boolean
  readonly #statements = new Map<string, Database.Statement>()

  /** `ownsConnection`: `close` closes the connection too. */
  constructor(db: Database.Database, options: { ownsConnection?: boolean } = {}) {
    this.#db = db
    this.#ownsConnection = options.ownsConnection ?? false
  }

  /** A lookup on its own read-only connection to a cache file; close it when done. */
  static open(cacheFile: string): ReferenceLookup {
    const db = new Database(cacheFile, { readonly: true, fileMustExist: true })
    db.pragma('busy_timeout = 5000')
    return new ReferenceLookup(db, { ownsConnection: true })
  }

  /**
   * How many records each distinct value names (values trimmed). Molecule names are counted in
   * the name index alone, grouped in SQL: reading the rows would cost a random page read each,
   * and a common name can match hundreds.
   */
  lookUp(vaultId: number, field: ReferenceField, values: Iterable<string>): ReferenceMatches {
    const wanted = distinctTrimmed(values)
    const matches = new Map<string, ReferenceMatch>()
    if (field === 'molecule-synonym') {
      for (const value of wanted) {
        const ids = this.#synonymMatches(vaultId, value)
        matches.set(value, { count: ids.length, ids: ids.length > 1 ? ids.slice(0, shownIds) : [] })
      }
      return matches
    }
    if (wanted.length === 0) return matches
    if (field === 'batch-name') return this.#batchMatches(vaultId, wanted)
    const counts = this.#moleculeNameCounts(vaultId, wanted)
    let identified = 0
    for (const value of wanted) {
      const count = counts.get(value) ?? 0
      const ids =
        count > 1 && identified++ < identifiedValues ? this.#moleculeIdsNamed(vaultId, value) : []
      matches.set(value, { count, ids })
    }
    return matches
  }

  #moleculeNameCounts(vaultId: number, wanted: readonly string[]): Map<string, number> {
    const rows = this.#prepare(
      `SELECT wanted.value AS value, COUNT(*) AS count FROM json_each(@values) AS wanted
         CROSS JOIN molecules ON molecules.vault_id = @vault AND molecules.name = wanted.value
         GROUP BY wanted.key`,
    ).all({ vault: vaultId, values: JSON.stringify(wanted) }) as { value: string; count: number }[]
    return new Map(rows.map((row) => [row.value, row.count]))
  }

  /**
   * A batch is named by its identifier (indexed) or its name (no index: batches are unnamed in
   * lists, so that half reads the table once, against the values as a set); a batch named both
   * ways counts once.
   */
  #batchMatches(vaultId: number, wanted: readonly string[]): Map<string, ReferenceMatch> {
    const rows = this.#prepare(
      `SELECT wanted.value AS value, batches.row_id AS rowId, 1 AS exact
         FROM json_each(@values) AS wanted
         CROSS JOIN batches ON batches.vault_id = @vault AND batches.identifier = wanted.value
       UNION ALL
       SELECT batches.name AS value, batches.row_id AS rowId, 0 AS exact FROM batches
         WHERE batches.vault_id = @vault
           AND batches.name COLLATE NOCASE IN (SELECT value FROM json_each(@values))`,
    ).all({ vault: vaultId, values: JSON.stringify(wanted) }) as {
      value: string
      rowId: number
      exact: number
    }[]
    const byFolded = new Map<string, string[]>()
    for (const value of wanted) {
      const folded = foldCase(value)
      byFolded.set(folded, [...(byFolded.get(folded) ?? []), value])
    }
    const rowIds = new Map<string, Set<number>>()
    for (const row of rows) {
      // The name half gives the batch's name: SQLite's NOCASE folds ASCII only, and so does this.
      const named = row.exact === 1 ? [row.value] : (byFolded.get(foldCase(row.value)) ?? [])
      for (const value of named) {
        const ids = rowIds.get(value) ?? new Set<number>()
        ids.add(row.rowId)
        rowIds.set(value, ids)
      }
    }
    const identified = wanted
      .filter((value) => (rowIds.get(value)?.size ?? 0) > 1)
      .slice(0, identifiedValues)
    const shown = identified.flatMap((value) => [...rowIds.get(value)!].slice(0, shownIds))
    const idOf = new Map(
      shown.length === 0
        ? []
        : (
            this.#prepare(
              `SELECT row_id AS rowId, id FROM batches WHERE row_id IN (SELECT value FROM json_each(?))`,
            ).all(JSON.stringify(shown)) as { rowId: number; id: number }[]
          ).map((row) => [row.rowId, row.id]),
    )
    const identifiedSet = new Set(identified)
    return new Map(
      wanted.map((value) => {
        const ids = rowIds.get(value) ?? new Set<number>()
        const match: ReferenceMatch = {
          count: ids.size,
          ids: identifiedSet.has(value)
            ? [...ids].slice(0, shownIds).flatMap((rowId) => idOf.get(rowId) ?? [])
            : [],
        }
        return [value, match]
      }),
    )
  }

  /** By the name index, which SQLite would pass over for the id's order given any ORDER BY. */
  #moleculeIdsNamed(vaultId: number, value: string): number[] {
    return (
      this.#prepare(
        `SELECT id FROM molecules INDEXED BY molecules_by_name WHERE vault_id = ? AND name = ? LIMIT ?`,
      ).all(vaultId, value, shownIds) as { id: number }[]
    ).map((row) => row.id)
  }

  /**
   * The texts among these that are the structure of a cached molecule of the vault which the
   * structure index read without a problem (found by `structure_hash`, one query for them all): a
   * file's structure equal to one of them, whatever molecule its row names, is known to parse.
   * Texts compare as structureTextHash keys them (without surrounding whitespace).
   */
  storedStructures(vaultId: number, texts: Iterable<string>): Set<string> {
    const textsByHash = new Map<string, string[]>()
    for (const text of texts) {
      const hash = structureTextHash(text)
      const same = textsByHash.get(hash)
      if (same) same.push(text)
      else textsByHash.set(hash, [text])
    }
    const stored = new Set<string>()
    if (textsByHash.size === 0) return stored
    const found = this.#prepare(
      `SELECT wanted.value FROM json_each(@hashes) AS wanted
         WHERE EXISTS (SELECT 1 FROM structure_index
           WHERE vault_id = @vault AND structure_hash = wanted.value AND parse_error IS NULL)`,
    )
      .pluck()
      .all({ vault: vaultId, hashes: JSON.stringify([...textsByHash.keys()]) }) as string[]
    for (const hash of found) for (const text of textsByHash.get(hash)!) stored.add(text)
    return stored
  }

  /** A cached mapping template by id, or else by name (exactly, then without case). */
  mappingTemplate(vaultId: number, idOrName: number | string): JsonObject | null {
    const byId =
      typeof idOrName === 'number'
        ? this.#prepare(`SELECT json FROM mapping_templates WHERE vault_id = ? AND id = ?`).get(
            vaultId,
            idOrName,
          )
        : undefined
    const row = (byId ??
      (typeof idOrName === 'string'
        ? (this.#prepare(
            `SELECT json FROM mapping_templates WHERE vault_id = ? AND name = ?
               ORDER BY (name = ? COLLATE BINARY) DESC, id LIMIT 1`,
          ).get(vaultId, idOrName.trim(), idOrName.trim()) as { json: string } | undefined)
        : undefined)) as { json: string } | undefined
    return row ? parsedObject(row.json) : null
  }

  /** A cached protocol record, or null. */
  protocol(vaultId: number, protocolId: number): JsonObject | null {
    const row = this.#prepare(`SELECT json FROM protocols WHERE vault_id = ? AND id = ?`).get(
      vaultId,
      protocolId,
    ) as { json: string } | undefined
    return row ? parsedObject(row.json) : null
  }

  /** The cached protocol that has a readout definition, or null. */
  protocolWithReadout(vaultId: number, definitionId: number): JsonObject | null {
    const row = this.#prepare(
      `SELECT protocols.json AS json FROM protocols, json_each(protocols.json, '$.readout_definitions') AS definition
         WHERE protocols.vault_id = ? AND json_extract(definition.value, '$.id') = ? LIMIT 1`,
    ).get(vaultId, definitionId) as { json: string } | undefined
    return row ? parsedObject(row.json) : null
  }

  close(): void {
    if (this.#ownsConnection) this.#db.close()
  }

  #synonymMatches(vaultId: number, value: string): number[] {
    const tokens = value.match(/[\p{L}\p{N}_-]+/gu)
    if (!tokens) return []
    const phrase = `{synonyms} : "${tokens.join(' ').replaceAll('"', '""')}"`
    const code = recordKind('molecules').code
    const rows = this.#prepare(
      `SELECT molecules.id AS id, molecules.json AS json FROM search_index
         JOIN molecules ON molecules.row_id = search_index.rowid / 64
         WHERE search_index MATCH ? AND search_index.rowid % 64 = ? AND molecules.vault_id = ?
         LIMIT 50`,
    ).all(phrase, code, vaultId) as { id: number; json: string }[]
    const folded = foldCase(value)
    return rows
      .filter((row) => {
        const record = parsedObject(row.json)
        return record !== null && toTexts(record.synonyms).some((s) => foldCase(s) === folded)
      })
      .map((row) => row.id)
  }

  #prepare(sql: string): Database.Statement {
    let statement = this.#statements.get(sql)
    if (!statement) {
      statement = this.#db.prepare(sql)
      this.#statements.set(sql, statement)
    }
    return statement
  }
}

function distinctTrimmed(values: Iterable<string>): string[] {
  const seen = new Set<string>()
  for (const value of values) {
    const trimmed = value.trim()
    if (trimmed !== '') seen.add(trimmed)
  }
  return [...seen]
}

/** Case folded as SQLite's NOCASE does: ASCII letters only. */
function foldCase(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase())
}

function parsedObject(json: string | null): JsonObject | null {
  if (json === null) return null
  try {
    const parsed: unknown = JSON.parse(json)
    return isObject(parsed) ? parsed : null
  } catch {
    return null
  }
}
