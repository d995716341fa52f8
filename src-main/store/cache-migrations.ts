import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { Migration } from './migrations.ts'

/*
 * The steps of a connection's cache schema, each frozen as it was released: literal SQL that
 * reads no live code (record kinds, search text, chemistry), so that a cache made by any release
 * upgrades the way it did the day the step shipped. A released step is never edited, even to fix
 * it: a change is a new step at the end of `cacheMigrations`. test/store/cache-upgrade.test.ts
 * holds what every step left in the schema and fails when a released one changes.
 *
 * The SQL is the text each release executed, byte for byte, odd line breaks included (the record
 * tables' `json` column starts a line): SQLite keeps every CREATE statement verbatim in
 * sqlite_schema, so other whitespace would make a fresh cache a different file (its schema on
 * other pages) from the one the release made.
 */

/**
 * What step 1 created: the first layout, released before `molecules.log_p` and
 * `readout_rows.run_date` existed. The step itself is now empty, because step 2 replaces this
 * layout whole: a fresh cache skips it, and a cache still at step 1 holds these tables until step
 * 2 drops them. Kept so that such a cache can be built (test/store/cache-upgrade.test.ts).
 */
export const firstLayout = `
    CREATE TABLE vaults (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX vaults_by_name ON vaults (vault_id, name);
    CREATE TABLE projects (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX projects_by_name ON projects (vault_id, name);
    CREATE TABLE data_sets (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX data_sets_by_name ON data_sets (vault_id, name);
    CREATE TABLE fields (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      field_type TEXT, data_type TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX fields_by_name ON fields (vault_id, name);
    CREATE TABLE pick_list_values (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      field_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX pick_list_values_by_name ON pick_list_values (vault_id, name);
    CREATE INDEX pick_list_values_by_field_id ON pick_list_values (vault_id, field_id);
    CREATE TABLE users (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      email TEXT, role_name TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX users_by_name ON users (vault_id, name);
    CREATE TABLE molecules (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      registration_type TEXT, owner TEXT, inchi_key TEXT, formula TEXT, molecular_weight REAL,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX molecules_by_name ON molecules (vault_id, name);
    CREATE INDEX molecules_by_modified_at ON molecules (vault_id, modified_at);
    CREATE TABLE batches (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      molecule_id INTEGER, position INTEGER, identifier TEXT COLLATE NOCASE, owner TEXT, salt_name TEXT, formula_weight REAL,
json TEXT,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX batches_by_molecule_id ON batches (vault_id, molecule_id);
    CREATE INDEX batches_by_identifier ON batches (vault_id, identifier);
    CREATE TABLE collections (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      owner TEXT, collection_type TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX collections_by_name ON collections (vault_id, name);
    CREATE TABLE protocols (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      category TEXT, data_set_id INTEGER, owner TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX protocols_by_name ON protocols (vault_id, name);
    CREATE TABLE runs (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      protocol_id INTEGER, project_id INTEGER, run_date TEXT, person TEXT, place TEXT, slurp_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX runs_by_name ON runs (vault_id, name);
    CREATE INDEX runs_by_protocol_id ON runs (vault_id, protocol_id);
    CREATE INDEX runs_by_run_date ON runs (vault_id, run_date);
    CREATE TABLE readout_rows (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      protocol_id INTEGER, run_id INTEGER, molecule_id INTEGER, batch_id INTEGER, plate_id INTEGER, row_type TEXT, control_state TEXT, well TEXT, has_modifier INTEGER NOT NULL DEFAULT 0, has_outlier INTEGER NOT NULL DEFAULT 0, has_note INTEGER NOT NULL DEFAULT 0,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX readout_rows_by_protocol_id ON readout_rows (vault_id, protocol_id);
    CREATE INDEX readout_rows_by_run_id ON readout_rows (vault_id, run_id);
    CREATE INDEX readout_rows_by_molecule_id ON readout_rows (vault_id, molecule_id);
    CREATE INDEX readout_rows_by_batch_id ON readout_rows (vault_id, batch_id);
    CREATE INDEX readout_rows_by_plate_id ON readout_rows (vault_id, plate_id);
    CREATE TABLE plates (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      location TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX plates_by_name ON plates (vault_id, name);
    CREATE TABLE control_layouts (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      protocol_id INTEGER, run_id INTEGER, plate_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX control_layouts_by_name ON control_layouts (vault_id, name);
    CREATE INDEX control_layouts_by_protocol_id ON control_layouts (vault_id, protocol_id);
    CREATE INDEX control_layouts_by_run_id ON control_layouts (vault_id, run_id);
    CREATE INDEX control_layouts_by_plate_id ON control_layouts (vault_id, plate_id);
    CREATE TABLE inventory_locations (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      parent_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX inventory_locations_by_name ON inventory_locations (vault_id, name);
    CREATE INDEX inventory_locations_by_parent_id ON inventory_locations (vault_id, parent_id);
    CREATE TABLE inventory_samples (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      batch_id INTEGER, location_id INTEGER, owner TEXT, units TEXT, current_amount REAL,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX inventory_samples_by_name ON inventory_samples (vault_id, name);
    CREATE INDEX inventory_samples_by_batch_id ON inventory_samples (vault_id, batch_id);
    CREATE INDEX inventory_samples_by_location_id ON inventory_samples (vault_id, location_id);
    CREATE INDEX inventory_samples_by_modified_at ON inventory_samples (vault_id, modified_at);
    CREATE TABLE eln_entries (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      status TEXT, author_id INTEGER, author TEXT, project_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX eln_entries_by_name ON eln_entries (vault_id, name);
    CREATE INDEX eln_entries_by_modified_at ON eln_entries (vault_id, modified_at);
    CREATE INDEX eln_entries_by_status ON eln_entries (vault_id, status);
    CREATE TABLE files (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      resource_class TEXT, resource_id INTEGER, mime_type TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX files_by_name ON files (vault_id, name);
    CREATE INDEX files_by_resource_class_resource_id ON files (vault_id, resource_class, resource_id);
    CREATE TABLE saved_searches (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      project_id INTEGER, search_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX saved_searches_by_name ON saved_searches (vault_id, name);
    CREATE TABLE mapping_templates (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      owner TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX mapping_templates_by_name ON mapping_templates (vault_id, name);
    CREATE TABLE import_parsers (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX import_parsers_by_name ON import_parsers (vault_id, name);
    CREATE TABLE registration_forms (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX registration_forms_by_name ON registration_forms (vault_id, name);
    CREATE TABLE registration_systems (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX registration_systems_by_name ON registration_systems (vault_id, name);
    CREATE TABLE dose_response_calculations (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      protocol_id INTEGER, readout_definition_id INTEGER, equation_type TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX dose_response_calculations_by_name ON dose_response_calculations (vault_id, name);
    CREATE INDEX dose_response_calculations_by_protocol_id ON dose_response_calculations (vault_id, protocol_id);
    CREATE TABLE dose_response_series (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      calculation_id INTEGER, batch_id INTEGER, run_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX dose_response_series_by_name ON dose_response_series (vault_id, name);
    CREATE INDEX dose_response_series_by_calculation_id ON dose_response_series (vault_id, calculation_id);
    CREATE INDEX dose_response_series_by_batch_id ON dose_response_series (vault_id, batch_id);
    CREATE TABLE vault_status (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX vault_status_by_name ON vault_status (vault_id, name);
    CREATE TABLE slurps (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      status TEXT, owner TEXT, project_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX slurps_by_name ON slurps (vault_id, name);
    CREATE TABLE batch_move_jobs (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      batch_id INTEGER, molecule_id INTEGER, status TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX batch_move_jobs_by_name ON batch_move_jobs (vault_id, name);
    CREATE INDEX batch_move_jobs_by_batch_id ON batch_move_jobs (vault_id, batch_id);
    CREATE TABLE record_projects (
      kind_code INTEGER NOT NULL,
      row_id INTEGER NOT NULL,
      project_id INTEGER NOT NULL,
      PRIMARY KEY (kind_code, row_id, project_id)
    ) WITHOUT ROWID;
    CREATE INDEX record_projects_by_project ON record_projects (project_id, kind_code, row_id);
    CREATE VIRTUAL TABLE search_index USING fts5(
      name, identifiers, synonyms, content, scope,
      content = '', contentless_delete = 1,
      tokenize = "unicode61 remove_diacritics 2 tokenchars '-_'"
    );
    CREATE TABLE sync_cursors (
      vault_id INTEGER NOT NULL,
      kind TEXT NOT NULL,
      scope TEXT NOT NULL DEFAULT '',
      cursor TEXT NOT NULL,
      saved_at TEXT NOT NULL,
      PRIMARY KEY (vault_id, kind, scope)
    ) WITHOUT ROWID;
    CREATE TABLE vault_syncs (
      vault_id INTEGER PRIMARY KEY,
      last_sync_at TEXT NOT NULL
    );
`

