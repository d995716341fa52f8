import type Database from 'better-sqlite3'
import type { Migration } from './migrations.ts'
import {
  structureDetailsMigration,
  structureIndexMigration,
  unstampedChangesMigration,
} from './structure-index-repository.ts'

/**
 * The layout of a connection's cache (step 2): a table per record kind, the project links, the
 * search index and the sync state. Every record table has the same frame:
 *
 * - `row_id`: the local key. Declared INTEGER PRIMARY KEY so VACUUM never renumbers it, because
 *   the search index and the project links refer to it.
 * - `vault_id`, `id`: the server's key, unique together (ids are only unique within a vault).
 * - `name`, `created_at`, `modified_at`: what lists show and sort on for nearly every kind.
 *   Timestamps are normalized to `YYYY-MM-DDTHH:MM:SS.ffffffZ` so that text order is time order.
 * - kind-specific columns below: the links and the values the UI filters and sorts on.
 * - `json`: the record exactly as the API gave it (unknown members kept). It is the last column,
 *   so that scans which read only the columns before it do not touch its overflow pages. A batch
 *   that came nested in its molecule has no JSON of its own: it is read from the molecule's JSON
 *   at `position` in its `batches`, so that a molecule page is serialized once.
 *
 * Indexes are few on purpose: every one costs each ingested record a B-tree insert.
 */
interface RecordTable {
  columns: string
  indexes: string[]
  nestedJson?: true
  /** Kinds without useful names (or sorted by another column) skip the name index. */
  unnamed?: true
}

const recordTables: Record<string, RecordTable> = {
  vaults: { columns: '', indexes: [] },
  projects: { columns: '', indexes: [] },
  data_sets: { columns: '', indexes: [] },
  fields: { columns: 'field_type TEXT, data_type TEXT', indexes: [] },
  pick_list_values: { columns: 'field_id INTEGER', indexes: ['field_id'] },
  users: { columns: 'email TEXT, role_name TEXT', indexes: [] },
  molecules: {
    columns:
      'registration_type TEXT, owner TEXT, inchi_key TEXT, formula TEXT, molecular_weight REAL, log_p REAL',
    indexes: ['modified_at'],
  },
  batches: {
    columns:
      'molecule_id INTEGER, position INTEGER, identifier TEXT COLLATE NOCASE, owner TEXT, salt_name TEXT, formula_weight REAL',
    indexes: ['molecule_id', 'identifier'],
    nestedJson: true,
    unnamed: true,
  },
  collections: { columns: 'owner TEXT, collection_type TEXT', indexes: [] },
  protocols: { columns: 'category TEXT, data_set_id INTEGER, owner TEXT', indexes: [] },
  runs: {
    columns:
      'protocol_id INTEGER, project_id INTEGER, run_date TEXT, person TEXT, place TEXT, slurp_id INTEGER',
    indexes: ['protocol_id', 'run_date'],
  },
  readout_rows: {
    columns:
      'protocol_id INTEGER, run_id INTEGER, run_date TEXT, molecule_id INTEGER, batch_id INTEGER, plate_id INTEGER, row_type TEXT, control_state TEXT, well TEXT, has_modifier INTEGER NOT NULL DEFAULT 0, has_outlier INTEGER NOT NULL DEFAULT 0, has_note INTEGER NOT NULL DEFAULT 0',
    indexes: ['protocol_id', 'run_id', 'molecule_id', 'batch_id', 'plate_id'],
    unnamed: true,
  },
  plates: { columns: 'location TEXT', indexes: [] },
  control_layouts: {
    columns: 'protocol_id INTEGER, run_id INTEGER, plate_id INTEGER',
    indexes: ['protocol_id', 'run_id', 'plate_id'],
  },
  inventory_locations: { columns: 'parent_id INTEGER', indexes: ['parent_id'] },
  inventory_samples: {
    columns: 'batch_id INTEGER, location_id INTEGER, owner TEXT, units TEXT, current_amount REAL',
    indexes: ['batch_id', 'location_id', 'modified_at'],
  },
  eln_entries: {
    columns: 'status TEXT, author_id INTEGER, author TEXT, project_id INTEGER',
    indexes: ['modified_at', 'status'],
  },
  files: {
    columns: 'resource_class TEXT, resource_id INTEGER, mime_type TEXT',
    indexes: ['resource_class, resource_id'],
  },
  saved_searches: { columns: 'project_id INTEGER, search_id INTEGER', indexes: [] },
  mapping_templates: { columns: 'owner TEXT', indexes: [] },
  import_parsers: { columns: '', indexes: [] },
  registration_forms: { columns: '', indexes: [] },
  registration_systems: { columns: '', indexes: [] },
  dose_response_calculations: {
    columns: 'protocol_id INTEGER, readout_definition_id INTEGER, equation_type TEXT',
    indexes: ['protocol_id'],
  },
  dose_response_series: {
    columns: 'calculation_id INTEGER, batch_id INTEGER, run_id INTEGER',
    indexes: ['calculation_id', 'batch_id'],
  },
  vault_status: { columns: '', indexes: [] },
  slurps: { columns: 'status TEXT, owner TEXT, project_id INTEGER', indexes: [] },
  batch_move_jobs: {
    columns: 'batch_id INTEGER, molecule_id INTEGER, status TEXT',
    indexes: ['batch_id'],
  },
}

