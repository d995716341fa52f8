import type { Database } from 'better-sqlite3'
import type { VaultAccess } from '../../core/sim-core.ts'
import { preparedOnce } from '../../core/statements.ts'
import { writeDocuments } from './documents.ts'
import { cachedRecordTexts } from './record-cache.ts'
import { batchRecords, moleculeRecords } from './records.ts'
import type { RegistryQuery } from './registry-query.ts'
import { sqlList } from './scope.ts'

/**
 * The JSON of a query's records in the order of `ids`, as segments of records joined by
 * `separator` (join the segments with it too). A record whose stored document is what this user
 * sees (every project it names is one they read and search, no private collection of theirs
 * holds it) is joined from the document's pieces by SQLite, consecutive ones into one segment;
 * any other (one with files among them), and every record of a display that picks owner ids or
 * fields, is built from the tables.
 */
export function recordSegments(
  access: VaultAccess,
  query: RegistryQuery,
  ids: readonly number[],
  scores: Map<number, number> | undefined,
  separator: string,
): Buffer[] {
  if (ids.length === 0) return []
  const { display } = query
  const fromDocuments =
    display.ownerId || display.moleculeFields || display.batchFields
      ? new Set<number>()
      : query.target === 'molecules'
        ? moleculesSeenAsStored(access, query, ids)
        : batchesSeenAsStored(access, ids)
  if (query.target === 'molecules' && fromDocuments.size > 0) {
    // A molecule with files lists them (`source_files`), which no stored document holds.
    for (const id of access.sim.moleculeFiles([...fromDocuments]).keys()) fromDocuments.delete(id)
  }
  const built =
    fromDocuments.size === ids.length
      ? new Map<number, string>()
      : buildTexts(
          access,
          query,
          ids.filter((id) => !fromDocuments.has(id)),
          scores,
        )
  const segments: Buffer[] = []
  let run: number[] = []
  const flush = () => {
    if (run.length === 0) return
    const joined = joinDocuments(access.db, query, run, scores, separator)
    if (joined) segments.push(joined)
    run = []
  }
  for (const id of ids) {
    if (fromDocuments.has(id)) {
      run.push(id)
      continue
    }
    flush()
    const text = built.get(id)
    if (text !== undefined) segments.push(Buffer.from(text))
  }
  flush()
  return segments
}

function buildTexts(
  access: VaultAccess,
  query: RegistryQuery,
  ids: readonly number[],
  scores: Map<number, number> | undefined,
): Map<number, string> {
  const options = { ...query.display, scope: query.scope, scores }
  const build = (missing: readonly number[]) =>
    query.target === 'molecules'
      ? moleculeRecords(access, missing, options)
      : batchRecords(access, missing, options)
  // Similarity scores belong to one search, so records carrying them are not kept.
  if (!scores) return cachedRecordTexts(access, query, ids, build)
  return new Map(build(ids).map((record) => [record.id as number, JSON.stringify(record)]))
}

/** Whether every id of comma-separated lists is in a set, remembering the lists it has seen. */
class Coverage {
  readonly #set: ReadonlySet<number>
  readonly #seen = new Map<string, boolean>()

  constructor(set: ReadonlySet<number>) {
    this.#set = set
  }

