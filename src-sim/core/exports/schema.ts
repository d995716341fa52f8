export const exportSchema = `
CREATE TABLE IF NOT EXISTS exports (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  token_id INTEGER NOT NULL,
  kind TEXT NOT NULL,
  format TEXT NOT NULL,
  zipped INTEGER NOT NULL DEFAULT 0,
  params TEXT NOT NULL,
  params_origin TEXT NOT NULL,
  status TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  modified_ms INTEGER NOT NULL,
  started_ms INTEGER,
  file_path TEXT,
  file_name TEXT,
  download_key TEXT UNIQUE,
  failure TEXT
);
CREATE INDEX IF NOT EXISTS exports_by_user ON exports (user_id, status);
`