function createRecordTable(
  table: string,
  { columns, indexes, nestedJson, unnamed }: RecordTable,
): string {
  const extra = columns ? `${columns},\n` : ''
  return [
    `CREATE TABLE ${table} (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      ${extra}json TEXT${nestedJson ? '' : ' NOT NULL'},
      UNIQUE (vault_id, id)
    );`,
    ...(unnamed ? [] : [`CREATE INDEX ${table}_by_name ON ${table} (vault_id, name);`]),
    ...indexes.map(
      (columns) =>
        `CREATE INDEX ${table}_by_${columns.replace(/\W+/g, '_')} ON ${table} (vault_id, ${columns});`,
    ),
  ].join('\n')
}

/** What the first layout (step 1) created; step 2 replaces it whole. */
const firstLayout = [
  ...Object.keys(recordTables),
  'record_projects',
  'search_index',
  'sync_cursors',
  'vault_syncs',
]

/**
 * Step 2: the current layout. A cache of the first layout is emptied, and the next sync pulls
 * everything again (a cache is a copy; the outbox keeps queued work elsewhere).
 */
const createRecordsAndSearch: Migration = (db: Database.Database) => {
  for (const table of firstLayout) db.exec(`DROP TABLE IF EXISTS ${table}`)
  for (const [table, spec] of Object.entries(recordTables)) db.exec(createRecordTable(table, spec))
  db.exec(`
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
}

/**
 * Step 5: the search index merges its segments only when a level holds 16 (FTS5's crisis merge),
 * not every 4 (its automerge): every committed page adds a segment, and merging them 4 at a time
 * rewrote each document more often, about a twentieth of the writer's time over a first sync, for
 * as many segments at its end. IdleSearchMerging merges them into one once the writer is idle.
 */
const mergeSearchSegmentsLess: Migration = (db: Database.Database) => {
  db.exec(`INSERT INTO search_index (search_index, rank) VALUES ('automerge', 0)`)
}

/**
 * The steps of the cache schema, in order. Step 1 made the first layout, which step 2 replaces
 * whole (sort columns for log P and run dates), so a fresh cache skips it. Step 3 adds the
 * structure index (fingerprints, properties and depictions of each vault's molecules, owned by the
 * chemistry code in structure-index-repository.ts); step 4 marks the molecules whose InChIKey
 * and properties are still to compute; step 5 merges search segments less eagerly; step 6 notes
 * molecules rewritten under the `modified_at` they had, for structure ingest.
 */
export const cacheMigrations: readonly Migration[] = [
  () => {},
  createRecordsAndSearch,
  structureIndexMigration,
  structureDetailsMigration,
  mergeSearchSegmentsLess,
  unstampedChangesMigration,
]
