/**
 * The persisted structure index of a vault's cache: per molecule, what chem computed from its
 * structure (identity, fingerprints, pickle, properties or the reason it could not be parsed) with
 * the content hash it was computed from, and the depictions drawn from that structure.
 */
import type Database from 'better-sqlite3'
import type { DepictionSize } from '../chem/depiction.ts'
import type { MolecularProperties } from '../chem/molecular-properties.ts'
import type { StructureIndexStore } from '../chem/structure-index-store.ts'
import type { StructureRecord } from '../chem/structure-record.ts'
import type { Migration } from './migrations.ts'

/**
 * The cache database's step that creates these tables. Property columns carry the vault's field
 * names and hold the values RDKit computed (the vault's own values are in known_properties).
 * Depictions are valid only while their content_hash equals the molecule's.
 */
export const structureIndexMigration: Migration = (db) =>
  db.exec(`
    CREATE TABLE structure_index (
      molecule_id INTEGER PRIMARY KEY,
      content_hash TEXT NOT NULL,
      parse_error TEXT,
      canonical_smiles TEXT,
      inchikey TEXT,
      pattern_fp BLOB,
      morgan_fp BLOB,
      pickle BLOB,
      heavy_atom_count INTEGER,
      num_aromatic_rings INTEGER,
      num_h_bond_acceptors INTEGER,
      num_h_bond_donors INTEGER,
      num_rotatable_bonds INTEGER,
      num_rule_of_5_violations INTEGER,
      molecular_weight REAL,
      exact_mass REAL,
      log_p REAL,
      topological_polar_surface_area REAL,
      known_properties TEXT NOT NULL DEFAULT '{}',
      computed_at TEXT NOT NULL
    );
    CREATE INDEX structure_index_by_canonical_smiles ON structure_index (canonical_smiles);
    CREATE INDEX structure_index_by_inchikey ON structure_index (inchikey);
    CREATE TABLE structure_depictions (
      molecule_id INTEGER NOT NULL REFERENCES structure_index (molecule_id) ON DELETE CASCADE,
      size TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      svg TEXT NOT NULL,
      PRIMARY KEY (molecule_id, size)
    );
  `)

interface StructureRow {
  molecule_id: number
  content_hash: string
  parse_error: string | null
  canonical_smiles: string | null
  inchikey: string | null
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
}

export class StructureIndexRepository implements StructureIndexStore {
  readonly #db: Database.Database
  readonly #statements: Statements

  constructor(db: Database.Database) {
    this.#db = db
    this.#statements = prepareStatements(db)
  }

  recordsAfter(afterId: number | null, limit: number): StructureRecord[] {
    const rows = this.#statements.page.all(
      afterId ?? Number.MIN_SAFE_INTEGER,
      limit,
    ) as StructureRow[]
    return rows.map(toRecord)
  }

  contentHashes(ids: readonly number[]): Map<number, string> {
    const rows = this.#statements.hashes.all(JSON.stringify(ids)) as Pick<
      StructureRow,
      'molecule_id' | 'content_hash'
    >[]
    return new Map(rows.map((row) => [row.molecule_id, row.content_hash]))
  }

  save(records: readonly StructureRecord[]): void {
    const computedAt = new Date().toISOString()
    this.#db.transaction(() => {
      for (const record of records) {
        this.#statements.upsert.run(toRow(record, computedAt))
        this.#statements.dropDepictions.run(record.id)
      }
    })()
  }

  remove(ids: readonly number[]): void {
    this.#db.transaction(() => {
      for (const id of ids) this.#statements.remove.run(id)
    })()
  }

  idsByCanonicalSmiles(canonicalSmiles: string): number[] {
    return this.#statements.bySmiles.pluck().all(canonicalSmiles) as number[]
  }

  idsByInchiKey(inchiKey: string): number[] {
    return this.#statements.byInchiKey.pluck().all(inchiKey) as number[]
  }

  parseError(id: number): string | null {
    return (this.#statements.parseError.pluck().get(id) as string | null | undefined) ?? null
  }

  depiction(id: number, size: DepictionSize): string | undefined {
    return this.#statements.depiction.pluck().get(id, size) as string | undefined
  }

  saveDepiction(id: number, size: DepictionSize, svg: string): void {
    this.#statements.saveDepiction.run({ id, size, svg })
  }
}

