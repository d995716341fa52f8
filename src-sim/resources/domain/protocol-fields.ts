import type { Database } from 'better-sqlite3'
import { invalid } from '../../core/http-error.ts'
import { fieldsOf } from '../fields.ts'

/**
 * Protocol field values (the vault's field definitions of category `protocol`): known names,
 * numbers for Number fields, YYYY-MM-DD for Date fields, a listed value for Pick List fields.
 * An empty value or null removes the field's value.
 */
export function checkProtocolFields(
  db: Database,
  vaultId: number,
  values: Record<string, unknown>,
): Record<string, string | null> {
  const definitions = new Map(fieldsOf(db, vaultId, 'protocol').map((field) => [field.name, field]))
  const checked: Record<string, string | null> = {}
  for (const [name, value] of Object.entries(values)) {
    const field = definitions.get(name)
    const label = `protocol_fields.${name}`
    if (!field) {
      throw invalid(
        label,
        `is not a protocol field of this vault (known: ${[...definitions.keys()].join(', ') || 'none'})`,
      )
    }
    if (value === null || value === '') {
      checked[name] = null
      continue
    }
    if (typeof value !== 'string' && typeof value !== 'number') {
      throw invalid(label, `must be a string or number, got ${JSON.stringify(value)}`)
    }
    const text = String(value)
    if (field.data_type_name === 'Number' && !Number.isFinite(Number(text))) {
      throw invalid(label, `must be a number, got ${JSON.stringify(value)}`)
    }
    if (
      field.data_type_name === 'Date' &&
      (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(Date.parse(text)))
    ) {
      throw invalid(label, `must be a date as YYYY-MM-DD, got ${JSON.stringify(value)}`)
    }
    if (field.data_type_name === 'Pick List') {
      const allowed = (
        db
          .prepare(`SELECT value FROM pick_list_values WHERE field_id = ? AND hidden = 0`)
          .all(field.id) as { value: string }[]
      ).map((row) => row.value)
      if (!allowed.includes(text)) {
        throw invalid(
          label,
          `must be one of ${allowed.map((item) => `'${item}'`).join(', ')}, got ${JSON.stringify(value)}`,
        )
      }
    }
    checked[name] = text
  }
  return checked
}
