/**
 * Concentrations as a bench scientist reads them: in the molar prefix that keeps the number
 * between 1 and 1000 ("350 nM", not "0.35 uM"), whatever unit the readout stores them in. A unit
 * that is not molar ("mg/mL", none at all) is kept as it is, and values are written with it.
 */
import { formatValue } from '../plots/ticks.ts'

/** Molar prefixes by their power of ten, smallest first. */
const molarPrefixes: readonly { exponent: number; symbol: string }[] = [
  { exponent: -15, symbol: 'fM' },
  { exponent: -12, symbol: 'pM' },
  { exponent: -9, symbol: 'nM' },
  { exponent: -6, symbol: 'µM' },
  { exponent: -3, symbol: 'mM' },
  { exponent: 0, symbol: 'M' },
]

const prefixExponents: Readonly<Record<string, number>> = {
  f: -15,
  p: -12,
  n: -9,
  u: -6,
  µ: -6,
  μ: -6,
  m: -3,
  '': 0,
}

export interface ConcentrationUnit {
  /** The unit as the readout names it (null: none). */
  given: string | null
  /** Its power of ten in molar, when it is a molar unit (`uM`: -6); null otherwise. */
  molarExponent: number | null
}

/** Reads a readout's unit: `nM`, `uM`, `µM`, `μM`, `mM`, `M`, `pM`, `fM`, `mol/L`, `umol/L`... */
export function concentrationUnit(unit: string | null | undefined): ConcentrationUnit {
  const given = unit?.trim() || null
  if (given === null) return { given, molarExponent: null }
  const molar = /^([fpnuµμm]?)(?:M|mol\/L|mol\/l)$/.exec(given)
  const exponent = molar ? prefixExponents[molar[1]!] : undefined
  return { given, molarExponent: exponent ?? null }
}

/**
 * A concentration in the readout's unit, written in the most readable molar prefix with up to
 * `digits` significant digits ("1 nM", "350 nM", "12.5 µM"); in its own unit when not molar.
 */
export function formatConcentration(value: number, unit: ConcentrationUnit, digits = 3): string {
  if (!Number.isFinite(value)) return String(value)
  if (unit.molarExponent === null || value <= 0) {
    const text = significant(value, digits)
    return unit.given ? `${text} ${unit.given}` : text
  }
  const molarLog = Math.log10(value) + unit.molarExponent
  // 999.9 nM rounds to "1,000 nM": decide the prefix on the rounded value.
  const rounded = Number(Number(10 ** molarLog).toPrecision(digits))
  const roundedLog = Math.log10(rounded)
  const prefix =
    molarPrefixes.findLast((candidate) => candidate.exponent <= roundedLog + 1e-9) ??
    molarPrefixes[0]!
  return `${significant(10 ** (molarLog - prefix.exponent), digits)} ${prefix.symbol}`
}

/** A number to `digits` significant digits, without float noise or trailing zeros. */
function significant(value: number, digits: number): string {
  if (value === 0) return '0'
  const size = Math.abs(value)
  if (size >= 1e6 || size < 1e-4) return formatValue(value)
  return Number(value.toPrecision(digits))
    .toLocaleString('en-US', { maximumFractionDigits: 12 })
    .replace('-', '−')
}

/** The axis title; a molar unit is on every tick label, another one is named here. */
export function concentrationTitle(name: string | null, unit: ConcentrationUnit): string {
  const label = name ?? 'Concentration'
  return unit.given && unit.molarExponent === null
    ? `${label} (${unit.given}, log scale)`
    : `${label} (log scale)`
}
