import type Database from 'better-sqlite3'
import { gridLabel, readGridLabel } from '../../src-common/plates/grid-positions.ts'
import type {
  LocationPlaces,
  SampleFieldDefinition,
} from '../../src-common/plates/sample-placement.ts'
import type { BatchMatch, BatchResolution } from '../../src-common/plates/well-list.ts'
import { isObject, toNumber, toText, type JsonObject } from '../../src-common/values.ts'

/**
 * What a new sample or plate names, looked up in a vault's cache before anything is queued:
 * batches by id, name or molecule_batch_identifier (every batch a reference could mean, so that an
 * ambiguous one is reported rather than guessed), projects by id or name, an inventory location
 * with its grid and the positions its cached samples take, and the custom fields samples carry.
 * Batch ids and identifiers are found by their indexes; names (batches have no name index) by one
 * pass over the vault's batches for the whole list of references.
 */

export interface ProjectMatch {
  id: number
  name: string
}

/** A field definition is a sample field when its type or category says inventory. */
const sampleFieldPattern = /inventory|sample/i

/** At most this many batches are named per reference in an ambiguity. */
const matchesShown = 10

export class InventoryReferences {
  readonly #db: Database.Database

  constructor(db: Database.Database) {
    this.#db = db
  }

  /** How many records of a kind the cache holds for the vault (0: never synced, or none). */
  count(kind: 'batches' | 'projects' | 'inventory_locations', vaultId: number): number {
    return this.#db
      .prepare(`SELECT count(*) FROM ${kind} WHERE vault_id = ?`)
      .pluck()
      .get(vaultId) as number
  }

  /** Every distinct batch each reference names, by id, name or identifier (case-insensitive). */
  batches(vaultId: number, references: readonly string[]): BatchResolution[] {
    const wanted = [...new Set(references.map((reference) => reference.trim()))]
    const ids = wanted.filter((reference) => /^[1-9]\d{0,14}$/.test(reference)).map(Number)
    const byId = this.#db
      .prepare(
        `SELECT id, name, identifier FROM batches
          WHERE vault_id = ? AND id IN (SELECT value FROM json_each(?))`,
      )
      .all(vaultId, JSON.stringify(ids)) as BatchRow[]
    const lowered = JSON.stringify(wanted.map((reference) => reference.toLowerCase()))
    const byIdentifier = this.#db
      .prepare(
        `SELECT id, name, identifier FROM batches
          WHERE vault_id = ? AND identifier IN (SELECT value FROM json_each(?))`,
      )
      .all(vaultId, lowered) as BatchRow[]
    const byName = this.#db
      .prepare(
        // Batches have no name index: one pass over the table beats visiting every row of the
        // vault through the identifier index, which the planner would otherwise choose.
        `SELECT id, name, identifier FROM batches NOT INDEXED
          WHERE vault_id = ? AND name IN (SELECT value FROM json_each(?))`,
      )
      .all(vaultId, lowered) as BatchRow[]
    const found = new Map<string, Map<number, BatchMatch>>()
    const add = (key: string, row: BatchRow, by: BatchMatch['by']) => {
      const matches = found.get(key) ?? new Map<number, BatchMatch>()
      found.set(key, matches)
      if (!matches.has(row.id)) matches.set(row.id, { batchId: row.id, label: labelOf(row), by })
    }
    for (const row of byId) add(String(row.id), row, 'id')
    for (const row of byIdentifier)
      if (row.identifier) add(row.identifier.toLowerCase(), row, 'identifier')
    for (const row of byName) if (row.name) add(row.name.toLowerCase(), row, 'name')
    return references.map((reference) => {
      const trimmed = reference.trim()
      const asId = /^[1-9]\d{0,14}$/.test(trimmed) ? found.get(String(Number(trimmed))) : undefined
      const asText = found.get(trimmed.toLowerCase())
      const matches = new Map<number, BatchMatch>()
      for (const match of [...(asId?.values() ?? []), ...(asText?.values() ?? [])]) {
        if (!matches.has(match.batchId)) matches.set(match.batchId, match)
      }
      return {
        reference,
        matches: [...matches.values()].slice(0, matchesShown),
        count: matches.size,
      }
    })
  }