const firstLayoutSkipped: Migration = () => {}

/**
 * Step 2: the record tables, project links, search index and sync state. It drops the first
 * layout, emptying a cache of step 1; the next sync pulls everything again (its cursors are gone
 * too), since a cache is a copy and queued work lives in the outbox. New were the sort columns
 * `molecules.log_p` and `readout_rows.run_date`.
 *
 * Every record table has the same frame:
 * - `row_id`: the local key. Declared INTEGER PRIMARY KEY so VACUUM never renumbers it, because
 *   the search index and the project links refer to it.
 * - `vault_id`, `id`: the server's key, unique together (ids are only unique within a vault).
 * - `name`, `created_at`, `modified_at`: what lists show and sort on for nearly every kind.
 *   Timestamps are normalized to `YYYY-MM-DDTHH:MM:SS.ffffffZ` so that text order is time order.
 *   Names compare without case; batches and readout rows, without useful names, have no index
 *   by name.
 * - kind-specific columns: the links and the values the UI filters and sorts on.
 * - `json`: the record exactly as the API gave it (unknown members kept). It is the last column,
 *   so that scans which read only the columns before it do not touch its overflow pages. A batch
 *   that came nested in its molecule has no JSON of its own (`batches.json` may be null): it is
 *   read from the molecule's JSON at `position` in its `batches`, so that a molecule page is
 *   serialized once.
 *
 * Indexes are few on purpose: every one costs each ingested record a B-tree insert.
 */
