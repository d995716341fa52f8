import type { Database } from 'better-sqlite3'
import { formatSeconds } from '../core/dates.ts'
import { notFound } from '../core/http-error.ts'
import type { SimModule } from '../core/module.ts'
import type { FieldDefinition } from './fields.ts'

/**
 * Mapping templates say which file column fills which field during an import (slurp). Domain
 * modules may add templates that map to their own definitions (readouts) in their seed.
 */
const schema = `
CREATE TABLE IF NOT EXISTS mapping_templates (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  name TEXT NOT NULL,
  owner_id INTEGER NOT NULL REFERENCES users(id),
  header_mappings TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL
);
`

interface TemplateRow {
  id: number
  name: string
  header_mappings: string
  created_at: number
  modified_at: number
  owner_first: string
  owner_last: string
}

const selectTemplates = `SELECT t.*, u.first_name AS owner_first, u.last_name AS owner_last FROM mapping_templates t JOIN users u ON u.id = t.owner_id`

function summary(row: TemplateRow): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    owner: `${row.owner_first} ${row.owner_last}`,
    created_at: formatSeconds(row.created_at),
    modified_at: formatSeconds(row.modified_at),
  }
}

/** `[header, field name]` pairs, resolved against the vault's field definitions. */
function headerMappings(db: Database, vaultId: number, pairs: [string, string][]): unknown[] {
  const fields = db
    .prepare(`SELECT * FROM field_definitions WHERE vault_id = ?`)
    .all(vaultId) as FieldDefinition[]
  return pairs.map(([header, fieldName], position) => {
    const field = fields.find((candidate) => candidate.name === fieldName)
    if (!field) throw new Error(`The seeded mapping template maps to an unknown field ${fieldName}`)
    return {
      header: { name: header, position },
      definition: {
        id: field.id,
        type: field.type,
        name: field.name,
        data_type_name: field.data_type_name,
      },
    }
  })
}

export const mappingTemplatesModule: SimModule = {
  name: 'mapping_templates',
  schema,
  routes(router) {
    router.get('/vaults/{vault_id}/mapping_templates', (ctx) =>
      (
        ctx.db
          .prepare(`${selectTemplates} WHERE t.vault_id = ? ORDER BY t.id`)
          .all(ctx.access.vault.id) as TemplateRow[]
      ).map(summary),
    )
    router.get('/vaults/{vault_id}/mapping_templates/{mapping_template_id}', (ctx) => {
      const id = ctx.pathId('mapping_template_id')
      const row = ctx.db
        .prepare(`${selectTemplates} WHERE t.id = ? AND t.vault_id = ?`)
        .get(id, ctx.access.vault.id) as TemplateRow | undefined
      if (!row) throw notFound(`Mapping template ${id}`)
      return { ...summary(row), header_mappings: JSON.parse(row.header_mappings) as unknown }
    })
  },
  seed(seed) {
    const { db, cast, now } = seed
    const insert = db.prepare(
      `INSERT INTO mapping_templates (vault_id, name, owner_id, header_mappings, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?)`,
    )
    for (const vault of Object.values(cast.vaults)) {
      const templates: [string, [string, string][]][] = [
        [
          'Compound registration (SDF)',
          [
            ['Name', 'Molecule Name'],
            ['Series', 'Series'],
            ['Purity', 'Purity (%)'],
            ['Chemist', 'Chemist'],
            ['Lot', 'Lot Number'],
          ],
        ],
        [
          'Vendor delivery (CSV)',
          [
            ['Catalog ID', 'Supplier ID'],
            ['Compound', 'Molecule Name'],
            ['Received', 'Date Received'],
            ['Appearance', 'Appearance'],
          ],
        ],
      ]
      for (const [name, pairs] of templates) {
        insert.run(
          vault.id,
          name,
          cast.users.admin.id,
          JSON.stringify(headerMappings(db, vault.id, pairs)),
          now - 200 * 86_400,
          now - 20 * 86_400,
        )
      }
    }
  },
}