  /** The projects each reference names, by id or name (case-insensitive). */
  projects(vaultId: number, references: readonly (string | number)[]): ProjectMatch[][] {
    const rows = this.#db
      .prepare('SELECT id, name FROM projects WHERE vault_id = ?')
      .all(vaultId) as { id: number; name: string | null }[]
    return references.map((reference) => {
      const text = String(reference).trim()
      return rows
        .filter(
          (row) =>
            (/^\d+$/.test(text) && row.id === Number(text)) ||
            (row.name !== null && row.name.toLowerCase() === text.toLowerCase()),
        )
        .map((row) => ({ id: row.id, name: row.name ?? `Project ${row.id}` }))
    })
  }

  /** A cached location with its grid and the positions its cached samples take; null if unknown. */
  location(vaultId: number, locationId: number): LocationPlaces | null {
    const row = this.#db
      .prepare('SELECT id, name, json FROM inventory_locations WHERE vault_id = ? AND id = ?')
      .get(vaultId, locationId) as { id: number; name: string | null; json: string } | undefined
    if (!row) return null
    const json = JSON.parse(row.json) as JsonObject
    const rows = toNumber(json.num_rows)
    const columns = toNumber(json.num_columns)
    const samples = this.#db
      .prepare('SELECT json FROM inventory_samples WHERE vault_id = ? AND location_id = ?')
      .pluck()
      .all(vaultId, locationId) as string[]
    const taken = samples.flatMap((sample) => {
      const location = (JSON.parse(sample) as JsonObject).location
      const position = isObject(location) ? toText(location.position) : null
      return position ? [positionLabel(position)] : []
    })
    return {
      id: row.id,
      name: row.name ?? toText(json.value) ?? `Location ${row.id}`,
      grid: rows && columns && rows > 0 && columns > 0 ? { rows, columns } : null,
      positionLimit: toNumber(json.position_limit),
      samples: samples.length,
      taken: [...new Set(taken)].sort(),
    }
  }

  /**
   * The vault's custom sample fields: cached definitions of inventory fields, else the field
   * names its cached samples carry (the vault lists no definitions of them everywhere).
   */
  sampleFields(vaultId: number): SampleFieldDefinition[] {
    const definitions = this.#db
      .prepare('SELECT id, name, json FROM fields WHERE vault_id = ?')
      .all(vaultId) as { id: number; name: string | null; json: string }[]
    const defined = definitions.flatMap((row): SampleFieldDefinition[] => {
      const json = JSON.parse(row.json) as JsonObject
      const kind = `${toText(json.type) ?? ''} ${toText(json.category) ?? ''}`
      const name = row.name ?? toText(json.name)
      if (!name || !sampleFieldPattern.test(kind)) return []
      const dataType = toText(json.data_type_name) ?? 'Text'
      return [{ name, dataType, choices: this.#choices(vaultId, row.id), source: 'definition' }]
    })
    if (defined.length > 0) return defined.sort((a, b) => a.name.localeCompare(b.name))
    const seen = this.#db
      .prepare(
        `SELECT DISTINCT f.key FROM inventory_samples s, json_each(s.json, '$.fields') f
          WHERE s.vault_id = ? AND json_type(s.json, '$.fields') = 'object'
          ORDER BY f.key LIMIT 50`,
      )
      .pluck()
      .all(vaultId) as string[]
    return seen.map((name) => ({ name, dataType: 'Text', choices: [], source: 'samples' }))
  }

  #choices(vaultId: number, fieldId: number): string[] {
    const values = this.#db
      .prepare(
        `SELECT name, json FROM pick_list_values WHERE vault_id = ? AND field_id = ? ORDER BY name`,
      )
      .all(vaultId, fieldId) as { name: string | null; json: string }[]
    return values.flatMap((row) => {
      const hidden = (JSON.parse(row.json) as JsonObject).hidden === true
      return row.name && !hidden ? [row.name] : []
    })
  }
}

interface BatchRow {
  id: number
  name: string | null
  identifier: string | null
}

/** A position as the vault labels it (`b7` is `B07`), so that taken ones compare equal. */
export function positionLabel(position: string): string {
  const read = readGridLabel(position)
  return read ? gridLabel(read) : position.trim().toUpperCase()
}

function labelOf(row: BatchRow): string {
  return row.identifier ?? row.name ?? `Batch ${row.id}`
}