const createRecordsAndSearch: Migration = (db: Database.Database) =>
  db.exec(`
    DROP TABLE IF EXISTS vaults; DROP TABLE IF EXISTS projects; DROP TABLE IF EXISTS data_sets;
    DROP TABLE IF EXISTS fields; DROP TABLE IF EXISTS pick_list_values; DROP TABLE IF EXISTS users;
    DROP TABLE IF EXISTS molecules; DROP TABLE IF EXISTS batches; DROP TABLE IF EXISTS collections;
    DROP TABLE IF EXISTS protocols; DROP TABLE IF EXISTS runs; DROP TABLE IF EXISTS readout_rows;
    DROP TABLE IF EXISTS plates; DROP TABLE IF EXISTS control_layouts;
    DROP TABLE IF EXISTS inventory_locations; DROP TABLE IF EXISTS inventory_samples;
    DROP TABLE IF EXISTS eln_entries; DROP TABLE IF EXISTS files;
    DROP TABLE IF EXISTS saved_searches; DROP TABLE IF EXISTS mapping_templates;
    DROP TABLE IF EXISTS import_parsers; DROP TABLE IF EXISTS registration_forms;
    DROP TABLE IF EXISTS registration_systems; DROP TABLE IF EXISTS dose_response_calculations;
    DROP TABLE IF EXISTS dose_response_series; DROP TABLE IF EXISTS vault_status;
    DROP TABLE IF EXISTS slurps; DROP TABLE IF EXISTS batch_move_jobs;
    DROP TABLE IF EXISTS record_projects; DROP TABLE IF EXISTS search_index;
    DROP TABLE IF EXISTS sync_cursors; DROP TABLE IF EXISTS vault_syncs;

    CREATE TABLE vaults (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX vaults_by_name ON vaults (vault_id, name);
    CREATE TABLE projects (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX projects_by_name ON projects (vault_id, name);
    CREATE TABLE data_sets (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX data_sets_by_name ON data_sets (vault_id, name);
    CREATE TABLE fields (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      field_type TEXT, data_type TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX fields_by_name ON fields (vault_id, name);
    CREATE TABLE pick_list_values (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      field_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX pick_list_values_by_name ON pick_list_values (vault_id, name);
    CREATE INDEX pick_list_values_by_field_id ON pick_list_values (vault_id, field_id);
    CREATE TABLE users (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      email TEXT, role_name TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX users_by_name ON users (vault_id, name);
    CREATE TABLE molecules (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      registration_type TEXT, owner TEXT, inchi_key TEXT, formula TEXT, molecular_weight REAL, log_p REAL,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX molecules_by_name ON molecules (vault_id, name);
    CREATE INDEX molecules_by_modified_at ON molecules (vault_id, modified_at);
    CREATE TABLE batches (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      molecule_id INTEGER, position INTEGER, identifier TEXT COLLATE NOCASE, owner TEXT, salt_name TEXT, formula_weight REAL,
json TEXT,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX batches_by_molecule_id ON batches (vault_id, molecule_id);
    CREATE INDEX batches_by_identifier ON batches (vault_id, identifier);
    CREATE TABLE collections (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      owner TEXT, collection_type TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX collections_by_name ON collections (vault_id, name);
    CREATE TABLE protocols (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      category TEXT, data_set_id INTEGER, owner TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX protocols_by_name ON protocols (vault_id, name);
    CREATE TABLE runs (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      protocol_id INTEGER, project_id INTEGER, run_date TEXT, person TEXT, place TEXT, slurp_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX runs_by_name ON runs (vault_id, name);
    CREATE INDEX runs_by_protocol_id ON runs (vault_id, protocol_id);
    CREATE INDEX runs_by_run_date ON runs (vault_id, run_date);
    CREATE TABLE readout_rows (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      protocol_id INTEGER, run_id INTEGER, run_date TEXT, molecule_id INTEGER, batch_id INTEGER, plate_id INTEGER, row_type TEXT, control_state TEXT, well TEXT, has_modifier INTEGER NOT NULL DEFAULT 0, has_outlier INTEGER NOT NULL DEFAULT 0, has_note INTEGER NOT NULL DEFAULT 0,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX readout_rows_by_protocol_id ON readout_rows (vault_id, protocol_id);
    CREATE INDEX readout_rows_by_run_id ON readout_rows (vault_id, run_id);
    CREATE INDEX readout_rows_by_molecule_id ON readout_rows (vault_id, molecule_id);
    CREATE INDEX readout_rows_by_batch_id ON readout_rows (vault_id, batch_id);
    CREATE INDEX readout_rows_by_plate_id ON readout_rows (vault_id, plate_id);
    CREATE TABLE plates (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      location TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX plates_by_name ON plates (vault_id, name);
    CREATE TABLE control_layouts (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      protocol_id INTEGER, run_id INTEGER, plate_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX control_layouts_by_name ON control_layouts (vault_id, name);
    CREATE INDEX control_layouts_by_protocol_id ON control_layouts (vault_id, protocol_id);
    CREATE INDEX control_layouts_by_run_id ON control_layouts (vault_id, run_id);
    CREATE INDEX control_layouts_by_plate_id ON control_layouts (vault_id, plate_id);
    CREATE TABLE inventory_locations (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      parent_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX inventory_locations_by_name ON inventory_locations (vault_id, name);
    CREATE INDEX inventory_locations_by_parent_id ON inventory_locations (vault_id, parent_id);
    CREATE TABLE inventory_samples (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      batch_id INTEGER, location_id INTEGER, owner TEXT, units TEXT, current_amount REAL,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX inventory_samples_by_name ON inventory_samples (vault_id, name);
    CREATE INDEX inventory_samples_by_batch_id ON inventory_samples (vault_id, batch_id);
    CREATE INDEX inventory_samples_by_location_id ON inventory_samples (vault_id, location_id);
    CREATE INDEX inventory_samples_by_modified_at ON inventory_samples (vault_id, modified_at);
    CREATE TABLE eln_entries (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      status TEXT, author_id INTEGER, author TEXT, project_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX eln_entries_by_name ON eln_entries (vault_id, name);
    CREATE INDEX eln_entries_by_modified_at ON eln_entries (vault_id, modified_at);
    CREATE INDEX eln_entries_by_status ON eln_entries (vault_id, status);
    CREATE TABLE files (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      resource_class TEXT, resource_id INTEGER, mime_type TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX files_by_name ON files (vault_id, name);
    CREATE INDEX files_by_resource_class_resource_id ON files (vault_id, resource_class, resource_id);
    CREATE TABLE saved_searches (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      project_id INTEGER, search_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX saved_searches_by_name ON saved_searches (vault_id, name);
    CREATE TABLE mapping_templates (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      owner TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX mapping_templates_by_name ON mapping_templates (vault_id, name);
    CREATE TABLE import_parsers (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX import_parsers_by_name ON import_parsers (vault_id, name);
    CREATE TABLE registration_forms (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX registration_forms_by_name ON registration_forms (vault_id, name);
    CREATE TABLE registration_systems (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX registration_systems_by_name ON registration_systems (vault_id, name);
    CREATE TABLE dose_response_calculations (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      protocol_id INTEGER, readout_definition_id INTEGER, equation_type TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX dose_response_calculations_by_name ON dose_response_calculations (vault_id, name);
    CREATE INDEX dose_response_calculations_by_protocol_id ON dose_response_calculations (vault_id, protocol_id);
    CREATE TABLE dose_response_series (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      calculation_id INTEGER, batch_id INTEGER, run_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX dose_response_series_by_name ON dose_response_series (vault_id, name);
    CREATE INDEX dose_response_series_by_calculation_id ON dose_response_series (vault_id, calculation_id);
    CREATE INDEX dose_response_series_by_batch_id ON dose_response_series (vault_id, batch_id);
    CREATE TABLE vault_status (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX vault_status_by_name ON vault_status (vault_id, name);
    CREATE TABLE slurps (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      status TEXT, owner TEXT, project_id INTEGER,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX slurps_by_name ON slurps (vault_id, name);
    CREATE TABLE batch_move_jobs (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      batch_id INTEGER, molecule_id INTEGER, status TEXT,
json TEXT NOT NULL,
      UNIQUE (vault_id, id)
    );
    CREATE INDEX batch_move_jobs_by_name ON batch_move_jobs (vault_id, name);
    CREATE INDEX batch_move_jobs_by_batch_id ON batch_move_jobs (vault_id, batch_id);

    -- Which projects a record belongs to (molecules, batches, protocols, plates... have several).
    CREATE TABLE record_projects (
      kind_code INTEGER NOT NULL,
      row_id INTEGER NOT NULL,
      project_id INTEGER NOT NULL,
      PRIMARY KEY (kind_code, row_id, project_id)
    ) WITHOUT ROWID;
    CREATE INDEX record_projects_by_project ON record_projects (project_id, kind_code, row_id);

    -- Search as you type. Contentless (the text is derived from the JSON, no second copy) with
    -- contentless_delete so that a record is replaced by rowid. rowid = row_id * 64 + kind code.
    -- '-' and '_' are token characters so that identifiers such as VD-0001234-001 stay one token
    -- (wordy parts of hyphenated names are indexed too). No prefix index: it would double the
    -- cost of ingest; search-query.ts expands prefixes from the vocabulary instead.
    -- scope holds _v<vault id> (no typed word starts with '_'), to filter by vault inside the
    -- index when the cache holds several vaults; kinds are filtered by rowid % 64.
    CREATE VIRTUAL TABLE search_index USING fts5(
      name, identifiers, synonyms, content, scope,
      content = '', contentless_delete = 1,
      tokenize = "unicode61 remove_diacritics 2 tokenchars '-_'"
    );

    -- The position of pull sync per vault and kind (scope: a sub-listing such as one protocol's
    -- readout rows), written in the same transaction as the rows it covers.
    CREATE TABLE sync_cursors (
      vault_id INTEGER NOT NULL,
      kind TEXT NOT NULL,
      scope TEXT NOT NULL DEFAULT '',
      cursor TEXT NOT NULL,
      saved_at TEXT NOT NULL,
      PRIMARY KEY (vault_id, kind, scope)
    ) WITHOUT ROWID;

    CREATE TABLE vault_syncs (
      vault_id INTEGER PRIMARY KEY,
      last_sync_at TEXT NOT NULL
    );
  `)

