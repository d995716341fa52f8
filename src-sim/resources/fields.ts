import type { Database } from 'better-sqlite3'
import { formatSeconds } from '../core/dates.ts'
import { invalid, notFound } from '../core/http-error.ts'
import type { SimModule } from '../core/module.ts'
import { envelope, readPage } from '../core/pagination.ts'
import { jsonReply } from '../core/replies.ts'
import type { RequestContext } from '../core/context.ts'

export type FieldCategory = 'internal' | 'molecule' | 'batch' | 'protocol' | 'inventory_sample'

export interface FieldDefinition {
  id: number
  vault_id: number
  category: FieldCategory
  type: string
  name: string
  data_type_name: string
  unique_value: number
  required_group_number: number | null
  overwritable: number
}

const schema = `
CREATE TABLE IF NOT EXISTS field_definitions (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  category TEXT NOT NULL CHECK (category IN ('internal', 'molecule', 'batch', 'protocol', 'inventory_sample')),
  type TEXT NOT NULL,
  name TEXT NOT NULL,
  data_type_name TEXT NOT NULL,
  unique_value INTEGER NOT NULL DEFAULT 0,
  required_group_number INTEGER,
  overwritable INTEGER NOT NULL DEFAULT 1,
  UNIQUE (vault_id, category, name)
);

CREATE TABLE IF NOT EXISTS pick_list_values (
  id INTEGER PRIMARY KEY,
  field_id INTEGER NOT NULL REFERENCES field_definitions(id) ON DELETE CASCADE,
  value TEXT NOT NULL,
  hidden INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL,
  UNIQUE (field_id, value)
);
`

type FieldPlan = [
  category: FieldCategory,
  type: string,
  name: string,
  dataType: string,
  options?: { unique?: boolean; required?: boolean; picks?: string[] },
]

/** The field definitions every seeded vault has. `required` applies in registration vaults. */
export const seededFields: FieldPlan[] = [
  ['internal', 'InternalFieldDefinition::MoleculeName', 'Molecule Name', 'Text', { unique: true }],
  ['internal', 'InternalFieldDefinition::MoleculeSynonyms', 'Synonyms', 'Text'],
  ['internal', 'InternalFieldDefinition::BatchName', 'Batch Name', 'Text'],
  ['internal', 'InternalFieldDefinition::BatchSalt', 'Salt', 'Text'],
  ['internal', 'InternalFieldDefinition::Owner', 'Owner', 'Text'],
  [
    'molecule',
    'MoleculeFieldDefinition',
    'Series',
    'Pick List',
    {
      picks: [
        'Aminoquinazolines',
        'Benzamides',
        'Biaryls',
        'Heteroaryl amides',
        'Sulfonamides',
        'Ureas',
        'Azoles',
        'Piperazines',
      ],
    },
  ],
  ['molecule', 'MoleculeFieldDefinition', 'Supplier ID', 'Text', { unique: true }],
  ['molecule', 'MoleculeFieldDefinition', 'Priority', 'Number'],
  ['molecule', 'MoleculeFieldDefinition', 'First Synthesized', 'Date'],
  ['batch', 'BatchFieldDefinition', 'Purity (%)', 'Number', { required: true }],
  ['batch', 'BatchFieldDefinition', 'Chemist', 'Text', { required: true }],
  ['batch', 'BatchFieldDefinition', 'Lot Number', 'Text'],
  [
    'batch',
    'BatchFieldDefinition',
    'Appearance',
    'Pick List',
    {
      picks: [
        'white solid',
        'off-white solid',
        'pale yellow solid',
        'yellow oil',
        'colourless oil',
        'brown gum',
      ],
    },
  ],
  ['batch', 'BatchFieldDefinition', 'Date Received', 'Date'],
  ['batch', 'BatchFieldDefinition', 'Certificate of Analysis', 'File'],
  ['batch', 'BatchFieldDefinition', 'Parent Batch', 'BatchLink'],
  // An inventory sample's custom fields (`fields{}`), listed only where inventory is enabled.
  [
    'inventory_sample',
    'InventorySampleFieldDefinition',
    'Solvent',
    'Pick List',
    { picks: ['DMSO', 'Water', 'Ethanol', 'Methanol'] },
  ],
  ['inventory_sample', 'InventorySampleFieldDefinition', 'Concentration', 'Text'],
  [
    'inventory_sample',
    'InventorySampleFieldDefinition',
    'Form',
    'Pick List',
    { picks: ['powder', 'crystals', 'oil', 'film'] },
  ],
  ['inventory_sample', 'InventorySampleFieldDefinition', 'Tare (mg)', 'Number'],
  ['inventory_sample', 'InventorySampleFieldDefinition', 'Prepared On', 'Date'],
]