  covers(list: string): boolean {
    let covered = this.#seen.get(list)
    if (covered === undefined) {
      covered = list === '' || list.split(',').every((id) => this.#set.has(Number(id)))
      this.#seen.set(list, covered)
    }
    return covered
  }
}

function vaultIds(access: VaultAccess, table: 'projects' | 'data_sets'): number[] {
  return preparedOnce(access.db, `SELECT id FROM ${table} WHERE vault_id = ?`)
    .pluck()
    .all(access.vault.id) as number[]
}

function privateCollections(access: VaultAccess): number[] {
  return preparedOnce(
    access.db,
    `SELECT id FROM collections WHERE vault_id = ? AND owner_id = ? AND kind = 'user_collection'`,
  )
    .pluck()
    .all(access.vault.id, access.user.id) as number[]
}

/**
 * Molecules whose documents are what the user sees. Documents name projects of their own vault
 * only, so a user who reads and searches all of them, every public data set, and keeps no
 * private collection sees every document as it is; anyone else is checked record by record.
 */
function moleculesSeenAsStored(
  access: VaultAccess,
  query: RegistryQuery,
  ids: readonly number[],
): Set<number> {
  const readable = new Set(access.projectIds)
  const searched = new Set(query.scope.projectIds.filter((id) => readable.has(id)))
  const dataSets = new Set(query.scope.dataSetIds)
  const collections = privateCollections(access)
  if (
    collections.length === 0 &&
    vaultIds(access, 'projects').every((id) => searched.has(id)) &&
    vaultIds(access, 'data_sets').every((id) => dataSets.has(id))
  )
    return new Set(ids)
  const privately = new Set(
    collections.length === 0
      ? []
      : (access.db
          .prepare(
            `SELECT molecule_id FROM collection_molecules WHERE collection_id IN ${sqlList(collections)}
             AND molecule_id IN (SELECT value FROM json_each(?))`,
          )
          .pluck()
          .all(JSON.stringify(ids)) as number[]),
  )
  const projects = new Coverage(searched)
  const reachedDataSets = new Coverage(dataSets)
  const seen = new Set<number>()
  for (const [id, reach] of storedColumns(
    access.db,
    `SELECT molecule_id, reach FROM molecule_documents WHERE molecule_id IN (SELECT value FROM json_each(?))`,
    ids,
    (missing) => missing,
  )) {
    const bar = reach[0]!.indexOf('|')
    if (
      !privately.has(id) &&
      projects.covers(reach[0]!.slice(0, bar)) &&
      reachedDataSets.covers(reach[0]!.slice(bar + 1))
    )
      seen.add(id)
  }
  return seen
}

/** Batches whose documents, and those of their molecules, are what the user sees. */
function batchesSeenAsStored(access: VaultAccess, ids: readonly number[]): Set<number> {
  const readable = new Set(access.projectIds)
  if (vaultIds(access, 'projects').every((id) => readable.has(id))) return new Set(ids)
  const coverage = new Coverage(readable)
  const seen = new Set<number>()
  for (const [id, [batchProjects, moleculeProjects]] of storedColumns(
    access.db,
    `SELECT b.batch_id, b.projects, m.projects FROM batch_documents b
     JOIN molecule_documents m ON m.molecule_id = b.molecule_id
     WHERE b.batch_id IN (SELECT value FROM json_each(?))`,
    ids,
    (missing) => moleculesOfBatches(access.db, missing),
  )) {
    if (coverage.covers(batchProjects!) && coverage.covers(moleculeProjects!)) seen.add(id)
  }
  return seen
}

function moleculesOfBatches(db: Database, batchIds: readonly number[]): number[] {
  return db
    .prepare(
      `SELECT DISTINCT molecule_id FROM batches WHERE id IN (SELECT value FROM json_each(?))`,
    )
    .pluck()
    .all(JSON.stringify(batchIds)) as number[]
}

/**
 * Columns of stored documents keyed by the first; ids without a row (their documents were
 * dropped by a write) get their molecules' documents written and are read again.
 */
function storedColumns(
  db: Database,
  select: string,
  ids: readonly number[],
  moleculesOf: (missing: number[]) => number[],
): Map<number, string[]> {
  const statement = db.prepare(select).raw()
  const rows = new Map<number, string[]>()
  const read = (wanted: readonly number[]) => {
    for (const [id, ...columns] of statement.all(JSON.stringify(wanted)) as [number, ...string[]][])
      rows.set(id, columns)
  }
  read(ids)
  const missing = ids.filter((id) => !rows.has(id))
  if (missing.length > 0) {
    writeDocuments(db, moleculesOf(missing))
    read(missing)
  }
  return rows
}

// Parts of a stored molecule record (see documents.ts), cut by their byte lengths.
const structuresEnd = '(d.head_length + d.structures_length)'
const head = 'substr(d.record, 1, d.head_length)'
const structures = `CASE WHEN @structures
  THEN substr(d.record, d.head_length + 1, d.structures_length) ELSE '' END`
const original = `CASE WHEN @original THEN d.original ELSE '' END`
const rest = `CASE WHEN @batchIds
  THEN substr(d.record, ${structuresEnd} + 1,
      length(d.record) - ${structuresEnd} - d.batches_length - d.tail_length)
    || d.batch_ids || substr(d.record, -d.tail_length)
  ELSE substr(d.record, ${structuresEnd} + 1) END`
// The record as stored (structures, no original structure, batches in full), or cut to display.
const moleculeRecord = (stored: boolean) =>
  stored ? 'd.record' : `${head} || ${structures} || ${original} || ${rest}`
const nestedMolecule = (stored: boolean) =>
  `${
    stored
      ? `substr(d.record, 1, ${structuresEnd} + d.properties_length)`
      : `${head} || ${structures} || ${original}
          || substr(d.record, ${structuresEnd} + 1, d.properties_length)`
  } || substr(d.record, -d.tail_length, d.fields_length) || '}'`

// CROSS JOIN keeps json_each the outer loop, so rows reach group_concat in the order of the ids
// (an ORDER BY inside group_concat would sort every text through a temporary b-tree instead).
// The stored record goes to group_concat as the column itself: any expression around it would
// copy it once more.
function joinSql(target: RegistryQuery['target'], stored: boolean, scored: boolean): string {
  if (target === 'batches') {
    return `SELECT count(*), CAST(group_concat(b.head
        || CASE WHEN @moleculeIds THEN b.molecule_id ELSE ${nestedMolecule(stored)} END || '}',
        @separator) AS BLOB)
      FROM json_each(@ids) j CROSS JOIN batch_documents b ON b.batch_id = j.value
      CROSS JOIN molecule_documents d ON d.molecule_id = b.molecule_id`
  }
  if (scored) {
    return `SELECT count(*), CAST(group_concat(
        substr(${moleculeRecord(stored)}, 1, length(${moleculeRecord(stored)}) - 1)
        || ',"similarity":' || (j.value ->> 1) || '}', @separator) AS BLOB)
      FROM json_each(@ids) j CROSS JOIN molecule_documents d ON d.molecule_id = j.value ->> 0`
  }
  return `SELECT count(*), CAST(group_concat(${moleculeRecord(stored)}, @separator) AS BLOB)
    FROM json_each(@ids) j CROSS JOIN molecule_documents d ON d.molecule_id = j.value`
}

/**
 * Records joined from their documents, in the order of `ids`, as one segment (none when every
 * molecule has gone since the ids were found).
 */
function joinDocuments(
  db: Database,
  query: RegistryQuery,
  ids: readonly number[],
  scores: Map<number, number> | undefined,
  separator: string,
): Buffer | null {
  const { display } = query
  const stored =
    !display.noStructures && !display.includeOriginalStructures && !display.onlyBatchIds
  const statement = preparedOnce(db, joinSql(query.target, stored, scores !== undefined)).raw()
  const parameters = {
    // Scores travel as JSON text, so that they read exactly as JSON.stringify writes them.
    ids: JSON.stringify(
      scores && query.target === 'molecules'
        ? ids.map((id) => [id, JSON.stringify(scores.get(id))])
        : ids,
    ),
    separator,
    structures: Number(!display.noStructures),
    original: Number(display.includeOriginalStructures),
    batchIds: Number(display.onlyBatchIds),
    moleculeIds: Number(display.onlyMoleculeIds),
  }
  const [found, joined] = statement.get(parameters) as [number, Buffer | null]
  if (found === ids.length) return joined
  // Documents a write dropped since they were checked: write them and join again.
  writeDocuments(db, moleculesLackingDocuments(db, query.target, ids))
  return (statement.get(parameters) as [number, Buffer | null])[1]
}

function moleculesLackingDocuments(
  db: Database,
  target: RegistryQuery['target'],
  ids: readonly number[],
): number[] {
  const sql =
    target === 'molecules'
      ? `SELECT j.value FROM json_each(?) j
         WHERE NOT EXISTS (SELECT 1 FROM molecule_documents WHERE molecule_id = j.value)`
      : `SELECT DISTINCT b.molecule_id FROM json_each(?) j JOIN batches b ON b.id = j.value
         WHERE NOT EXISTS (SELECT 1 FROM batch_documents WHERE batch_id = b.id)
            OR NOT EXISTS (SELECT 1 FROM molecule_documents WHERE molecule_id = b.molecule_id)`
  return db.prepare(sql).pluck().all(JSON.stringify(ids)) as number[]
}
