/**
 * The core tables: who may reach what. Resource modules add their own tables (see CORE.md) and
 * may read these.
 */
export const coreSchema = `
CREATE TABLE IF NOT EXISTS sim_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS vaults (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  api_access INTEGER NOT NULL DEFAULT 1,
  deep_learning INTEGER NOT NULL DEFAULT 0,
  registration_system INTEGER NOT NULL DEFAULT 0,
  inventory_fields INTEGER NOT NULL DEFAULT 1,
  eln_witnessing INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE IF NOT EXISTS users (
  id INTEGER PRIMARY KEY,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  time_zone TEXT NOT NULL DEFAULT 'UTC',
  can_witness_eln INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS api_tokens (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  token TEXT NOT NULL UNIQUE
);

CREATE TABLE IF NOT EXISTS vault_members (
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  role TEXT NOT NULL CHECK (role IN ('admin', 'writer', 'reader')),
  can_manage_projects INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (vault_id, user_id)
);

CREATE TABLE IF NOT EXISTS projects (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL,
  UNIQUE (vault_id, name)
);

CREATE TABLE IF NOT EXISTS project_members (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id),
  can_manage_project INTEGER NOT NULL DEFAULT 0,
  can_edit_data INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, user_id)
);

CREATE TABLE IF NOT EXISTS data_sets (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  name TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS api_executions (
  token_id INTEGER NOT NULL,
  at INTEGER NOT NULL,
  seconds REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS api_executions_by_token ON api_executions (token_id, at);
`
