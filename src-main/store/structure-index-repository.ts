/**
 * The persisted structure index of a vault's cache: per molecule, what chem computed from its
 * structure (identity, fingerprints, pickle, properties or the reason it could not be parsed) with
 * the content hash it was computed from, and the depictions drawn from that structure. Its tables
 * are made by steps 3, 4, 6, 8 and 11 of the cache schema (cache-migrations.ts), which say what
 * each column means. It also answers the novelty check's look-ups by the keys of step 8.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { DepictionSize } from '../chem/depiction-size.ts'
import {
  vaultPropertyFields,
  type MolecularProperties,
  type MolecularPropertyName,
} from '../../src-common/chem/molecular-properties.ts'
import { isSingleFragment } from '../chem/parent-structure.ts'
import { structureDetail, type ComputedDetails } from '../chem/structure-input.ts'
import { isMolfile } from '../chem/structure-query.ts'
import type { StructureIndexStore } from '../chem/structure-index-store.ts'
import type { StructureRecord } from '../chem/structure-record.ts'

interface StructureRow {
  molecule_id: number
  content_hash: string
  parse_error: string | null
  canonical_smiles: string | null
  inchikey: string | null
  parent_smiles: string | null
  pattern_fp: Buffer | null
  morgan_fp: Buffer | null
  pickle: Buffer | null
  heavy_atom_count: number | null
  num_aromatic_rings: number | null
  num_h_bond_acceptors: number | null
  num_h_bond_donors: number | null
  num_rotatable_bonds: number | null
  num_rule_of_5_violations: number | null
  molecular_weight: number | null
  exact_mass: number | null
  log_p: number | null
  topological_polar_surface_area: number | null
  known_properties: string
  details_pending: number
}

/**
 * Where a molecule record holds its structure, in the order the index reads them: the first that
 * holds text is the molecule's structure.
 */
export const structureFields = ['cxsmiles', 'smiles', 'molfile', 'structure'] as const

/** The structure a molecule record's fields give (see `structureFields`), or null. */
export function structureTextOf(fields: readonly unknown[]): string | null {
  const text = fields.find(
    (value): value is string => typeof value === 'string' && value.trim() !== '',
  )
  return text ?? null
}

/**
 * The key `structure_hash` (step 11) holds of a structure text: 128 bits of the SHA-256 of the
 * text without its surrounding whitespace, or only its trailing whitespace for a molfile (whose
 * first lines are read by position: an empty name line is part of it). Step 11 back-fills with a
 * frozen copy of this function; a change here needs a new step that computes the column again.
 */
export function structureTextHash(text: string): string {
  const key = isMolfile(text) ? text.trimEnd() : text.trim()
  return createHash('sha256').update(key).digest('base64url').slice(0, 22)
}

/** A cached molecule as ingest reads it: its structure and what the vault computed for it. */
export interface CachedMoleculeStructure {
  id: number
  /** The CXSMILES, else the SMILES, else the molfile the vault gave; null without any. */
  structure: string | null
  inchiKey: string | null
  /** The vault's property values by its field names (heavy_atom_count, log_p...). */
  fields: Record<string, unknown>
  modifiedAt: string | null
}

/** The keys a structure is looked up by in the novelty check (see NoveltyInput). */
export interface NoveltyLookupKeys {
  canonicalSmiles: string
  /** '' when InChI cannot describe the structure: then nothing is looked up by it. */
  inchiKey: string
  skeletonKey: string
  parentSmiles: string
}

/** The indexed molecules answering each look-up of the novelty check, in id order. */
export interface NoveltyCandidates {
  /** The same InChIKey or canonical SMILES. */
  sameStructure: number[]
  /** The same skeleton key, not the same structure. */
  sameSkeleton: number[]
  /** The same parent, neither of the above. */
  sameParent: number[]
}

/** A cached molecule as the novelty check lists it. */
export interface MoleculeSummary {
  id: number
  name: string | null
  /** The canonical SMILES of the index, else the structure the vault gave. */
  smiles: string | null
}

/**
 * The `structureDetail` bits the novelty check needs (InChIKey and parent): a molecule waiting
 * for either cannot be compared yet. Written as 5 in step 8's partial index, which a count must
 * repeat word for word to use it.
 */
const noveltyDetails = structureDetail.inchiKey | structureDetail.parent

