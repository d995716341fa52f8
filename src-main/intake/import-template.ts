/**
 * What a mapping template's header mappings say each column of an import file fills, and what a
 * protocol's readout definition says its values must be, read from cached records
 * (docs/spec/gaps.md "Mapping template" and "Protocol").
 */
import { valueTypeOf, type ValueType } from '../../src-common/analysis/readouts/readout-value.ts'
import { isObject, toId, toText, type JsonObject } from '../../src-common/values.ts'
import type { ReferenceField } from '../store/reference-lookup.ts'

export type ColumnTarget =
  | { role: 'structure' }
  | { role: 'reference'; field: ReferenceField }
  | { role: 'readout'; definitionId: number }
  | { role: 'other'; label: string }

export interface MappedColumn {
  header: string
  target: ColumnTarget
}

const internalTargets: Record<string, ColumnTarget> = {
  'InternalFieldDefinition::Structure': { role: 'structure' },
  'InternalFieldDefinition::MoleculeName': { role: 'reference', field: 'molecule-name' },
  'InternalFieldDefinition::MoleculeSynonyms': { role: 'reference', field: 'molecule-synonym' },
  'InternalFieldDefinition::BatchName': { role: 'reference', field: 'batch-name' },
}

/** The template's columns; null when the cached record has no header mappings (a summary). */
export function mappedColumns(template: JsonObject): MappedColumn[] | null {
  if (!Array.isArray(template.header_mappings)) return null
  return template.header_mappings.flatMap((mapping): MappedColumn[] => {
    if (!isObject(mapping) || !isObject(mapping.header)) return []
    const header = toText(mapping.header.name)?.trim()
    if (!header) return []
    const definition = isObject(mapping.definition) ? mapping.definition : {}
    const type = toText(definition.type) ?? ''
    const internal = internalTargets[type]
    if (internal) return [{ header, target: internal }]
    const definitionId = toId(definition.id)
    if (type === 'ReadoutDefinition' && definitionId !== null) {
      return [{ header, target: { role: 'readout', definitionId } }]
    }
    return [{ header, target: { role: 'other', label: toText(definition.name) ?? type } }]
  })
}

export interface ReadoutRule {
  id: number
  name: string
  valueType: ValueType
  unit: string | null
  /** The declared range, where the definition declares one; either bound may be absent. */
  minimum: number | null
  maximum: number | null
}

/** The readout definitions of a cached protocol, by id. */
export function readoutRules(protocol: JsonObject): Map<number, ReadoutRule> {
  const rules = new Map<number, ReadoutRule>()
  const definitions = Array.isArray(protocol.readout_definitions)
    ? protocol.readout_definitions
    : []
  for (const definition of definitions) {
    if (!isObject(definition)) continue
    const id = toId(definition.id)
    if (id === null) continue
    const range = isObject(definition.range) ? definition.range : {}
    rules.set(id, {
      id,
      name: toText(definition.name)?.trim() ?? `Readout ${id}`,
      valueType: valueTypeOf(definition.data_type ?? definition.data_type_name),
      unit: toText(definition.unit_label)?.trim() || null,
      minimum: finite(range.min ?? definition.minimum ?? definition.min_value),
      maximum: finite(range.max ?? definition.maximum ?? definition.max_value),
    })
  }
  return rules
}

function finite(value: unknown): number | null {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  return typeof number === 'number' && Number.isFinite(number) ? number : null
}
