/**
 * Choices read from the cache for forms: projects, mapping templates, collections, and the users
 * who may witness a notebook entry. A failed read gives no choices (the form says so).
 */
import type { VaultDeskBridge } from '../bridge.ts'
import { isSet, toText } from '../../../../src-common/values.ts'

export interface Choice {
  id: number
  name: string
}

export async function cachedChoices(
  bridge: VaultDeskBridge,
  connectionId: string,
  vaultId: number,
  kind: 'projects' | 'mapping_templates' | 'collections',
): Promise<Choice[]> {
  const result = await bridge.invoke('records.list', { connectionId, vaultId, kind, limit: 1000 })
  if (!result.ok) return []
  return result.value.rows
    .flatMap(({ id, columns }) => {
      const name = toText(columns.name)
      return id === null || name === null ? [] : [{ id, name }]
    })
    .sort((a, b) => a.name.localeCompare(b.name))
}

/** Users of the vault who may witness an entry, but not its author. */
export async function witnessChoices(
  bridge: VaultDeskBridge,
  connectionId: string,
  vaultId: number,
  authorId: number | null,
): Promise<Choice[]> {
  const result = await bridge.invoke('records.list', {
    connectionId,
    vaultId,
    kind: 'users',
    limit: 1000,
  })
  if (!result.ok) return []
  return result.value.rows
    .flatMap(({ id, columns, json }) => {
      if (id === null || id === authorId || !isSet(json.can_witness_eln)) return []
      return [{ id, name: toText(columns.name) ?? `User ${id}` }]
    })
    .sort((a, b) => a.name.localeCompare(b.name))
}