/** The vault fields read with each molecule: those the properties of the index are named after. */
const knownPropertyFields = Object.values(vaultPropertyFields).map((field) => field.moleculeField)

/**
 * The structure index of one vault of a connection's cache. Besides the StructureIndexStore that
 * the engine uses, it reads the cached molecules that ingest must look at (new, changed, deleted).
 */
export class StructureIndexRepository implements StructureIndexStore {
  readonly #db: Database.Database
  readonly #vaultId: number
  readonly #statements: Statements
  #moleculeStatements: MoleculeStatements | undefined
  #writeStructureHash: ((id: number) => void) | null | undefined
  /** The last count of cached molecules, and the state of the file it was counted in. */
  #counted: { count: number; fileState: string } | undefined

  constructor(db: Database.Database, vaultId: number) {
    this.#db = db
    this.#vaultId = vaultId
    this.#statements = prepareStatements(db)
  }

  get vaultId(): number {
    return this.#vaultId
  }

  recordsAfter(afterId: number | null, limit: number): StructureRecord[] {
    const rows = this.#statements.page.all(
      this.#vaultId,
      afterId ?? Number.MIN_SAFE_INTEGER,
      limit,
    ) as StructureRow[]
    return rows.map(toRecord)
  }

  contentHashes(ids: readonly number[]): Map<number, string> {
    const rows = this.#statements.hashes.all(this.#vaultId, JSON.stringify(ids)) as Pick<
      StructureRow,
      'molecule_id' | 'content_hash'
    >[]
    return new Map(rows.map((row) => [row.molecule_id, row.content_hash]))
  }

  save(records: readonly StructureRecord[]): void {
    const computedAt = new Date().toISOString()
    const writeStructureHash = this.#structureHashWriter()
    this.#db.transaction(() => {
      for (const record of records) {
        this.#statements.upsert.run({ ...toRow(record, computedAt), vault_id: this.#vaultId })
        writeStructureHash?.(record.id)
        this.#statements.dropDepictions.run(this.#vaultId, record.id)
      }
    })()
  }

  saveDetails(details: readonly ComputedDetails[]): void {
    this.#db.transaction(() => {
      for (const computed of details) {
        this.#statements.saveDetails.run({
          ...propertyColumns(computed.properties),
          vault_id: this.#vaultId,
          molecule_id: computed.id,
          computed: computed.computed,
          inchikey: computed.inchiKey,
          parent_smiles: computed.parentSmiles,
        })
      }
    })()
  }

  remove(ids: readonly number[]): void {
    this.#db.transaction(() => {
      for (const id of ids) this.#statements.remove.run(this.#vaultId, id)
    })()
  }

  idsByCanonicalSmiles(canonicalSmiles: string): number[] {
    return byId(this.#statements.bySmiles.pluck().all(this.#vaultId, canonicalSmiles) as number[])
  }

  idsByInchiKey(inchiKey: string): number[] {
    return byId(this.#statements.byInchiKey.pluck().all(this.#vaultId, inchiKey) as number[])
  }

  /** The molecules the novelty check finds for these keys, each under its closest relation. */
  noveltyCandidates(keys: NoveltyLookupKeys): NoveltyCandidates {
    const same = new Set(this.idsByCanonicalSmiles(keys.canonicalSmiles))
    if (keys.inchiKey !== '') for (const id of this.idsByInchiKey(keys.inchiKey)) same.add(id)
    const seen = new Set(same)
    const unseen = (ids: number[]): number[] => {
      const fresh = ids.filter((id) => !seen.has(id))
      for (const id of fresh) seen.add(id)
      return fresh
    }
    const sameSkeleton =
      keys.skeletonKey === ''
        ? []
        : unseen(
            byId(
              this.#statements.bySkeletonKey
                .pluck()
                .all(this.#vaultId, keys.skeletonKey) as number[],
            ),
          )
    const sameParent = unseen(
      byId(
        this.#statements.byParentSmiles.pluck().all(this.#vaultId, keys.parentSmiles) as number[],
      ),
    )
    return { sameStructure: byId([...same]), sameSkeleton, sameParent }
  }

  /**
   * Molecules the novelty check cannot compare yet: indexed ones still waiting for their InChIKey
   * or parent, and cached ones not indexed at all.
   */
  noveltyUncheckedCount(): number {
    return this.waitingForNoveltyKeys() + this.unindexedCount()
  }

  /** Indexed molecules still waiting for their InChIKey or parent (step 8's partial index). */
  waitingForNoveltyKeys(): number {
    return this.#statements.waitingForNoveltyKeys.pluck().get(this.#vaultId) as number
  }

  /** Cached molecules not in the index yet: two counts over the vault, slow for a large one. */
  unindexedCount(): number {
    return Math.max(0, this.moleculeCount() - this.indexedCount())
  }

  /** Names and structures of cached molecules, in the order asked (unknown ids left out). */
  moleculeSummaries(ids: readonly number[]): MoleculeSummary[] {
    if (ids.length === 0) return []
    const rows = this.#molecules().summaries.all(this.#vaultId, JSON.stringify(ids)) as {
      id: number
      name: string | null
      smiles: string | null
    }[]
    const byId = new Map(rows.map((row) => [row.id, row]))
    return ids.flatMap((id) => {
      const row = byId.get(id)
      return row ? [{ id, name: row.name, smiles: row.smiles }] : []
    })
  }

  parseError(id: number): string | null {
    return (
      (this.#statements.parseError.pluck().get(this.#vaultId, id) as string | null | undefined) ??
      null
    )
  }

  /** The names of the properties the vault gave for a molecule (empty when not indexed). */
  knownPropertyNames(id: number): MolecularPropertyName[] {
    const json = this.#statements.knownProperties.pluck().get(this.#vaultId, id) as
      string | undefined
    return json === undefined ? [] : (Object.keys(JSON.parse(json)) as MolecularPropertyName[])
  }

  depiction(id: number, size: DepictionSize): string | undefined {
    return this.#statements.depiction.pluck().get(this.#vaultId, id, size) as string | undefined
  }

  saveDepiction(id: number, size: DepictionSize, svg: string): void {
    this.#statements.saveDepiction.run({ vaultId: this.#vaultId, id, size, svg })
  }

  /** Molecules in the index. */
  indexedCount(): number {
    return this.#statements.indexedCount.pluck().get(this.#vaultId) as number
  }

  /** The recipe that computed the vault's index (see StructureEngine.recipe), or null. */
  recipe(): string | null {
    return (this.#statements.recipe.pluck().get(this.#vaultId) as string | undefined) ?? null
  }

  saveRecipe(recipe: string): void {
    this.#statements.saveRecipe.run(this.#vaultId, recipe)
  }

  /** Remembers the `modified_at` of the cached molecules ingest has looked at. */
  markSeen(molecules: readonly { id: number; modifiedAt: string | null }[]): void {
    this.#db.transaction(() => {
      for (const molecule of molecules)
        this.#statements.markSeen.run(molecule.modifiedAt, this.#vaultId, molecule.id)
    })()
  }

  /**
   * Where the notes of molecules rewritten under their `modified_at` end now (0 when there are
   * none): taken before ingest reads the molecules, then given to `forgetUnstampedChanges`.
   */
  unstampedChangesMark(): number {
    return (this.#molecules().unstampedChangesMark.pluck().get(this.#vaultId) as number | null) ?? 0
  }

  /** Forgets the notes up to `mark`: ingest has read those molecules since they were made. */
  forgetUnstampedChanges(mark: number): void {
    this.#molecules().forgetUnstampedChanges.run(this.#vaultId, mark)
  }

  // What ingest reads from the cached molecules (the cache's `molecules` table).

  /**
   * Molecules of the vault in the cache. Every structure search asks (is the index behind?): the
   * count is kept until the file changes, since counting 250k molecules took 15-80 ms a search.
   */
  moleculeCount(): number {
    const othersCommits = this.#db.pragma('data_version', { simple: true }) as number
    const ownChanges = this.#molecules().totalChanges.pluck().get() as number
    const fileState = `${othersCommits}:${ownChanges}`
    if (this.#counted?.fileState === fileState) return this.#counted.count
    const count = this.#molecules().count.pluck().get(this.#vaultId) as number
    this.#counted = { count, fileState }
    return count
  }

  /**
   * The highest id of the next `size` cached molecules above `afterId` (null when there are none
   * left): ingest walks the molecules in such ranges, so that each query stays short.
   */
  nextMoleculeRange(afterId: number | null, size: number): number | null {
    return (
      (this.#molecules()
        .rangeEnd.pluck()
        .get(this.#vaultId, afterId ?? Number.MIN_SAFE_INTEGER, size) as number | null) ?? null
    )
  }

  /**
   * The cached molecules with ids in (afterId, upTo] that ingest must look at: those not in the
   * index and those whose `modified_at` changed since it last looked (all of them with `all`).
   */
  moleculesToIndex(afterId: number | null, upTo: number, all: boolean): CachedMoleculeStructure[] {
    const rows = this.#molecules().toIndex.all({
      vaultId: this.#vaultId,
      afterId: afterId ?? Number.MIN_SAFE_INTEGER,
      upTo,
      all: all ? 1 : 0,
    }) as MoleculeRow[]
    return rows.map(toMoleculeStructure)
  }

  /** One cached molecule's structure, or undefined when the cache does not hold it. */
  moleculeStructure(id: number): CachedMoleculeStructure | undefined {
    const row = this.#molecules().one.get({ vaultId: this.#vaultId, id }) as MoleculeRow | undefined
    return row ? toMoleculeStructure(row) : undefined
  }

  /** The highest id of the next `size` indexed molecules above `afterId`, or null: see below. */
  nextIndexedRange(afterId: number | null, size: number): number | null {
    return (
      (this.#statements.indexedRangeEnd
        .pluck()
        .get(this.#vaultId, afterId ?? Number.MIN_SAFE_INTEGER, size) as number | null) ?? null
    )
  }

  /** Indexed ids in (afterId, upTo] whose molecule the cache no longer holds. */
  removedMolecules(afterId: number | null, upTo: number): number[] {
    return this.#molecules()
      .removed.pluck()
      .all(this.#vaultId, afterId ?? Number.MIN_SAFE_INTEGER, upTo) as number[]
  }

  /**
   * Writes a saved entry's `structure_hash` (step 11) from the molecule's structure as the cache
   * holds it now; null where there is nothing to write it from (the structure tables of unit
   * tests, without the record tables). A molecule rewritten since ingest read it has another
   * `modified_at`, so the next ingest computes it again and writes both again.
   */
  #structureHashWriter(): ((id: number) => void) | null {
    if (this.#writeStructureHash !== undefined) return this.#writeStructureHash
    const hasHashes = (this.#db.pragma('table_info(structure_index)') as { name: string }[]).some(
      (column) => column.name === 'structure_hash',
    )
    const hasMolecules =
      this.#db
        .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'molecules'")
        .get() !== undefined
    if (!hasHashes || !hasMolecules) return (this.#writeStructureHash = null)
    const read = this.#molecules().structureText
    const write = this.#db.prepare(
      'UPDATE structure_index SET structure_hash = ? WHERE vault_id = ? AND molecule_id = ?',
    )
    this.#writeStructureHash = (id) => {
      const row = read.get(this.#vaultId, id) as StructureFieldValues | undefined
      const text = row ? structureTextOf(structureFields.map((field) => row[field])) : null
      write.run(text === null ? null : structureTextHash(text), this.#vaultId, id)
    }
    return this.#writeStructureHash
  }

  /** Prepared on first use: the structure tables exist without the record tables in unit tests. */
  #molecules(): MoleculeStatements {
    this.#moleculeStatements ??= prepareMoleculeStatements(this.#db)
    return this.#moleculeStatements
  }
}

function byId(ids: number[]): number[] {
  return ids.sort((a, b) => a - b)
}

type StructureFieldValues = Record<(typeof structureFields)[number], unknown>

interface MoleculeRow extends StructureFieldValues {
  id: number
  modified_at: string | null
  inchi_key: unknown
  fields: string | null
}

function toMoleculeStructure(row: MoleculeRow): CachedMoleculeStructure {
  return {
    id: row.id,
    structure: structureTextOf(structureFields.map((field) => row[field])),
    inchiKey: typeof row.inchi_key === 'string' && row.inchi_key !== '' ? row.inchi_key : null,
    fields: row.fields ? (JSON.parse(row.fields) as Record<string, unknown>) : {},
    modifiedAt: row.modified_at,
  }
}

type Statements = ReturnType<typeof prepareStatements>
type MoleculeStatements = ReturnType<typeof prepareMoleculeStatements>

function prepareMoleculeStatements(db: Database.Database) {
  const fields = `json_object(${knownPropertyFields
    .map((field) => `'${field}', json_extract(m.json, '$.${field}')`)
    .join(', ')})`
  const structures = structureFields
    .map((field) => `json_extract(m.json, '$.${field}') AS ${field}`)
    .join(', ')
  const columns = `m.id, m.modified_at, ${structures},
    json_extract(m.json, '$.inchi_key') AS inchi_key, ${fields} AS fields`
  return {
    structureText: db.prepare(
      `SELECT ${structures} FROM molecules m WHERE m.vault_id = ? AND m.id = ?`,
    ),
    count: db.prepare('SELECT count(*) FROM molecules WHERE vault_id = ?'),
    totalChanges: db.prepare('SELECT total_changes()'),
    unstampedChangesMark: db.prepare(
      'SELECT max(seq) FROM structure_unstamped_changes WHERE vault_id = ?',
    ),
    forgetUnstampedChanges: db.prepare(
      'DELETE FROM structure_unstamped_changes WHERE vault_id = ? AND seq <= ?',
    ),
    rangeEnd: db.prepare(
      `SELECT max(id) FROM (SELECT id FROM molecules WHERE vault_id = ? AND id > ?
         ORDER BY id LIMIT ?)`,
    ),
    toIndex: db.prepare(
      `SELECT ${columns} FROM molecules m
         LEFT JOIN structure_index s ON s.vault_id = m.vault_id AND s.molecule_id = m.id
         WHERE m.vault_id = @vaultId AND m.id > @afterId AND m.id <= @upTo
           AND (@all OR s.molecule_id IS NULL OR s.source_modified_at IS NOT m.modified_at
             OR m.id IN (SELECT molecule_id FROM structure_unstamped_changes WHERE vault_id = @vaultId))
         ORDER BY m.id`,
    ),
    one: db.prepare(
      `SELECT ${columns} FROM molecules m WHERE m.vault_id = @vaultId AND m.id = @id`,
    ),
    summaries: db.prepare(
      `SELECT m.id, m.name, coalesce(s.canonical_smiles, json_extract(m.json, '$.smiles'),
           json_extract(m.json, '$.cxsmiles')) AS smiles
         FROM molecules m
         LEFT JOIN structure_index s ON s.vault_id = m.vault_id AND s.molecule_id = m.id
         WHERE m.vault_id = ? AND m.id IN (SELECT value FROM json_each(?))`,
    ),
    removed: db.prepare(
      `SELECT s.molecule_id FROM structure_index s WHERE s.vault_id = ? AND s.molecule_id > ?
         AND s.molecule_id <= ?
         AND NOT EXISTS (SELECT 1 FROM molecules m WHERE m.vault_id = s.vault_id AND m.id = s.molecule_id)
         ORDER BY s.molecule_id`,
    ),
  }
}

function prepareStatements(db: Database.Database) {
  return {
    page: db.prepare(
      `SELECT * FROM structure_index WHERE vault_id = ? AND molecule_id > ?
         ORDER BY molecule_id LIMIT ?`,
    ),
    hashes: db.prepare(
      `SELECT molecule_id, content_hash FROM structure_index
           WHERE vault_id = ? AND molecule_id IN (SELECT value FROM json_each(?))`,
    ),
    upsert: db.prepare(`
          INSERT INTO structure_index (
            vault_id, molecule_id, content_hash, parse_error, canonical_smiles, inchikey,
            parent_smiles, pattern_fp, morgan_fp, pickle, heavy_atom_count, num_aromatic_rings,
            num_h_bond_acceptors, num_h_bond_donors, num_rotatable_bonds, num_rule_of_5_violations,
            molecular_weight, exact_mass, log_p, topological_polar_surface_area, known_properties,
            details_pending, computed_at
          ) VALUES (
            @vault_id, @molecule_id, @content_hash, @parse_error, @canonical_smiles, @inchikey,
            @parent_smiles, @pattern_fp, @morgan_fp, @pickle, @heavy_atom_count, @num_aromatic_rings,
            @num_h_bond_acceptors, @num_h_bond_donors, @num_rotatable_bonds,
            @num_rule_of_5_violations, @molecular_weight, @exact_mass, @log_p,
            @topological_polar_surface_area, @known_properties, @details_pending, @computed_at
          )
          ON CONFLICT (vault_id, molecule_id) DO UPDATE SET
            content_hash = excluded.content_hash, parse_error = excluded.parse_error,
            canonical_smiles = excluded.canonical_smiles, inchikey = excluded.inchikey,
            parent_smiles = excluded.parent_smiles,
            pattern_fp = excluded.pattern_fp, morgan_fp = excluded.morgan_fp, pickle = excluded.pickle,
            heavy_atom_count = excluded.heavy_atom_count,
            num_aromatic_rings = excluded.num_aromatic_rings,
            num_h_bond_acceptors = excluded.num_h_bond_acceptors,
            num_h_bond_donors = excluded.num_h_bond_donors,
            num_rotatable_bonds = excluded.num_rotatable_bonds,
            num_rule_of_5_violations = excluded.num_rule_of_5_violations,
            molecular_weight = excluded.molecular_weight, exact_mass = excluded.exact_mass,
            log_p = excluded.log_p,
            topological_polar_surface_area = excluded.topological_polar_surface_area,
            known_properties = excluded.known_properties,
            details_pending = excluded.details_pending, computed_at = excluded.computed_at
        `),
    // Each column is set only when its detail was computed (a bit of @computed).
    saveDetails: db.prepare(`
          UPDATE structure_index SET
            inchikey = iif(@computed & ${structureDetail.inchiKey}, @inchikey, inchikey),
            parent_smiles = iif(@computed & ${structureDetail.parent}, @parent_smiles, parent_smiles),
            ${Object.keys(propertyColumns(null))
              .map(
                (column) =>
                  `${column} = iif(@computed & ${structureDetail.properties}, @${column}, ${column})`,
              )
              .join(',\n            ')},
            details_pending = details_pending & ~@computed
          WHERE vault_id = @vault_id AND molecule_id = @molecule_id
        `),
    dropDepictions: db.prepare(
      'DELETE FROM structure_depictions WHERE vault_id = ? AND molecule_id = ?',
    ),
    remove: db.prepare('DELETE FROM structure_index WHERE vault_id = ? AND molecule_id = ?'),
    // The look-ups by key leave the order to byId: with ORDER BY molecule_id, SQLite (without
    // statistics) walks the whole vault in primary-key order rather than the key's index.
    bySmiles: db.prepare(
      'SELECT molecule_id FROM structure_index WHERE vault_id = ? AND canonical_smiles = ?',
    ),
    byInchiKey: db.prepare(
      'SELECT molecule_id FROM structure_index WHERE vault_id = ? AND inchikey = ?',
    ),
    bySkeletonKey: db.prepare(
      'SELECT molecule_id FROM structure_index WHERE vault_id = ? AND skeleton_key = ?',
    ),
    byParentSmiles: db.prepare(
      'SELECT molecule_id FROM structure_index WHERE vault_id = ? AND parent_smiles = ?',
    ),
    // Repeats step 8's partial index (structure_index_unchecked), so that the count reads it.
    waitingForNoveltyKeys: db.prepare(
      `SELECT count(*) FROM structure_index WHERE vault_id = ? AND details_pending & ${noveltyDetails} <> 0`,
    ),
    parseError: db.prepare(
      'SELECT parse_error FROM structure_index WHERE vault_id = ? AND molecule_id = ?',
    ),
    knownProperties: db.prepare(
      'SELECT known_properties FROM structure_index WHERE vault_id = ? AND molecule_id = ?',
    ),
    indexedCount: db.prepare('SELECT count(*) FROM structure_index WHERE vault_id = ?'),
    indexedRangeEnd: db.prepare(
      `SELECT max(molecule_id) FROM (SELECT molecule_id FROM structure_index
         WHERE vault_id = ? AND molecule_id > ? ORDER BY molecule_id LIMIT ?)`,
    ),
    recipe: db.prepare('SELECT recipe FROM structure_index_state WHERE vault_id = ?'),
    saveRecipe: db.prepare(
      `INSERT INTO structure_index_state (vault_id, recipe) VALUES (?, ?)
         ON CONFLICT (vault_id) DO UPDATE SET recipe = excluded.recipe`,
    ),
    markSeen: db.prepare(
      'UPDATE structure_index SET source_modified_at = ? WHERE vault_id = ? AND molecule_id = ?',
    ),
    depiction: db.prepare(`
          SELECT d.svg FROM structure_depictions d
          JOIN structure_index s ON s.vault_id = d.vault_id AND s.molecule_id = d.molecule_id
            AND s.content_hash = d.content_hash
          WHERE d.vault_id = ? AND d.molecule_id = ? AND d.size = ?
        `),
    saveDepiction: db.prepare(`
          INSERT INTO structure_depictions (vault_id, molecule_id, size, content_hash, svg)
          SELECT vault_id, molecule_id, @size, content_hash, @svg FROM structure_index
            WHERE vault_id = @vaultId AND molecule_id = @id
          ON CONFLICT (vault_id, molecule_id, size) DO UPDATE SET
            content_hash = excluded.content_hash, svg = excluded.svg
        `),
  }
}

function toRecord(row: StructureRow): StructureRecord {
  const common = {
    id: row.molecule_id,
    contentHash: row.content_hash,
    knownProperties: JSON.parse(row.known_properties) as Partial<MolecularProperties>,
  }
  if (row.parse_error !== null) return { ...common, parseError: row.parse_error }
  return {
    ...common,
    parseError: null,
    canonicalSmiles: row.canonical_smiles!,
    inchiKey: row.inchikey,
    patternFingerprint: row.pattern_fp!,
    morganFingerprint: row.morgan_fp!,
    pickle: row.pickle!,
    pendingDetails: row.details_pending,
    properties:
      row.heavy_atom_count === null
        ? null
        : {
            heavyAtomCount: row.heavy_atom_count,
            aromaticRingCount: row.num_aromatic_rings!,
            hBondAcceptorCount: row.num_h_bond_acceptors!,
            hBondDonorCount: row.num_h_bond_donors!,
            rotatableBondCount: row.num_rotatable_bonds!,
            ruleOf5Violations: row.num_rule_of_5_violations!,
            molecularWeight: row.molecular_weight!,
            exactMass: row.exact_mass!,
            logP: row.log_p!,
            topologicalPolarSurfaceArea: row.topological_polar_surface_area!,
          },
  }
}

function toRow(
  record: StructureRecord,
  computedAt: string,
): StructureRow & { computed_at: string } {
  const parsed = record.parseError === null ? record : null
  return {
    molecule_id: record.id,
    content_hash: record.contentHash,
    parse_error: record.parseError,
    canonical_smiles: parsed?.canonicalSmiles ?? null,
    inchikey: parsed?.inchiKey ?? null,
    // A structure of several fragments waits for its parent (structureDetail.parent).
    parent_smiles:
      parsed && isSingleFragment(parsed.canonicalSmiles) ? parsed.canonicalSmiles : null,
    pattern_fp: parsed ? Buffer.from(parsed.patternFingerprint) : null,
    morgan_fp: parsed ? Buffer.from(parsed.morganFingerprint) : null,
    pickle: parsed ? Buffer.from(parsed.pickle) : null,
    ...propertyColumns(parsed?.properties ?? null),
    known_properties: JSON.stringify(record.knownProperties),
    details_pending: parsed?.pendingDetails ?? 0,
    computed_at: computedAt,
  }
}

type PropertyColumns = Pick<
  StructureRow,
  | 'heavy_atom_count'
  | 'num_aromatic_rings'
  | 'num_h_bond_acceptors'
  | 'num_h_bond_donors'
  | 'num_rotatable_bonds'
  | 'num_rule_of_5_violations'
  | 'molecular_weight'
  | 'exact_mass'
  | 'log_p'
  | 'topological_polar_surface_area'
>

function propertyColumns(properties: MolecularProperties | null): PropertyColumns {
  return {
    heavy_atom_count: properties?.heavyAtomCount ?? null,
    num_aromatic_rings: properties?.aromaticRingCount ?? null,
    num_h_bond_acceptors: properties?.hBondAcceptorCount ?? null,
    num_h_bond_donors: properties?.hBondDonorCount ?? null,
    num_rotatable_bonds: properties?.rotatableBondCount ?? null,
    num_rule_of_5_violations: properties?.ruleOf5Violations ?? null,
    molecular_weight: properties?.molecularWeight ?? null,
    exact_mass: properties?.exactMass ?? null,
    log_p: properties?.logP ?? null,
    topological_polar_surface_area: properties?.topologicalPolarSurfaceArea ?? null,
  }
}
