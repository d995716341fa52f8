/**
 * The structure properties of a molecule's page: the vault's values where it gave them, else the
 * ones computed here from the structure (`chem.properties`), marked as such.
 */
import type { CachedRecord, MoleculeProperties, PropertyName } from '../bridge.ts'
import { formatMeasure } from '../../../../src-common/format/numbers.ts'
import { toNumber } from '../../../../src-common/values.ts'
import { propertyInfo } from './structure-query.ts'

export interface ShownProperty {
  name: PropertyName
  label: string
  /** Formatted with its unit; null when neither the vault nor the structure gives one. */
  value: string | null
  /** Computed from the structure on this computer, not given by the vault. */
  computedHere: boolean
}

export function shownProperty(
  name: PropertyName,
  molecule: CachedRecord,
  computed: MoleculeProperties | null,
): ShownProperty {
  const info = propertyInfo(name)
  const format = (value: number) =>
    `${formatMeasure(value, info.decimals)}${info.unit ? ` ${info.unit}` : ''}`
  // The cache keeps some properties as columns (lists sort by them): those are read as it read them.
  const given = toNumber(
    info.field in molecule.columns ? molecule.columns[info.field] : molecule.json[info.field],
  )
  if (given !== null) return { name, label: info.label, value: format(given), computedHere: false }
  const local = computed?.computed[name]
  if (local === undefined || computed?.fromServer.includes(name)) {
    return {
      name,
      label: info.label,
      value: local === undefined ? null : format(local),
      computedHere: false,
    }
  }
  return { name, label: info.label, value: format(local), computedHere: true }
}

/** Whether any property shown was computed here (to explain the mark once). */
export function anyComputedHere(properties: readonly ShownProperty[]): boolean {
  return properties.some((property) => property.computedHere)
}
