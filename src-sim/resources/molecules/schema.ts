/**
 * Molecules, batches and collections. Structure columns other than `smiles` may be NULL for
 * molecules seeded in bulk (see chem/molecule-generator.ts); they are filled on demand or by the
 * background pass of search-index.ts. `fingerprint` (Morgan) and `pickle` (the RDKit molecule,
 * read several times faster than SMILES) serve structure search only.
 */
export const registrySchema = `
CREATE TABLE IF NOT EXISTS molecules (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  name TEXT NOT NULL,
  registration_type TEXT NOT NULL DEFAULT 'CHEMICAL_STRUCTURE',
  description TEXT,
  owner_id INTEGER NOT NULL REFERENCES users(id),
  smiles TEXT,
  smiles_is_canonical INTEGER NOT NULL DEFAULT 0,
  cxsmiles TEXT,
  original_structure TEXT,
  inchi TEXT,
  inchi_key TEXT,
  molfile TEXT,
  formula TEXT,
  molecular_weight REAL,
  exact_mass REAL,
  log_p REAL,
  log_d REAL,
  log_s REAL,
  heavy_atom_count INTEGER,
  num_aromatic_rings INTEGER,
  num_h_bond_donors INTEGER,
  num_h_bond_acceptors INTEGER,
  num_rotatable_bonds INTEGER,
  num_rule_of_5_violations INTEGER,
  topological_polar_surface_area REAL,
  fsp3 REAL,
  fingerprint BLOB,
  pickle BLOB,
  fields TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS molecules_by_vault ON molecules (vault_id, id);
CREATE INDEX IF NOT EXISTS molecules_by_name ON molecules (vault_id, name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS molecules_by_formula ON molecules (vault_id, formula);
CREATE INDEX IF NOT EXISTS molecules_by_inchi_key ON molecules (vault_id, inchi_key);

CREATE TABLE IF NOT EXISTS molecule_projects (
  molecule_id INTEGER NOT NULL REFERENCES molecules(id) ON DELETE CASCADE,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  PRIMARY KEY (molecule_id, project_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS molecule_projects_by_project ON molecule_projects (project_id, molecule_id);

CREATE TABLE IF NOT EXISTS molecule_data_sets (
  molecule_id INTEGER NOT NULL REFERENCES molecules(id) ON DELETE CASCADE,
  data_set_id INTEGER NOT NULL REFERENCES data_sets(id),
  PRIMARY KEY (molecule_id, data_set_id)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS molecule_synonyms (
  molecule_id INTEGER NOT NULL REFERENCES molecules(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  synonym TEXT NOT NULL,
  PRIMARY KEY (molecule_id, position)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS molecule_synonyms_by_text ON molecule_synonyms (synonym COLLATE NOCASE);

CREATE TABLE IF NOT EXISTS batches (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  molecule_id INTEGER NOT NULL REFERENCES molecules(id),
  name TEXT NOT NULL,
  owner_id INTEGER NOT NULL REFERENCES users(id),
  data_set_id INTEGER REFERENCES data_sets(id),
  salt_name TEXT,
  solvent_of_crystallization_name TEXT,
  core_count INTEGER NOT NULL DEFAULT 1,
  salt_count INTEGER NOT NULL DEFAULT 0,
  solvent_of_crystallization_count INTEGER NOT NULL DEFAULT 0,
  fields TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS batches_by_molecule ON batches (molecule_id);
CREATE INDEX IF NOT EXISTS batches_by_vault ON batches (vault_id, id);
CREATE INDEX IF NOT EXISTS batches_by_data_set ON batches (data_set_id);

CREATE TABLE IF NOT EXISTS batch_projects (
  batch_id INTEGER NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  PRIMARY KEY (batch_id, project_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS batch_projects_by_project ON batch_projects (project_id, batch_id);

CREATE TABLE IF NOT EXISTS collections (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  name TEXT NOT NULL,
  owner_id INTEGER NOT NULL REFERENCES users(id),
  kind TEXT NOT NULL CHECK (kind IN ('user_collection', 'vault_collection')),
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS collection_molecules (
  collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  molecule_id INTEGER NOT NULL REFERENCES molecules(id) ON DELETE CASCADE,
  PRIMARY KEY (collection_id, molecule_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS collection_molecules_by_molecule ON collection_molecules (molecule_id, collection_id);
`