export function fieldsOf(
  db: Database,
  vaultId: number,
  category: FieldCategory,
): FieldDefinition[] {
  return db
    .prepare(`SELECT * FROM field_definitions WHERE vault_id = ? AND category = ? ORDER BY id`)
    .all(vaultId, category) as FieldDefinition[]
}

const datePattern = /^\d{4}-\d{2}-\d{2}$/

export type FieldValue = string | number

/**
 * Checks user-defined field values against the vault's definitions of a category: known names,
 * numbers for Number fields, YYYY-MM-DD for Date fields, a listed value for Pick List fields.
 * A null or empty value comes back as null: it clears the field (see mergeFieldValues).
 */
export function checkFieldValues(
  db: Database,
  vaultId: number,
  category: Exclude<FieldCategory, 'internal'>,
  values: Record<string, unknown>,
  member: string,
): Record<string, FieldValue | null> {
  const definitions = new Map(fieldsOf(db, vaultId, category).map((field) => [field.name, field]))
  const checked: Record<string, FieldValue | null> = {}
  for (const [name, value] of Object.entries(values)) {
    const field = definitions.get(name)
    const label = `${member}.${name}`
    if (!field) {
      throw invalid(
        label,
        `is not ${/^[aeiou]/.test(category) ? 'an' : 'a'} ${category.replace('_', ' ')} field of this vault (known: ${[...definitions.keys()].join(', ') || 'none'})`,
      )
    }
    if (value === null || value === '') {
      checked[name] = null
    } else if (field.data_type_name === 'Number') {
      const number =
        typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN
      if (!Number.isFinite(number))
        throw invalid(label, `must be a number, got ${JSON.stringify(value)}`)
      checked[name] = number
    } else if (field.data_type_name === 'Date') {
      if (
        typeof value !== 'string' ||
        !datePattern.test(value) ||
        Number.isNaN(Date.parse(value))
      ) {
        throw invalid(label, `must be a date as YYYY-MM-DD, got ${JSON.stringify(value)}`)
      }
      checked[name] = value
    } else if (field.data_type_name === 'Pick List') {
      const allowed = (
        db
          .prepare(`SELECT value FROM pick_list_values WHERE field_id = ? AND hidden = 0`)
          .all(field.id) as { value: string }[]
      ).map((row) => row.value)
      if (typeof value !== 'string' || !allowed.includes(value)) {
        throw invalid(
          label,
          `must be one of ${allowed.map((item) => `'${item}'`).join(', ')}, got ${JSON.stringify(value)}`,
        )
      }
      checked[name] = value
    } else if (typeof value === 'string' || typeof value === 'number') {
      checked[name] = value
    } else {
      throw invalid(label, `must be a string, got ${JSON.stringify(value)}`)
    }
  }
  return checked
}

/** Stored field values after a change from checkFieldValues: null clears a field. */
export function mergeFieldValues(
  current: Record<string, FieldValue>,
  changes: Record<string, FieldValue | null>,
): Record<string, FieldValue> {
  const merged = { ...current }
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) delete merged[name]
    else merged[name] = value
  }
  return merged
}

function fieldRecord(field: FieldDefinition): Record<string, unknown> {
  return {
    id: field.id,
    type: field.type,
    name: field.name,
    data_type_name: field.data_type_name,
    unique_value: field.unique_value === 1,
    required_group_number: field.required_group_number,
    overwritable: field.overwritable === 1,
  }
}

interface PickListRow {
  id: number
  field_id: number
  value: string
  hidden: number
  created_at: number
  modified_at: number
}

function pickListRecord(row: PickListRow): Record<string, unknown> {
  return {
    id: row.id,
    field_id: row.field_id,
    value: row.value,
    hidden: row.hidden === 1,
    created_at: formatSeconds(row.created_at),
    modified_at: formatSeconds(row.modified_at),
  }
}

function pickListField(ctx: RequestContext): FieldDefinition {
  const fieldId = ctx.pathId('field_id')
  const field = ctx.db
    .prepare(`SELECT * FROM field_definitions WHERE id = ? AND vault_id = ?`)
    .get(fieldId, ctx.access.vault.id) as FieldDefinition | undefined
  if (!field) throw notFound(`Field ${fieldId}`)
  if (field.data_type_name !== 'Pick List') throw notFound(`Pick list field ${fieldId}`)
  return field
}

function pickListValue(ctx: RequestContext, field: FieldDefinition): PickListRow {
  const id = ctx.pathId('id')
  const row = ctx.db
    .prepare(`SELECT * FROM pick_list_values WHERE id = ? AND field_id = ?`)
    .get(id, field.id) as PickListRow | undefined
  if (!row) throw notFound(`Pick list value ${id}`)
  return row
}

function assertUnusedValue(db: Database, fieldId: number, value: string, exceptId: number): void {
  const clash = db
    .prepare(`SELECT id FROM pick_list_values WHERE field_id = ? AND value = ? AND id != ?`)
    .get(fieldId, value, exceptId)
  if (clash) throw invalid('value', `'${value}' is already a value of this pick list`)
}