/**
 * Step 3: the structure index of each vault's molecules, what chemistry computed from each
 * structure (identity, fingerprints, pickle, properties or the reason it could not be parsed)
 * with the content hash it was computed from, and the depictions drawn from it. Molecule ids are
 * only unique within a vault (a cache holds every vault of its connection), so rows are keyed by
 * vault and molecule. Property columns carry the vault's field names and hold the values RDKit
 * computed (the vault's own values are in `known_properties`). Depictions are valid only while
 * their `content_hash` equals the molecule's. `source_modified_at` is the cached molecule's
 * `modified_at` when ingest last looked at it, so that ingest reads only molecules that changed
 * since; `structure_index_state` names the recipe (and RDKit) that computed a vault's index, so
 * that a new one looks at all.
 */
export const structureIndexMigration: Migration = (db: Database.Database) =>
  db.exec(`
    CREATE TABLE structure_index (
      vault_id INTEGER NOT NULL,
      molecule_id INTEGER NOT NULL,
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
      computed_at TEXT NOT NULL,
      source_modified_at TEXT,
      PRIMARY KEY (vault_id, molecule_id)
    );
    CREATE INDEX structure_index_by_canonical_smiles ON structure_index (vault_id, canonical_smiles);
    CREATE INDEX structure_index_by_inchikey ON structure_index (vault_id, inchikey);
    CREATE TABLE structure_depictions (
      vault_id INTEGER NOT NULL,
      molecule_id INTEGER NOT NULL,
      size TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      svg TEXT NOT NULL,
      PRIMARY KEY (vault_id, molecule_id, size),
      FOREIGN KEY (vault_id, molecule_id)
        REFERENCES structure_index (vault_id, molecule_id) ON DELETE CASCADE
    );
    CREATE TABLE structure_index_state (
      vault_id INTEGER PRIMARY KEY,
      recipe TEXT NOT NULL
    );
  `)

/**
 * Step 4: a molecule is searchable before its InChIKey and properties are computed;
 * `details_pending` holds the `structureDetail` bits still to compute. Rows of step 3 had every
 * detail computed in one pass, hence the default 0.
 */
export const structureDetailsMigration: Migration = (db: Database.Database) =>
  db.exec('ALTER TABLE structure_index ADD COLUMN details_pending INTEGER NOT NULL DEFAULT 0')

/**
 * Step 5: the search index merges its segments only when a level holds 16 (FTS5's crisis merge),
 * not every 4 (its automerge): every committed page adds a segment, and merging them 4 at a time
 * rewrote each document more often, about a twentieth of the writer's time over a first sync, for
 * as many segments at its end. IdleSearchMerging merges them into one once the writer is idle.
 */
const mergeSearchSegmentsLess: Migration = (db: Database.Database) =>
  db.exec(`INSERT INTO search_index (search_index, rank) VALUES ('automerge', 0)`)

/**
 * Step 6: catches what `source_modified_at` cannot, a molecule the cache rewrites with other
 * content under the `modified_at` it had. The vault stamps whole seconds and the sync's cursor
 * reads the last second again, so a structure corrected within the second it was made arrives
 * with the stamp ingest has seen (and a molecule without a stamp always does). The trigger notes
 * such a molecule until ingest has looked at it; `seq` only grows (AUTOINCREMENT), so that ingest
 * forgets only the notes that were there before it read the molecules.
 */
const unstampedChangesMigration: Migration = (db: Database.Database) =>
  db.exec(`
    CREATE TABLE structure_unstamped_changes (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      vault_id INTEGER NOT NULL,
      molecule_id INTEGER NOT NULL,
      UNIQUE (vault_id, molecule_id)
    );
    CREATE TRIGGER molecules_changed_unstamped AFTER UPDATE OF json ON molecules
      WHEN new.modified_at IS old.modified_at AND new.json IS NOT old.json
    BEGIN
      INSERT OR REPLACE INTO structure_unstamped_changes (vault_id, molecule_id)
        VALUES (new.vault_id, new.id);
    END;
  `)

/**
 * Step 7: the readout value index (readout-index.ts). Every cell of every readout row becomes a
 * typed value (`kind` number, date, boolean, text or empty; a number in its definition's unit
 * with its modifier kept), and each molecule and batch has an aggregate per protocol and readout
 * definition. Triggers queue the rows sync writes or deletes (and every row of a protocol whose
 * readout definitions change); the cache writer indexes the queue when it is idle, and a host that
 * needs the index whole (the CLI's find) completes it first. A cache of an earlier step queues
 * every row it holds.
 */
