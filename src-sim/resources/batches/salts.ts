import { invalid } from '../../core/http-error.ts'

/**
 * Salt codes (two letters, as registration systems use them) and solvents of crystallisation,
 * with the masses that go into a batch's formula weight.
 */
interface Counterpart {
  code: string
  name: string
  weight: number
}

export const salts: readonly Counterpart[] = [
  { code: 'HC', name: 'hydrochloride', weight: 36.461 },
  { code: 'HB', name: 'hydrobromide', weight: 80.912 },
  { code: 'TF', name: 'trifluoroacetate', weight: 114.023 },
  { code: 'NA', name: 'sodium', weight: 22.99 },
  { code: 'KA', name: 'potassium', weight: 39.098 },
  { code: 'MS', name: 'mesylate', weight: 96.106 },
  { code: 'TS', name: 'tosylate', weight: 172.2 },
  { code: 'SU', name: 'sulfate', weight: 98.072 },
  { code: 'FO', name: 'formate', weight: 46.025 },
  { code: 'AC', name: 'acetate', weight: 60.052 },
  { code: 'MA', name: 'maleate', weight: 116.072 },
  { code: 'CI', name: 'citrate', weight: 192.124 },
]

export const solvents: readonly Counterpart[] = [
  { code: 'H2O', name: 'water', weight: 18.015 },
  { code: 'MEOH', name: 'methanol', weight: 32.042 },
  { code: 'ETOH', name: 'ethanol', weight: 46.069 },
  { code: 'DMSO', name: 'dimethyl sulfoxide', weight: 78.13 },
  { code: 'ETOAC', name: 'ethyl acetate', weight: 88.106 },
  { code: 'DCM', name: 'dichloromethane', weight: 84.93 },
]

/** The canonical name for a code or name (any case); 422 naming the member otherwise. */
export function readCounterpart(
  list: readonly Counterpart[],
  value: string,
  member: string,
): string {
  const wanted = value.trim().toLowerCase()
  const found = list.find((item) => item.code.toLowerCase() === wanted || item.name === wanted)
  if (!found)
    throw invalid(
      member,
      `'${value}' is not a known ${member === 'salt_name' ? 'salt' : 'solvent'} (use one of ${list.map((item) => `${item.code} (${item.name})`).join(', ')})`,
    )
  return found.name
}

export function counterpartWeight(list: readonly Counterpart[], name: string | null): number {
  return name === null ? 0 : (list.find((item) => item.name === name)?.weight ?? 0)
}
