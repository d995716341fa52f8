import type { SeedContext } from '../../core/module.ts'

/** The protocol fields every seeded vault defines (in /fields under `protocol`). */
const PROTOCOL_FIELDS: readonly { name: string; dataType: string; picks?: readonly string[] }[] = [
  {
    name: 'Assay Format',
    dataType: 'Pick List',
    picks: ['biochemical', 'cell-based', 'physicochemical', 'in vivo'],
  },
  { name: 'Target', dataType: 'Text' },
  { name: 'ATP Concentration (uM)', dataType: 'Number' },
  { name: 'SOP Date', dataType: 'Date' },
]

export function seedProtocolFields(seed: SeedContext): void {
  const { db, cast, now } = seed
  const insertField = db.prepare(
    `INSERT INTO field_definitions (vault_id, category, type, name, data_type_name) VALUES (?, 'protocol', 'ProtocolFieldDefinition', ?, ?)`,
  )
  const insertPick = db.prepare(
    `INSERT INTO pick_list_values (field_id, value, created_at, modified_at) VALUES (?, ?, ?, ?)`,
  )
  db.transaction(() => {
    for (const vault of Object.values(cast.vaults)) {
      for (const field of PROTOCOL_FIELDS) {
        const id = Number(insertField.run(vault.id, field.name, field.dataType).lastInsertRowid)
        for (const pick of field.picks ?? []) insertPick.run(id, pick, now, now)
      }
    }
  })()
}
