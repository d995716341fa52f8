import type { VaultAccess } from '../../core/sim-core.ts'
import { invalid } from '../../core/http-error.ts'

/**
 * Resolves project ids or names written in a request to projects of the vault the user may
 * write to; anything else is a 422 naming the member.
 */
export function resolveProjects(
  access: VaultAccess,
  items: readonly (number | string)[],
  member: string,
): number[] {
  return [
    ...new Set(items.map((item, index) => resolveProject(access, item, `${member}[${index}]`))),
  ]
}

export function resolveProject(access: VaultAccess, item: number | string, member: string): number {
  const row = (
    typeof item === 'number'
      ? access.db
          .prepare(`SELECT id FROM projects WHERE id = ? AND vault_id = ?`)
          .get(item, access.vault.id)
      : access.db
          .prepare(`SELECT id FROM projects WHERE name = ? COLLATE NOCASE AND vault_id = ?`)
          .get(item, access.vault.id)
  ) as { id: number } | undefined
  if (!row || !access.canReadProject(row.id)) {
    throw invalid(member, `${JSON.stringify(item)} is not a project of this vault`)
  }
  if (!access.canEditProject(row.id)) {
    throw invalid(member, `${JSON.stringify(item)} is a project you may not write to`)
  }
  return row.id
}

/** Reads a project given as an id or a name (a number-like string counts as an id). */
export function projectItem(raw: unknown, member: string): number | string {
  if (typeof raw === 'number' && Number.isSafeInteger(raw)) return raw
  if (typeof raw === 'string' && /^\d+$/.test(raw.trim())) return Number(raw.trim())
  if (typeof raw === 'string' && raw.trim() !== '') return raw.trim()
  throw invalid(member, `must be a project id or name, got ${JSON.stringify(raw)}`)
}