type Statements = ReturnType<typeof prepareStatements>

function prepareStatements(db: Database.Database) {
  return {
    page: db.prepare(
      'SELECT * FROM structure_index WHERE molecule_id > ? ORDER BY molecule_id LIMIT ?',
    ),
    hashes: db.prepare(
      `SELECT molecule_id, content_hash FROM structure_index
           WHERE molecule_id IN (SELECT value FROM json_each(?))`,
    ),
    upsert: db.prepare(`
          INSERT INTO structure_index (
            molecule_id, content_hash, parse_error, canonical_smiles, inchikey, pattern_fp, morgan_fp,
            pickle, heavy_atom_count, num_aromatic_rings, num_h_bond_acceptors, num_h_bond_donors,
            num_rotatable_bonds, num_rule_of_5_violations, molecular_weight, exact_mass, log_p,
            topological_polar_surface_area, known_properties, computed_at
          ) VALUES (
            @molecule_id, @content_hash, @parse_error, @canonical_smiles, @inchikey, @pattern_fp,
            @morgan_fp, @pickle, @heavy_atom_count, @num_aromatic_rings, @num_h_bond_acceptors,
            @num_h_bond_donors, @num_rotatable_bonds, @num_rule_of_5_violations, @molecular_weight,
            @exact_mass, @log_p, @topological_polar_surface_area, @known_properties, @computed_at
          )
          ON CONFLICT (molecule_id) DO UPDATE SET
            content_hash = excluded.content_hash, parse_error = excluded.parse_error,
            canonical_smiles = excluded.canonical_smiles, inchikey = excluded.inchikey,
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
            known_properties = excluded.known_properties, computed_at = excluded.computed_at
        `),
    dropDepictions: db.prepare('DELETE FROM structure_depictions WHERE molecule_id = ?'),
    remove: db.prepare('DELETE FROM structure_index WHERE molecule_id = ?'),
    bySmiles: db.prepare(
      'SELECT molecule_id FROM structure_index WHERE canonical_smiles = ? ORDER BY molecule_id',
    ),
    byInchiKey: db.prepare(
      'SELECT molecule_id FROM structure_index WHERE inchikey = ? ORDER BY molecule_id',
    ),
    parseError: db.prepare('SELECT parse_error FROM structure_index WHERE molecule_id = ?'),
    depiction: db.prepare(`
          SELECT d.svg FROM structure_depictions d
          JOIN structure_index s ON s.molecule_id = d.molecule_id AND s.content_hash = d.content_hash
          WHERE d.molecule_id = ? AND d.size = ?
        `),
    saveDepiction: db.prepare(`
          INSERT INTO structure_depictions (molecule_id, size, content_hash, svg)
          SELECT molecule_id, @size, content_hash, @svg FROM structure_index WHERE molecule_id = @id
          ON CONFLICT (molecule_id, size) DO UPDATE SET
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
  const properties = parsed?.properties
  return {
    molecule_id: record.id,
    content_hash: record.contentHash,
    parse_error: record.parseError,
    canonical_smiles: parsed?.canonicalSmiles ?? null,
    inchikey: parsed?.inchiKey ?? null,
    pattern_fp: parsed ? Buffer.from(parsed.patternFingerprint) : null,
    morgan_fp: parsed ? Buffer.from(parsed.morganFingerprint) : null,
    pickle: parsed ? Buffer.from(parsed.pickle) : null,
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
    known_properties: JSON.stringify(record.knownProperties),
    computed_at: computedAt,
  }
}
