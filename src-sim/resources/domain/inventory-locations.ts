import type { VaultAccess } from '../../core/sim-core.ts'
import { formatSeconds } from '../../core/dates.ts'
import { HttpError } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'

/**
 * Inventory locations: a tree (freezers, racks, boxes) by parent_id. A location with rows and
 * columns is a grid whose positions are labelled like wells (A01); position_limit caps how many
 * samples it holds.
 */

const schema = `
CREATE TABLE IF NOT EXISTS inventory_locations (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  parent_id INTEGER REFERENCES inventory_locations(id),
  name TEXT NOT NULL,
  num_rows INTEGER,
  num_columns INTEGER,
  position_limit INTEGER,
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL
);
`

export interface LocationRow {
  id: number
  vault_id: number
  parent_id: number | null
  name: string
  num_rows: number | null
  num_columns: number | null
  position_limit: number | null
  created_at: number
  modified_at: number
}

/** Every inventory operation answers 404 in a vault without inventory. */
export function requireInventory(access: VaultAccess): void {
  if (!access.vault.inventoryFields) {
    throw new HttpError(404, `Inventory is not enabled for vault ${access.vault.id}`)
  }
}

export function locationOf(access: VaultAccess, id: number): LocationRow | undefined {
  return access.db
    .prepare(`SELECT * FROM inventory_locations WHERE id = ? AND vault_id = ?`)
    .get(id, access.vault.id) as LocationRow | undefined
}

export const inventoryLocationsModule: SimModule = {
  name: 'inventory locations',
  schema,
  routes(router) {
    router.get('/vaults/{vault_id}/inventory_locations', async (ctx) => {
      requireInventory(ctx.access)
      ;(await ctx.input()).rejectUnknown()
      const rows = ctx.db
        .prepare(
          `SELECT inventory_locations.*,
             (SELECT COUNT(*) FROM inventory_samples WHERE location_id = inventory_locations.id) AS filled
           FROM inventory_locations WHERE vault_id = ? ORDER BY id`,
        )
        .all(ctx.access.vault.id) as (LocationRow & { filled: number })[]
      return rows.map((row) => ({
        id: row.id,
        value: row.name,
        parent_id: row.parent_id,
        num_rows: row.num_rows,
        num_columns: row.num_columns,
        position_limit: row.position_limit,
        filled_position_count: row.filled,
        created_at: formatSeconds(row.created_at),
        modified_at: formatSeconds(row.modified_at),
      }))
    })
  },
}