const readoutIndexMigration: Migration = (db: Database.Database) =>
  db.exec(`
    CREATE TABLE readout_values (
      vault_id INTEGER NOT NULL,
      row_id INTEGER NOT NULL,
      definition_id INTEGER NOT NULL,
      protocol_id INTEGER,
      run_id INTEGER,
      run_date TEXT,
      batch_id INTEGER,
      molecule_id INTEGER,
      plate_id INTEGER,
      well TEXT,
      aggregate_row INTEGER NOT NULL DEFAULT 0,
      control_state TEXT,
      outlier INTEGER NOT NULL DEFAULT 0,
      kind TEXT NOT NULL,
      number REAL,
      modifier TEXT,
      text TEXT,
      note TEXT,
      PRIMARY KEY (vault_id, row_id, definition_id)
    ) WITHOUT ROWID;
    CREATE INDEX readout_values_by_definition ON readout_values (vault_id, definition_id, number);
    CREATE INDEX readout_values_by_batch ON readout_values (vault_id, batch_id);
    CREATE INDEX readout_values_by_molecule ON readout_values (vault_id, molecule_id);

    CREATE TABLE readout_aggregates (
      vault_id INTEGER NOT NULL,
      level TEXT NOT NULL,
      subject_id INTEGER NOT NULL,
      protocol_id INTEGER NOT NULL,
      definition_id INTEGER NOT NULL,
      source TEXT NOT NULL,
      aggregation TEXT,
      kind TEXT NOT NULL,
      number REAL,
      modifier TEXT,
      text TEXT,
      n INTEGER NOT NULL,
      details TEXT NOT NULL,
      PRIMARY KEY (vault_id, level, protocol_id, definition_id, subject_id)
    ) WITHOUT ROWID;
    CREATE INDEX readout_aggregates_by_subject ON readout_aggregates (vault_id, level, subject_id);
    CREATE INDEX readout_aggregates_by_value
      ON readout_aggregates (vault_id, level, protocol_id, definition_id, number);

    CREATE TABLE readout_index_queue (
      vault_id INTEGER NOT NULL,
      row_id INTEGER NOT NULL,
      PRIMARY KEY (vault_id, row_id)
    ) WITHOUT ROWID;
    CREATE TABLE readout_group_queue (
      vault_id INTEGER NOT NULL,
      protocol_id INTEGER NOT NULL,
      level TEXT NOT NULL,
      subject_id INTEGER NOT NULL,
      PRIMARY KEY (vault_id, protocol_id, level, subject_id)
    ) WITHOUT ROWID;

    CREATE TRIGGER readout_rows_queued_on_insert AFTER INSERT ON readout_rows
    BEGIN
      INSERT OR IGNORE INTO readout_index_queue (vault_id, row_id) VALUES (new.vault_id, new.id);
    END;
    CREATE TRIGGER readout_rows_queued_on_update AFTER UPDATE ON readout_rows
      WHEN new.json IS NOT old.json OR new.protocol_id IS NOT old.protocol_id
        OR new.batch_id IS NOT old.batch_id OR new.molecule_id IS NOT old.molecule_id
    BEGIN
      INSERT OR IGNORE INTO readout_index_queue (vault_id, row_id) VALUES (new.vault_id, new.id);
    END;
    CREATE TRIGGER readout_rows_unindexed_on_delete AFTER DELETE ON readout_rows
    BEGIN
      DELETE FROM readout_values WHERE vault_id = old.vault_id AND row_id = old.id;
      INSERT OR IGNORE INTO readout_group_queue (vault_id, protocol_id, level, subject_id)
        SELECT old.vault_id, old.protocol_id, 'batch', old.batch_id
        WHERE old.protocol_id IS NOT NULL AND old.batch_id IS NOT NULL;
      INSERT OR IGNORE INTO readout_group_queue (vault_id, protocol_id, level, subject_id)
        SELECT old.vault_id, old.protocol_id, 'molecule', old.molecule_id
        WHERE old.protocol_id IS NOT NULL AND old.molecule_id IS NOT NULL;
    END;
    CREATE TRIGGER protocols_definitions_changed AFTER UPDATE OF json ON protocols
      WHEN json_extract(new.json, '$.readout_definitions')
        IS NOT json_extract(old.json, '$.readout_definitions')
    BEGIN
      INSERT OR IGNORE INTO readout_index_queue (vault_id, row_id)
        SELECT vault_id, id FROM readout_rows WHERE vault_id = new.vault_id AND protocol_id = new.id;
    END;
    INSERT INTO readout_index_queue (vault_id, row_id) SELECT vault_id, id FROM readout_rows;
  `)

/**
 * Step 8: the keys of the novelty check. `skeleton_key` is the InChIKey's first block (the
 * connectivity without stereo), computed by SQLite from `inchikey` so that it is never out of
 * step with it. `parent_smiles` is the canonical SMILES of the structure without salts and
 * solvents (chem/parent-structure.ts): a structure of one fragment is its own parent, so rows of
 * earlier steps get theirs here, and those of several fragments wait for it as a detail (bit 4 of
 * `details_pending`) that the details pass computes from the pickle.
 */
export const noveltyKeysMigration: Migration = (db: Database.Database) =>
  db.exec(`
    ALTER TABLE structure_index ADD COLUMN parent_smiles TEXT;
    ALTER TABLE structure_index ADD COLUMN skeleton_key TEXT
      GENERATED ALWAYS AS (substr(inchikey, 1, 14)) VIRTUAL;
    UPDATE structure_index SET parent_smiles = canonical_smiles
      WHERE parse_error IS NULL AND instr(canonical_smiles, '.') = 0;
    UPDATE structure_index SET details_pending = details_pending | 4
      WHERE parse_error IS NULL AND instr(canonical_smiles, '.') > 0;
    CREATE INDEX structure_index_by_skeleton_key ON structure_index (vault_id, skeleton_key);
    CREATE INDEX structure_index_by_parent_smiles ON structure_index (vault_id, parent_smiles);
    CREATE INDEX structure_index_unchecked ON structure_index (vault_id)
      WHERE details_pending & 5 <> 0;
  `)

/**
 * Step 9: what results tables count and filter, kept rather than computed per page
 * (results-queries.bench.ts). `readout_subjects` holds each molecule and batch with an aggregate in
 * a protocol, and `readout_subject_counts` how many a protocol has: the table's rows and their
 * total, which counting distinct subjects over every aggregate made most of a page's time. The
 * indexer keeps both with the aggregates, in the same transaction. `readout_aggregates_by_cell`
 * replaces `readout_aggregates_by_value` with the kind and modifier a range filter reads, so that
 * counting a filtered column never leaves the index; `readout_values_by_cell` replaces
 * `readout_values_by_definition` with what a search by results reads of each cell (its kind,
 * protocol and batch).
 *
 * A cache that holds readout values or aggregates gets its subjects, counts and the two indexes
 * later, from the cache writer's worker (`fillReadoutSubjects`, cache-backfills.ts): done here,
 * they held the main thread for 29-67 s on a cache of 4M aggregates. Until then the step-7
 * indexes stay, and readers take a protocol's subjects from its aggregates (readout-queries.ts
 * tells the two states apart by `readout_aggregates_by_cell`, made with the counts). Amended so
 * after its release: a cache that took the step as first written already has what the amended
 * one ends with. `cache_backfills` is made here for that work when step 10 has not made it yet.
 */
const readoutSubjectsMigration: Migration = (db: Database.Database) => {
  db.exec(`
    CREATE TABLE readout_subjects (
      vault_id INTEGER NOT NULL,
      level TEXT NOT NULL,
      protocol_id INTEGER NOT NULL,
      subject_id INTEGER NOT NULL,
      PRIMARY KEY (vault_id, level, protocol_id, subject_id)
    ) WITHOUT ROWID;
    CREATE TABLE readout_subject_counts (
      vault_id INTEGER NOT NULL,
      level TEXT NOT NULL,
      protocol_id INTEGER NOT NULL,
      subjects INTEGER NOT NULL,
      PRIMARY KEY (vault_id, level, protocol_id)
    ) WITHOUT ROWID;
  `)
  const indexed = db
    .prepare(
      `SELECT EXISTS (SELECT 1 FROM readout_values) OR EXISTS (SELECT 1 FROM readout_aggregates)`,
    )
    .pluck()
    .get()
  if (!indexed) {
    db.exec(readoutCellIndexes)
    return
  }
  // Subject ids are whole numbers: the slices go from the least to the greatest there is.
  db.exec(`
    CREATE TABLE IF NOT EXISTS cache_backfills (
      step INTEGER PRIMARY KEY,
      next_row_id INTEGER NOT NULL,
      last_row_id INTEGER NOT NULL
    );
    INSERT INTO cache_backfills (step, next_row_id, last_row_id)
      VALUES (9, -9007199254740991, 9007199254740991);
  `)
}

