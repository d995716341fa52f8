import { formatSeconds } from '../core/dates.ts'
import { notFound } from '../core/http-error.ts'
import type { SimModule } from '../core/module.ts'

const schema = `
CREATE TABLE IF NOT EXISTS import_parsers (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  name TEXT NOT NULL,
  file_type TEXT NOT NULL,
  description TEXT NOT NULL,
  template_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL
);
`

interface ParserRow {
  id: number
  name: string
  file_type: string
  description: string
  template_json: string
  created_at: number
  modified_at: number
}

function summary(row: ParserRow): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    file_type: row.file_type,
    description: row.description,
    created_at: formatSeconds(row.created_at),
    modified_at: formatSeconds(row.modified_at),
  }
}

/** Import parsers: instrument-file layouts the import reads (plate readers and the like). */
const seededParsers = [
  {
    name: 'EnVision 384-well',
    fileType: 'csv',
    description: 'PerkinElmer EnVision plate export, one block per plate',
    template: {
      plate_format: 384,
      header_rows: 1,
      well_column: 'Well',
      value_columns: ['Signal'],
      delimiter: ',',
    },
  },
  {
    name: 'FLIPR kinetic summary',
    fileType: 'xlsx',
    description: 'Molecular Devices FLIPR max-min summary sheet',
    template: {
      plate_format: 384,
      sheet: 'Summary',
      well_column: 'Well ID',
      value_columns: ['Max-Min'],
      skip_rows: 3,
    },
  },
  {
    name: 'Generic dose response',
    fileType: 'csv',
    description: 'One row per well: batch, concentration (uM) and response',
    template: {
      header_rows: 1,
      columns: { batch: 'Batch', concentration: 'Conc (uM)', response: 'Response' },
    },
  },
]

export const importParsersModule: SimModule = {
  name: 'import_parsers',
  schema,
  routes(router) {
    router.get('/vaults/{vault_id}/import_parsers', (ctx) =>
      (
        ctx.db
          .prepare(`SELECT * FROM import_parsers WHERE vault_id = ? ORDER BY id`)
          .all(ctx.access.vault.id) as ParserRow[]
      ).map(summary),
    )
    router.get('/vaults/{vault_id}/import_parsers/{id}', (ctx) => {
      const id = ctx.pathId('id')
      const row = ctx.db
        .prepare(`SELECT * FROM import_parsers WHERE id = ? AND vault_id = ?`)
        .get(id, ctx.access.vault.id) as ParserRow | undefined
      if (!row) throw notFound(`Import parser ${id}`)
      return { ...summary(row), template_json: row.template_json }
    })
  },
  seed(seed) {
    const insert = seed.db.prepare(
      `INSERT INTO import_parsers (vault_id, name, file_type, description, template_json, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    for (const vault of Object.values(seed.cast.vaults)) {
      for (const parser of seededParsers) {
        insert.run(
          vault.id,
          parser.name,
          parser.fileType,
          parser.description,
          JSON.stringify(parser.template),
          seed.now - 300 * 86_400,
          seed.now - 300 * 86_400,
        )
      }
    }
  },
}
