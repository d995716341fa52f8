import type { Database } from 'better-sqlite3'
import { formatSeconds } from '../core/dates.ts'
import { notFound } from '../core/http-error.ts'
import type { SimModule } from '../core/module.ts'

const schema = `
CREATE TABLE IF NOT EXISTS registration_systems (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  digits INTEGER NOT NULL,
  next_number INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS registration_forms (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  registration_system_id INTEGER NOT NULL REFERENCES registration_systems(id),
  name TEXT NOT NULL,
  sections TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
`

interface SystemRow {
  id: number
  vault_id: number
  name: string
  prefix: string
  digits: number
  next_number: number
  created_at: number
}

interface FormRow {
  id: number
  registration_system_id: number
  name: string
  sections: string
  created_at: number
}

/** The next corporate id of a registration vault's system (AI-000151), consumed. */
export function nextRegistrationName(db: Database, vaultId: number): string {
  const system = db
    .prepare(`SELECT * FROM registration_systems WHERE vault_id = ? ORDER BY id LIMIT 1`)
    .get(vaultId) as SystemRow | undefined
  if (!system) throw new Error(`Vault ${vaultId} has no registration system`)
  db.prepare(`UPDATE registration_systems SET next_number = next_number + 1 WHERE id = ?`).run(
    system.id,
  )
  return `${system.prefix}-${String(system.next_number).padStart(system.digits, '0')}`
}

function systemRecord(row: SystemRow): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    next_identifier: `${row.prefix}-${String(row.next_number).padStart(row.digits, '0')}`,
    created_at: formatSeconds(row.created_at),
  }
}

function formRecord(row: FormRow): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    registration_system_id: row.registration_system_id,
    sections: JSON.parse(row.sections) as unknown,
    created_at: formatSeconds(row.created_at),
  }
}

/** Registration systems and forms: read-only, seeded for vaults with a registration system. */
export const registrationModule: SimModule = {
  name: 'registration',
  schema,
  routes(router) {
    router.get('/vaults/{vault_id}/registration_systems', (ctx) =>
      (
        ctx.db
          .prepare(`SELECT * FROM registration_systems WHERE vault_id = ? ORDER BY id`)
          .all(ctx.access.vault.id) as SystemRow[]
      ).map(systemRecord),
    )
    router.get('/vaults/{vault_id}/registration_systems/{id}', (ctx) => {
      const id = ctx.pathId('id')
      const row = ctx.db
        .prepare(`SELECT * FROM registration_systems WHERE id = ? AND vault_id = ?`)
        .get(id, ctx.access.vault.id) as SystemRow | undefined
      if (!row) throw notFound(`Registration system ${id}`)
      return systemRecord(row)
    })
    router.get('/vaults/{vault_id}/registration_forms', (ctx) =>
      (
        ctx.db
          .prepare(`SELECT * FROM registration_forms WHERE vault_id = ? ORDER BY id`)
          .all(ctx.access.vault.id) as FormRow[]
      ).map(formRecord),
    )
    router.get('/vaults/{vault_id}/registration_forms/{id}', (ctx) => {
      const id = ctx.pathId('id')
      const row = ctx.db
        .prepare(`SELECT * FROM registration_forms WHERE id = ? AND vault_id = ?`)
        .get(id, ctx.access.vault.id) as FormRow | undefined
      if (!row) throw notFound(`Registration form ${id}`)
      return formRecord(row)
    })
  },
  seed(seed) {
    const { db, cast, now } = seed
    for (const vault of Object.values(cast.vaults).filter(
      (candidate) => candidate.registrationSystem,
    )) {
      const registered = db
        .prepare(`SELECT COUNT(*) FROM molecules WHERE vault_id = ?`)
        .pluck()
        .get(vault.id) as number
      const systemId = Number(
        db
          .prepare(
            `INSERT INTO registration_systems (vault_id, name, prefix, digits, next_number, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
          )
          .run(vault.id, `${vault.name} Registration`, 'AI', 6, registered + 1, now - 500 * 86_400)
          .lastInsertRowid,
      )
      const sections = [
        { name: 'Structure', fields: ['structure', 'registration_type', 'duplicate_resolution'] },
        {
          name: 'Batch',
          fields: ['Purity (%)', 'Chemist', 'Lot Number', 'Appearance', 'Date Received'],
        },
        { name: 'Salt', fields: ['salt_name', 'solvent_of_crystallization_name', 'stoichiometry'] },
      ]
      const insertForm = db.prepare(
        `INSERT INTO registration_forms (vault_id, registration_system_id, name, sections, created_at) VALUES (?, ?, ?, ?, ?)`,
      )
      insertForm.run(
        vault.id,
        systemId,
        'Small molecule registration',
        JSON.stringify(sections),
        now - 500 * 86_400,
      )
      insertForm.run(
        vault.id,
        systemId,
        'Batch only (existing molecule)',
        JSON.stringify(sections.slice(1)),
        now - 400 * 86_400,
      )
    }
  },
}