/** Step 9's index of aggregates, in place of step 7's (readers tell the states apart by it). */
const readoutAggregateCellIndex = `
    DROP INDEX readout_aggregates_by_value;
    CREATE INDEX readout_aggregates_by_cell
      ON readout_aggregates (vault_id, level, protocol_id, definition_id, number, kind, modifier);
  `
/** Step 9's index of values, in place of step 7's. */
const readoutValueCellIndex = `
    DROP INDEX readout_values_by_definition;
    CREATE INDEX readout_values_by_cell
      ON readout_values (vault_id, definition_id, number, kind, protocol_id, batch_id);
  `
/** Step 9's indexes, in place of step 7's. */
const readoutCellIndexes = readoutAggregateCellIndex + readoutValueCellIndex

/**
 * Step 9's work in a cache that held readout values or aggregates: the subjects of the aggregates
 * whose subject ids are from `first` to `last` (in every vault and at both levels, along
 * `readout_aggregates_by_subject`), a slice ending after about a thousand aggregates of each vault
 * and level; then, in the last slice's transaction, every protocol's count and the two indexes.
 * Subjects the indexer adds or removes meanwhile stay right (it replaces a group's subjects with
 * its aggregates, and the fill takes only subjects with aggregates); its counts are made again.
 */
const fillReadoutSubjects: Backfill = (db) => {
  const vaultsAndLevels = `
    WITH RECURSIVE aggregate_vaults (vault_id) AS (
      SELECT min(vault_id) FROM readout_aggregates
      UNION ALL
      SELECT (SELECT min(vault_id) FROM readout_aggregates WHERE vault_id > v.vault_id)
        FROM aggregate_vaults v WHERE v.vault_id IS NOT NULL
    ), pairs (vault_id, level) AS (
      SELECT vault_id, level FROM aggregate_vaults, (SELECT 'batch' AS level UNION ALL SELECT 'molecule')
        WHERE vault_id IS NOT NULL
    )`
  const fill = db.prepare(`${vaultsAndLevels}
    INSERT OR IGNORE INTO readout_subjects (vault_id, level, protocol_id, subject_id)
      SELECT DISTINCT a.vault_id, a.level, a.protocol_id, a.subject_id
        FROM pairs p JOIN readout_aggregates a INDEXED BY readout_aggregates_by_subject
          ON a.vault_id = p.vault_id AND a.level = p.level AND a.subject_id BETWEEN ? AND ?`)
  const sliceEnd = db
    .prepare<[number], number | null>(
      `${vaultsAndLevels}
      SELECT min((SELECT a.subject_id FROM readout_aggregates a INDEXED BY readout_aggregates_by_subject
          WHERE a.vault_id = p.vault_id AND a.level = p.level AND a.subject_id >= ?
          ORDER BY a.subject_id LIMIT 1 OFFSET 999))
        FROM pairs p`,
    )
    .pluck()
  return {
    table: 'readout_aggregates',
    sliceEnd: (from) => sliceEnd.get(from) ?? null,
    fill: (first, last) => void fill.run(first, last),
    // In two transactions, each index in its own: together they held the write lock for about
    // 37 s on a cache of 2.5M values, and sync's commits waited behind them. The counts go with
    // the first: readers take them once the index of aggregates is there, and the indexer keeps
    // them meanwhile.
    finish: () => {
      const valuesIndexed = db
        .prepare(
          "SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'readout_values_by_cell'",
        )
        .get()
      if (valuesIndexed) {
        db.exec(readoutAggregateCellIndex)
        return true
      }
      db.exec(`
        DELETE FROM readout_subject_counts;
        INSERT INTO readout_subject_counts (vault_id, level, protocol_id, subjects)
          SELECT vault_id, level, protocol_id, count(*) FROM readout_subjects
            GROUP BY vault_id, level, protocol_id;
        ${readoutValueCellIndex}`)
      return false
    },
  }
}

/**
 * Step 10: the members of a molecule that its list shows besides its columns, kept beside the
 * JSON so that a list read whole (an export, `find`) needs no record parsed: `batch_count`, the
 * length of `batches` when it is an array, and `projects_json`, the JSON text of `projects` (NULL
 * when the record has no such member). Parsing each record was most of reading a list
 * (export.bench.ts). The record writer fills both from each record. Rows of earlier steps get
 * theirs later, off the main thread: filling 250k rows here took 5.9 s, all of it a frozen
 * window (cache-backfills.ts). Until then their columns are NULL, as for a row without the
 * members, so a reader that must be exact reads the record where they are NULL.
 *
 * `cache_backfills` holds such deferred work: the rows (by rowid, `next_row_id` to
 * `last_row_id`) that a step has yet to fill, done by `cacheBackfills[step]` a slice at a time.
 * Step 9 makes it first in a cache it leaves work in (IF NOT EXISTS since then).
 */
const moleculeListMembersMigration: Migration = (db: Database.Database) =>
  db.exec(`
    ALTER TABLE molecules ADD COLUMN batch_count INTEGER;
    ALTER TABLE molecules ADD COLUMN projects_json TEXT;
    CREATE TABLE IF NOT EXISTS cache_backfills (
      step INTEGER PRIMARY KEY,
      next_row_id INTEGER NOT NULL,
      last_row_id INTEGER NOT NULL
    );
    INSERT INTO cache_backfills (step, next_row_id, last_row_id)
      SELECT 10, min(row_id), max(row_id) FROM molecules HAVING count(*) > 0;
  `)

/** Step 10's work on the molecules with row ids from `first` to `last`. */
const fillMoleculeListMembers: Backfill = (db) => {
  const fill = db.prepare(`
    UPDATE molecules SET
      batch_count = iif(json_type(json, '$.batches') = 'array',
        json_array_length(json, '$.batches'), NULL),
      projects_json = json -> '$.projects'
      WHERE row_id BETWEEN ? AND ?`)
  return { table: 'molecules', fill: (first, last) => void fill.run(first, last) }
}

/**
 * Step 11: `structure_hash`, 128 bits of the SHA-256 of the structure text each entry was computed
 * from (trimmed; a molfile only at its end), indexed with the vault for the entries RDKit read
 * (`parse_error IS NULL`, so that the index alone answers, without reading the wide rows): an
 * import check finds in one query which of a file's structures are cached ones that need no
 * parse. The structure index writes it with each entry (structureTextHash in
 * structure-index-repository.ts). Entries of earlier steps get theirs later, off the main thread
 * (12.2 s for 250k entries here), from their molecule's structure as ingest reads it (the first
 * of cxsmiles, smiles, molfile and structure that holds text), hashed by this step's own frozen
 * copy of that function. Until then their hash is NULL, which only makes an import check parse
 * their structure again, and the index is made once they are all filled (made over NULLs, it
 * would cost opening the cache its reading of every entry all the same).
 */
