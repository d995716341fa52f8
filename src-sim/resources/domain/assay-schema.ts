/**
 * Tables of protocols and their data: readout definitions, runs, readout rows with one cell per
 * readout, and the dose-response calculations and per-curve data series. Readout rows refer to
 * batches only; the molecule of a row is always the batch's current molecule (batch moves
 * change it).
 */
export const assaySchema = `
CREATE TABLE IF NOT EXISTS protocols (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  category TEXT NOT NULL DEFAULT '',
  data_set_id INTEGER REFERENCES data_sets(id),
  owner_id INTEGER NOT NULL REFERENCES users(id),
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL,
  UNIQUE (vault_id, name)
);

CREATE TABLE IF NOT EXISTS protocol_projects (
  protocol_id INTEGER NOT NULL REFERENCES protocols(id) ON DELETE CASCADE,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  PRIMARY KEY (protocol_id, project_id)
);

CREATE TABLE IF NOT EXISTS protocol_field_values (
  protocol_id INTEGER NOT NULL REFERENCES protocols(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (protocol_id, name)
);

CREATE TABLE IF NOT EXISTS readout_definitions (
  id INTEGER PRIMARY KEY,
  protocol_id INTEGER NOT NULL REFERENCES protocols(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  data_type TEXT NOT NULL CHECK (data_type IN ('Number', 'Text')),
  unit_label TEXT NOT NULL DEFAULT '',
  precision INTEGER NOT NULL DEFAULT 3,
  aggregation TEXT NOT NULL DEFAULT 'arithmetic mean',
  -- concentration: the x of dose-response curves; measured: entered per well; calculated: a
  -- dose-response result, present on aggregate rows only.
  role TEXT NOT NULL CHECK (role IN ('concentration', 'measured', 'calculated')),
  position INTEGER NOT NULL,
  UNIQUE (protocol_id, name)
);

CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  protocol_id INTEGER NOT NULL REFERENCES protocols(id),
  project_id INTEGER NOT NULL REFERENCES projects(id),
  run_date INTEGER NOT NULL,
  person TEXT NOT NULL DEFAULT '',
  place TEXT NOT NULL DEFAULT '',
  conditions TEXT NOT NULL DEFAULT '',
  slurp_id INTEGER,
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_protocol ON runs (protocol_id);
CREATE INDEX IF NOT EXISTS runs_by_slurp ON runs (slurp_id);

CREATE TABLE IF NOT EXISTS readout_rows (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  protocol_id INTEGER NOT NULL REFERENCES protocols(id),
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  type TEXT NOT NULL CHECK (type IN ('detail row', 'aggregate row')),
  batch_id INTEGER REFERENCES batches(id),
  plate_id INTEGER REFERENCES plates(id),
  well_row INTEGER,
  well_col INTEGER,
  control_state TEXT CHECK (control_state IN ('+', '-', '#')),
  sample_id INTEGER REFERENCES inventory_samples(id),
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS readout_rows_by_run ON readout_rows (run_id, batch_id);
CREATE INDEX IF NOT EXISTS readout_rows_by_batch ON readout_rows (batch_id);
CREATE INDEX IF NOT EXISTS readout_rows_by_plate ON readout_rows (plate_id);
CREATE INDEX IF NOT EXISTS readout_rows_by_protocol ON readout_rows (protocol_id, type);

CREATE TABLE IF NOT EXISTS readout_cells (
  row_id INTEGER NOT NULL REFERENCES readout_rows(id) ON DELETE CASCADE,
  definition_id INTEGER NOT NULL REFERENCES readout_definitions(id) ON DELETE CASCADE,
  number_value REAL,
  text_value TEXT,
  modifier TEXT CHECK (modifier IN ('<', '>')),
  outlier INTEGER NOT NULL DEFAULT 0,
  note TEXT,
  PRIMARY KEY (row_id, definition_id)
);

CREATE TABLE IF NOT EXISTS dose_response_calculations (
  id INTEGER PRIMARY KEY,
  protocol_id INTEGER NOT NULL REFERENCES protocols(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  equation_type TEXT NOT NULL,
  concentration_definition_id INTEGER NOT NULL REFERENCES readout_definitions(id),
  response_definition_id INTEGER NOT NULL REFERENCES readout_definitions(id),
  result_definition_id INTEGER NOT NULL REFERENCES readout_definitions(id),
  fit_parameters TEXT NOT NULL DEFAULT '{}',
  minimum_activity TEXT NOT NULL DEFAULT '{}',
  recalculating_until_ms INTEGER,
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS dose_response_series (
  id INTEGER PRIMARY KEY,
  calculation_id INTEGER NOT NULL REFERENCES dose_response_calculations(id) ON DELETE CASCADE,
  batch_id INTEGER NOT NULL REFERENCES batches(id),
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  fit_parameters TEXT NOT NULL DEFAULT '{}',
  fit TEXT NOT NULL DEFAULT '{}',
  modified_at INTEGER NOT NULL,
  UNIQUE (calculation_id, batch_id, run_id)
);
`