/** Field definitions and pick list values. */
export const fieldsModule: SimModule = {
  name: 'fields',
  schema,
  routes(router) {
    router.get('/vaults/{vault_id}/fields', (ctx) => {
      const result: Record<string, unknown[]> = {}
      const categories: FieldCategory[] = ['internal', 'molecule', 'batch', 'protocol']
      if (ctx.access.vault.inventoryFields) categories.push('inventory_sample')
      for (const category of categories) {
        result[category] = fieldsOf(ctx.db, ctx.access.vault.id, category).map(fieldRecord)
      }
      return result
    })
    const base = '/vaults/{vault_id}/fields/{field_id}/pick_list_values'
    router.get(base, async (ctx) => {
      const field = pickListField(ctx)
      const params = await ctx.input()
      const page = readPage(params)
      params.rejectUnknown()
      const count = (
        ctx.db
          .prepare(`SELECT COUNT(*) AS count FROM pick_list_values WHERE field_id = ?`)
          .get(field.id) as { count: number }
      ).count
      const rows = ctx.db
        .prepare(`SELECT * FROM pick_list_values WHERE field_id = ? ORDER BY id LIMIT ? OFFSET ?`)
        .all(field.id, page.pageSize, page.offset) as PickListRow[]
      return envelope(count, page, rows.map(pickListRecord))
    })
    router.post(
      base,
      async (ctx) => {
        const field = pickListField(ctx)
        const params = await ctx.input()
        const value = params.requiredString('value').trim()
        const hidden = params.boolean('hidden', false)
        params.ignore('id', 'field_id', 'created_at', 'modified_at')
        params.rejectUnknown()
        assertUnusedValue(ctx.db, field.id, value, 0)
        const now = ctx.sim.clock.nowSeconds()
        const id = Number(
          ctx.db
            .prepare(
              `INSERT INTO pick_list_values (field_id, value, hidden, created_at, modified_at) VALUES (?, ?, ?, ?, ?)`,
            )
            .run(field.id, value, Number(hidden), now, now).lastInsertRowid,
        )
        return jsonReply(
          pickListRecord(
            ctx.db.prepare(`SELECT * FROM pick_list_values WHERE id = ?`).get(id) as PickListRow,
          ),
          201,
        )
      },
      { admin: true },
    )
    router.get(`${base}/{id}`, (ctx) => pickListRecord(pickListValue(ctx, pickListField(ctx))))
    router.put(
      `${base}/{id}`,
      async (ctx) => {
        const field = pickListField(ctx)
        const row = pickListValue(ctx, field)
        const params = await ctx.input()
        const bodyId = params.integer('id')
        if (bodyId !== undefined && bodyId !== row.id)
          throw invalid('id', `must equal the id in the path (${row.id}), got ${bodyId}`)
        const value = params.string('value')?.trim() ?? row.value
        const hidden = params.boolean('hidden', row.hidden === 1)
        params.ignore('field_id', 'created_at', 'modified_at')
        params.rejectUnknown()
        assertUnusedValue(ctx.db, field.id, value, row.id)
        ctx.db
          .prepare(
            `UPDATE pick_list_values SET value = ?, hidden = ?, modified_at = ? WHERE id = ?`,
          )
          .run(value, Number(hidden), ctx.sim.clock.nowSeconds(), row.id)
        return pickListRecord(
          ctx.db.prepare(`SELECT * FROM pick_list_values WHERE id = ?`).get(row.id) as PickListRow,
        )
      },
      { admin: true },
    )
    router.delete(
      `${base}/{id}`,
      (ctx) => {
        const field = pickListField(ctx)
        const row = pickListValue(ctx, field)
        ctx.db.prepare(`DELETE FROM pick_list_values WHERE id = ?`).run(row.id)
        return { message: `Pick list value ${row.id} has been destroyed` }
      },
      { admin: true },
    )
  },
  seed(seed) {
    const insertField = seed.db.prepare(
      `INSERT INTO field_definitions (vault_id, category, type, name, data_type_name, unique_value, required_group_number)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    const insertPick = seed.db.prepare(
      `INSERT INTO pick_list_values (field_id, value, created_at, modified_at) VALUES (?, ?, ?, ?)`,
    )
    seed.db.transaction(() => {
      for (const vault of Object.values(seed.cast.vaults)) {
        for (const [category, type, name, dataType, options] of seededFields) {
          const required = options?.required && vault.registrationSystem ? 1 : null
          const fieldId = Number(
            insertField.run(
              vault.id,
              category,
              type,
              name,
              dataType,
              Number(options?.unique ?? false),
              required,
            ).lastInsertRowid,
          )
          for (const pick of options?.picks ?? []) insertPick.run(fieldId, pick, seed.now, seed.now)
        }
      }
    })()
  },
}