const structureHashMigration: Migration = (db: Database.Database) => {
  db.exec(`
    ALTER TABLE structure_index ADD COLUMN structure_hash TEXT;
    INSERT INTO cache_backfills (step, next_row_id, last_row_id)
      SELECT 11, min(rowid), max(rowid) FROM structure_index HAVING count(*) > 0;
  `)
  const backfilling = db.prepare('SELECT 1 FROM cache_backfills WHERE step = 11').get()
  if (backfilling === undefined) db.exec(structureHashIndex)
}

/**
 * Step 11's index: made at once in a cache without entries, else by the backfill once their hashes
 * are filled in (it reads every page of them: 1.2 s of the main thread for 250k).
 */
const structureHashIndex = `
    CREATE INDEX structure_index_readable_by_structure_hash ON structure_index (vault_id, structure_hash)
      WHERE parse_error IS NULL;
  `

/** Step 11's work on the entries with rowids from `first` to `last` that have no hash yet. */
const fillStructureHashes: Backfill = (db) => {
  db.function('step_11_structure_hash', { deterministic: true, varargs: true }, (...fields) => {
    const text = fields.find(
      (value): value is string => typeof value === 'string' && value.trim() !== '',
    )
    if (text === undefined) return null
    const key = text.includes('M  END') ? text.trimEnd() : text.trim()
    return createHash('sha256').update(key).digest('base64url').slice(0, 22)
  })
  const fill = db.prepare(`
    UPDATE structure_index AS s SET structure_hash = (
      SELECT step_11_structure_hash(json_extract(m.json, '$.cxsmiles'),
          json_extract(m.json, '$.smiles'), json_extract(m.json, '$.molfile'),
          json_extract(m.json, '$.structure'))
        FROM molecules AS m WHERE m.vault_id = s.vault_id AND m.id = s.molecule_id)
      WHERE s.rowid BETWEEN ? AND ? AND s.structure_hash IS NULL`)
  return {
    table: 'structure_index',
    fill: (first, last) => void fill.run(first, last),
    finish: () => db.exec(structureHashIndex),
  }
}

/**
 * Step 12: `molecules_by_name` covers, after the row id, every column a molecule's row is read
 * with but its record (the frame's, the declared ones and the list members of step 10), so that a
 * list of molecules in name order read without its records (an export of the view, `find`) walks
 * the index alone. Along the old index each row was a lookup of its table page, in an order
 * unrelated to the table's: 4 times slower than the walk at 250k molecules (export.bench.ts).
 * About 200 bytes a molecule. A cache with molecules gets it from the cache writer's worker
 * (building it read a 250k-molecule table for 3.9 s), the old index serving until then; meanwhile
 * a list read whole reads its records, as while step 10 fills its members (record-queries.ts
 * `#membersBackfilling` goes by the table), which is slower but gives the same cells.
 */
const moleculesListedByNameMigration: Migration = (db: Database.Database) => {
  const holdsMolecules = db.prepare('SELECT EXISTS (SELECT 1 FROM molecules)').pluck().get()
  if (!holdsMolecules) {
    db.exec(moleculesListedByName)
    return
  }
  // One slice: its end is the last row id itself.
  db.exec(`
    INSERT INTO cache_backfills (step, next_row_id, last_row_id)
      SELECT 12, max(row_id), max(row_id) FROM molecules;
  `)
}

const moleculesListedByName = `
    DROP INDEX molecules_by_name;
    CREATE INDEX molecules_by_name ON molecules (vault_id, name, row_id, id, created_at,
      modified_at, registration_type, owner, inchi_key, formula, molecular_weight, log_p,
      batch_count, projects_json);
  `

/** Step 12's work: no rows to fill, the index made in the worker's transaction. */
const makeMoleculesListedByName: Backfill = (db) => ({
  table: 'molecules',
  fill: () => {},
  finish: () => db.exec(moleculesListedByName),
})

/**
 * Step 13: a counter per table that a search by results reads (readout-queries.ts), raised by
 * any connection's write that can change its answer (a row added, deleted or changed in what the
 * index reads; a batch moved to another molecule). A search's answer is kept while they and the
 * readout index's backlog stay as they were: `PRAGMA data_version` changes with any commit (a
 * backfill, the structure index), which made each page of a list evaluate its criteria again.
 * Readout rows are counted rather than the index's own tables, whose millions of writes a first
 * sync makes: an indexed row leaves the backlog, which the key holds too.
 */
const readoutChangeCountersMigration: Migration = (db: Database.Database) =>
  db.exec(`
    CREATE TABLE readout_change_counters (
      topic TEXT PRIMARY KEY,
      changes INTEGER NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO readout_change_counters (topic, changes)
      VALUES ('readout_rows', 0), ('batches', 0), ('protocols', 0);
    CREATE TRIGGER readout_rows_counted_on_insert AFTER INSERT ON readout_rows
    BEGIN
      UPDATE readout_change_counters SET changes = changes + 1 WHERE topic = 'readout_rows';
    END;
    CREATE TRIGGER readout_rows_counted_on_update AFTER UPDATE ON readout_rows
      WHEN new.json IS NOT old.json OR new.protocol_id IS NOT old.protocol_id
        OR new.run_id IS NOT old.run_id OR new.run_date IS NOT old.run_date
        OR new.batch_id IS NOT old.batch_id OR new.molecule_id IS NOT old.molecule_id
    BEGIN
      UPDATE readout_change_counters SET changes = changes + 1 WHERE topic = 'readout_rows';
    END;
    CREATE TRIGGER readout_rows_counted_on_delete AFTER DELETE ON readout_rows
    BEGIN
      UPDATE readout_change_counters SET changes = changes + 1 WHERE topic = 'readout_rows';
    END;
    CREATE TRIGGER batches_counted_on_insert AFTER INSERT ON batches
    BEGIN
      UPDATE readout_change_counters SET changes = changes + 1 WHERE topic = 'batches';
    END;
    CREATE TRIGGER batches_counted_on_update AFTER UPDATE OF molecule_id ON batches
      WHEN new.molecule_id IS NOT old.molecule_id
    BEGIN
      UPDATE readout_change_counters SET changes = changes + 1 WHERE topic = 'batches';
    END;
    CREATE TRIGGER batches_counted_on_delete AFTER DELETE ON batches
    BEGIN
      UPDATE readout_change_counters SET changes = changes + 1 WHERE topic = 'batches';
    END;
    CREATE TRIGGER protocols_counted_on_change AFTER UPDATE OF json ON protocols
      WHEN new.json IS NOT old.json
    BEGIN
      UPDATE readout_change_counters SET changes = changes + 1 WHERE topic = 'protocols';
    END;
  `)

