/** The tables of the stored JSON of molecule and batch records (see documents.ts). */
export const documentTables = `
CREATE TABLE IF NOT EXISTS molecule_documents (
  molecule_id INTEGER PRIMARY KEY,
  projects TEXT NOT NULL,
  reach TEXT NOT NULL,
  record BLOB NOT NULL,
  head_length INTEGER NOT NULL,
  structures_length INTEGER NOT NULL,
  properties_length INTEGER NOT NULL,
  batches_length INTEGER NOT NULL,
  tail_length INTEGER NOT NULL,
  fields_length INTEGER NOT NULL,
  original BLOB NOT NULL,
  batch_ids TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS batch_documents (
  batch_id INTEGER PRIMARY KEY,
  molecule_id INTEGER NOT NULL,
  projects TEXT NOT NULL,
  head BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS batch_documents_by_molecule ON batch_documents (molecule_id);
`

/**
 * The triggers that keep stored documents true: any write to what a document shows deletes the
 * document (it is written again when next read), whoever writes, so a change shows up as soon as
 * it is written. Structure identifiers, which bulk-seeded molecules receive long after seeding,
 * rewrite their part in place instead. They are TEMP triggers, installed once the simulator has
 * seeded (seeding writes every document afterwards in one pass, rather than firing them for
 * every row it inserts).
 */
export const documentTriggers = `
CREATE TEMP TRIGGER IF NOT EXISTS documents_on_molecule_update
AFTER UPDATE OF vault_id, name, registration_type, description, owner_id, original_structure, formula,
  molecular_weight, exact_mass, log_p, log_d, log_s, heavy_atom_count, num_aromatic_rings,
  num_h_bond_donors, num_h_bond_acceptors, num_rotatable_bonds, num_rule_of_5_violations,
  topological_polar_surface_area, fsp3, fields, created_at, modified_at ON molecules
BEGIN
  DELETE FROM molecule_documents WHERE molecule_id = OLD.id;
  DELETE FROM batch_documents WHERE molecule_id = OLD.id;
END;

CREATE TEMP TRIGGER IF NOT EXISTS documents_on_molecule_identifiers
AFTER UPDATE OF smiles, cxsmiles, inchi, inchi_key, molfile ON molecules
BEGIN
  UPDATE molecule_documents SET
    record = CAST(substr(record, 1, head_length) || identifiers.piece
      || substr(record, head_length + structures_length + 1) AS BLOB),
    structures_length = length(identifiers.piece)
  FROM (
    SELECT CAST(CASE WHEN members = '{}' THEN '' ELSE ',' || substr(members, 2, length(members) - 2) END AS BLOB) AS piece
    FROM (SELECT json_patch('{}', json_object('smiles', NEW.smiles, 'cxsmiles', NEW.cxsmiles,
      'inchi', NEW.inchi, 'inchi_key', NEW.inchi_key, 'molfile', NEW.molfile)) AS members)
  ) AS identifiers
  WHERE molecule_id = NEW.id;
END;

CREATE TEMP TRIGGER IF NOT EXISTS documents_on_molecule_delete AFTER DELETE ON molecules
BEGIN
  DELETE FROM molecule_documents WHERE molecule_id = OLD.id;
END;

CREATE TEMP TRIGGER IF NOT EXISTS documents_on_batch_insert AFTER INSERT ON batches
BEGIN
  DELETE FROM molecule_documents WHERE molecule_id = NEW.molecule_id;
END;

CREATE TEMP TRIGGER IF NOT EXISTS documents_on_batch_update AFTER UPDATE ON batches
BEGIN
  DELETE FROM molecule_documents WHERE molecule_id IN (OLD.molecule_id, NEW.molecule_id);
  DELETE FROM batch_documents WHERE batch_id = OLD.id;
END;

CREATE TEMP TRIGGER IF NOT EXISTS documents_on_batch_delete AFTER DELETE ON batches
BEGIN
  DELETE FROM molecule_documents WHERE molecule_id = OLD.molecule_id;
  DELETE FROM batch_documents WHERE batch_id = OLD.id;
END;

CREATE TEMP TRIGGER IF NOT EXISTS documents_on_batch_project_insert AFTER INSERT ON batch_projects
BEGIN
  DELETE FROM batch_documents WHERE batch_id = NEW.batch_id;
  DELETE FROM molecule_documents
  WHERE molecule_id = (SELECT molecule_id FROM batches WHERE id = NEW.batch_id);
END;

CREATE TEMP TRIGGER IF NOT EXISTS documents_on_batch_project_delete AFTER DELETE ON batch_projects
BEGIN
  DELETE FROM batch_documents WHERE batch_id = OLD.batch_id;
  DELETE FROM molecule_documents
  WHERE molecule_id = (SELECT molecule_id FROM batches WHERE id = OLD.batch_id);
END;

CREATE TEMP TRIGGER IF NOT EXISTS documents_on_molecule_project_insert AFTER INSERT ON molecule_projects
BEGIN
  DELETE FROM molecule_documents WHERE molecule_id = NEW.molecule_id;
END;

CREATE TEMP TRIGGER IF NOT EXISTS documents_on_molecule_project_delete AFTER DELETE ON molecule_projects
BEGIN
  DELETE FROM molecule_documents WHERE molecule_id = OLD.molecule_id;
END;

CREATE TEMP TRIGGER IF NOT EXISTS documents_on_synonym_insert AFTER INSERT ON molecule_synonyms
BEGIN
  DELETE FROM molecule_documents WHERE molecule_id = NEW.molecule_id;
END;

CREATE TEMP TRIGGER IF NOT EXISTS documents_on_synonym_delete AFTER DELETE ON molecule_synonyms
BEGIN
  DELETE FROM molecule_documents WHERE molecule_id = OLD.molecule_id;
END;

CREATE TEMP TRIGGER IF NOT EXISTS documents_on_collection_member_insert AFTER INSERT ON collection_molecules
BEGIN
  DELETE FROM molecule_documents WHERE molecule_id = NEW.molecule_id;
END;

-- Also fired by the cascade of a deleted collection (collections are never renamed).
CREATE TEMP TRIGGER IF NOT EXISTS documents_on_collection_member_delete AFTER DELETE ON collection_molecules
BEGIN
  DELETE FROM molecule_documents WHERE molecule_id = OLD.molecule_id;
END;

CREATE TEMP TRIGGER IF NOT EXISTS documents_on_project_rename AFTER UPDATE OF name ON projects
BEGIN
  DELETE FROM molecule_documents
  WHERE molecule_id IN (SELECT molecule_id FROM molecule_projects WHERE project_id = OLD.id)
     OR molecule_id IN (SELECT b.molecule_id FROM batch_projects bp JOIN batches b ON b.id = bp.batch_id
                        WHERE bp.project_id = OLD.id);
  DELETE FROM batch_documents
  WHERE batch_id IN (SELECT batch_id FROM batch_projects WHERE project_id = OLD.id);
END;
`