/**
 * Step 14: a plate's readout rows read from the plate index alone. A plate page reads every row of
 * the plate (1,536 on a large plate) for its id, well, control mark and batch; along the old index
 * each was a lookup of its table row, whose JSON fills pages of its own: about half the store's
 * answer (plate-heatmap.bench.ts). Only rows on a plate are indexed, so a vault of curves without
 * plates pays nothing. A cache with readout rows gets it from the cache writer's worker, as step
 * 12's index, the old index serving until then. Plates are counted as step 13 counts readout
 * rows, so that a plate page's record is read again only when a plate has changed.
 */
const readoutRowsCoveredByPlateMigration: Migration = (db: Database.Database) => {
  db.exec(platesCounted)
  const holdsRows = db.prepare('SELECT EXISTS (SELECT 1 FROM readout_rows)').pluck().get()
  if (!holdsRows) {
    db.exec(readoutRowsCoveredByPlate)
    return
  }
  // One slice: its end is the last row id itself.
  db.exec(`
    INSERT INTO cache_backfills (step, next_row_id, last_row_id)
      SELECT 14, max(row_id), max(row_id) FROM readout_rows;
  `)
}

const platesCounted = `
    INSERT INTO readout_change_counters (topic, changes) VALUES ('plates', 0);
    CREATE TRIGGER plates_counted_on_insert AFTER INSERT ON plates
    BEGIN
      UPDATE readout_change_counters SET changes = changes + 1 WHERE topic = 'plates';
    END;
    CREATE TRIGGER plates_counted_on_update AFTER UPDATE ON plates
      WHEN new.json IS NOT old.json OR new.name IS NOT old.name
    BEGIN
      UPDATE readout_change_counters SET changes = changes + 1 WHERE topic = 'plates';
    END;
    CREATE TRIGGER plates_counted_on_delete AFTER DELETE ON plates
    BEGIN
      UPDATE readout_change_counters SET changes = changes + 1 WHERE topic = 'plates';
    END;
  `

const readoutRowsCoveredByPlate = `
    DROP INDEX readout_rows_by_plate_id;
    CREATE INDEX readout_rows_by_plate_id ON readout_rows (vault_id, plate_id, id, well,
      control_state, batch_id) WHERE plate_id IS NOT NULL;
  `

/** Step 14's work: no rows to fill, the index made in the worker's transaction. */
const makeReadoutRowsCoveredByPlate: Backfill = (db) => ({
  table: 'readout_rows',
  fill: () => {},
  finish: () => db.exec(readoutRowsCoveredByPlate),
})

/**
 * Step 15: a protocol's curve points read from one index alone. Fitting every series of a
 * protocol reads the concentration and response cells of all its detail rows; along the value
 * table's key each cell was a lookup of a row that also holds its run date, note and molecule
 * (about 60% of the read, curves-protocol.bench.ts). The index holds what a curve point needs,
 * ordered so that a protocol's cells of one readout are one range, a batch's a range within it.
 * Partial (detail rows only, as the curve reads say `aggregate_row = 0`): queries that do not say
 * so, such as the results criteria, never take it in place of their own index. A cache with
 * values gets it from the cache writer's worker, as step 14's; curve reads use the value table
 * until then.
 */
const readoutValuesCoveredForCurvesMigration: Migration = (db: Database.Database) => {
  const holdsRows = db.prepare('SELECT EXISTS (SELECT 1 FROM readout_rows)').pluck().get()
  if (!holdsRows) {
    db.exec(readoutValuesCoveredForCurves)
    return
  }
  db.exec(`
    INSERT INTO cache_backfills (step, next_row_id, last_row_id)
      SELECT 15, max(row_id), max(row_id) FROM readout_rows;
  `)
}

const readoutValuesCoveredForCurves = `
    CREATE INDEX readout_values_for_curves ON readout_values (vault_id, protocol_id,
      definition_id, batch_id, run_id, row_id, plate_id, well, outlier, kind, number, modifier,
      text) WHERE aggregate_row = 0;
  `

/** Step 15's work: no rows to fill, the index made in the worker's transaction. */
const makeReadoutValuesCoveredForCurves: Backfill = (db) => ({
  table: 'readout_rows',
  fill: () => {},
  finish: () => db.exec(readoutValuesCoveredForCurves),
})

/**
 * Step 16: readout rows counted by their writer, once per page, prune or dropped vault
 * (record-writer.ts), instead of by step 13's triggers, whose UPDATE for each row written was
 * about a fifth of storing readout rows in a first sync (readout-index.bench.ts). Only the record
 * writer writes readout rows. A page that changes nothing is counted too, which only has a kept
 * answer computed again.
 */
const readoutRowsCountedByWriterMigration: Migration = (db: Database.Database) =>
  db.exec(`
    DROP TRIGGER readout_rows_counted_on_insert;
    DROP TRIGGER readout_rows_counted_on_update;
    DROP TRIGGER readout_rows_counted_on_delete;
  `)

/**
 * The rows a step has left to fill (a row of `cache_backfills`): `table`'s rows by rowid, `fill`
 * doing the step's work on those from `first` to `last`, and `finish` what the step does once
 * they are all filled (in the transaction of the last). Frozen with its step.
 */
export type Backfill = (db: Database.Database) => {
  table: string
  /**
   * Where a slice from `from` ends (null: at `last_row_id`), for a step whose work is not sliced
   * by `table`'s rowids (those slices hold a thousand rows).
   */
  sliceEnd?: (from: number) => number | null
  fill: (first: number, last: number) => void
  /**
   * Done once every row is filled, in the last slice's transaction; a finish that answers false
   * has more to do and is called again, in a transaction of its own each time (any other answer
   * is done).
   */
  finish?: () => unknown
}

/** The deferred work of the steps that have some, by step. */
export const cacheBackfills: Readonly<Record<number, Backfill>> = {
  9: fillReadoutSubjects,
  10: fillMoleculeListMembers,
  11: fillStructureHashes,
  12: makeMoleculesListedByName,
  14: makeReadoutRowsCoveredByPlate,
  15: makeReadoutValuesCoveredForCurves,
}

/** The steps of the cache schema, in order; step k brings `user_version` to k. */
export const cacheMigrations: readonly Migration[] = [
  firstLayoutSkipped,
  createRecordsAndSearch,
  structureIndexMigration,
  structureDetailsMigration,
  mergeSearchSegmentsLess,
  unstampedChangesMigration,
  readoutIndexMigration,
  noveltyKeysMigration,
  readoutSubjectsMigration,
  moleculeListMembersMigration,
  structureHashMigration,
  moleculesListedByNameMigration,
  readoutChangeCountersMigration,
  readoutRowsCoveredByPlateMigration,
  readoutValuesCoveredForCurvesMigration,
  readoutRowsCountedByWriterMigration,
]
