/**
 * Units that readout definitions carry (`unit_label`) and that criteria and cells may name, and
 * conversion between them.
 *
 * Symbols are case-sensitive, as in SI: `nm` is a nanometre, not a nanomolar, and `MM` is no
 * unit. Spelled-out names (`micromolar`, `hours`) are read in any case. The micro prefix may be
 * written `µ` (micro sign), `μ` (Greek mu), `u`, or `mc` before `g` and `L`. Known dimensions:
 *
 * - molar concentration: M, mM, µM, nM, pM, fM; mol/L and its prefixed forms; molar, micromolar...
 * - mass concentration: any mass over any volume (mg/mL, µg/mL, g/L, ng/mL...)
 * - amount: mol, mmol, µmol, nmol, pmol, fmol
 * - mass: kg, g, mg, µg, ng, pg, fg
 * - volume: L, dL, mL, µL, nL, pL (`l` also)
 * - time: ms, s, min, h, d, wk (and sec, hr, hour, day, week, with plurals)
 * - length: m, cm, mm, µm, nm, pm
 * - percent: %, percent, pct, and labels that begin with % followed by words (`% inhibition`)
 * - ratio: fold, ratio, x (no scale)
 * - negative log molar: pIC50, pEC50, pKi, pKd, pA2 and the like, -log(M): these are
 *   logarithms, so they convert among themselves (factor 1) but never to or from molar units.
 *
 * Anything else (`RLU`, `cps`, `mL/min/kg`) is kept as an unknown unit, equal only to the same
 * label. `-`, `none` and `n/a` mean no unit. Molar and mass concentrations do not convert into
 * each other: that needs the molecular weight. Scales are powers of ten held as exponents (with
 * a whole-number mantissa for time) so that 1 µM is exactly 1000 nM.
 */

export type Dimension =
  | 'molar concentration'
  | 'mass concentration'
  | 'amount'
  | 'mass'
  | 'volume'
  | 'time'
  | 'length'
  | 'percent'
  | 'ratio'
  | 'negative log molar'
  | 'unknown'

export interface Unit {
  /** The label as given, trimmed. */
  label: string
  /** The canonical symbol (`µM` for `uM` or `micromolar`); the label itself when unknown. */
  symbol: string
  dimension: Dimension
  /** The unit is `mantissa × 10^exponent` of its dimension's base unit. */
  mantissa: number
  exponent: number
}

export type Conversion = { ok: true; value: number } | { ok: false; message: string }

const NO_UNIT = new Set(['', '-', 'none', 'n/a'])

const PREFIXES: Record<string, number> = {
  '': 0,
  k: 3,
  d: -1,
  c: -2,
  m: -3,
  µ: -6,
  n: -9,
  p: -12,
  f: -15,
}

const MICRO = /^(?:µ|μ|u|mc(?=[gL]))/

interface BaseSymbol {
  dimension: Dimension
  /** Prefixes it takes (SI prefix letters), each giving a power of ten. */
  prefixes: readonly string[]
  exponent: number
}

const BASE_SYMBOLS: Record<string, BaseSymbol> = {
  M: { dimension: 'molar concentration', prefixes: ['', 'm', 'µ', 'n', 'p', 'f'], exponent: 0 },
  mol: { dimension: 'amount', prefixes: ['', 'm', 'µ', 'n', 'p', 'f'], exponent: 0 },
  g: { dimension: 'mass', prefixes: ['k', '', 'm', 'µ', 'n', 'p', 'f'], exponent: 0 },
  L: { dimension: 'volume', prefixes: ['', 'd', 'm', 'µ', 'n', 'p'], exponent: 0 },
  l: { dimension: 'volume', prefixes: ['', 'd', 'm', 'µ', 'n', 'p'], exponent: 0 },
  m: { dimension: 'length', prefixes: ['', 'c', 'm', 'µ', 'n', 'p'], exponent: 0 },
  s: { dimension: 'time', prefixes: ['', 'm', 'µ'], exponent: 0 },
}

/** Seconds in each time unit: symbols (case-sensitive) first, then words (any case). */
const TIME_SYMBOLS: Record<string, number> = { s: 1, min: 60, h: 3600, d: 86_400, wk: 604_800 }
const TIME_WORDS: readonly [RegExp, string][] = [
  [/^(?:secs?|seconds?)$/i, 's'],
  [/^(?:mins|minutes?)$/i, 'min'],
  [/^(?:hrs?|hours?)$/i, 'h'],
  [/^days?$/i, 'd'],
  [/^(?:wks|weeks?)$/i, 'wk'],
]

const MOLAR_WORDS: Record<string, number> = {
  molar: 0,
  millimolar: -3,
  micromolar: -6,
  nanomolar: -9,
  picomolar: -12,
  femtomolar: -15,
}

const NEGATIVE_LOG =
  /^(?:p(?:IC|EC|GI|AC|LC|CC|ED|ID|TD|LD)\d{1,3}|pK[ibda]|pA2|[-−]\s*log(?:10)?\s*\(?\s*M\s*\)?)$/

/** Reads a unit label; null when it names no unit. Unrecognized labels are unknown units. */
export function parseUnit(label: string | null | undefined): Unit | null {
  const trimmed = (label ?? '').trim()
  if (NO_UNIT.has(trimmed.toLowerCase())) return null
  return knownUnit(trimmed) ?? { ...unknownScale, label: trimmed, symbol: trimmed }
}

const unknownScale = { dimension: 'unknown' as const, mantissa: 1, exponent: 0 }

/** Whether the label names a unit of a known dimension. */
export function isKnownUnit(label: string): boolean {
  return knownUnit(label.trim()) !== null
}

function knownUnit(label: string): Unit | null {
  if (label === '') return null
  if (label === '%' || /^%\s*\p{L}/u.test(label) || /^(?:percent|pct)$/i.test(label)) {
    return { label, symbol: '%', dimension: 'percent', mantissa: 1, exponent: 0 }
  }
  if (/^(?:fold|ratio|x)$/i.test(label)) {
    return { label, symbol: label.toLowerCase(), dimension: 'ratio', mantissa: 1, exponent: 0 }
  }
  if (NEGATIVE_LOG.test(label)) {
    return { label, symbol: label, dimension: 'negative log molar', mantissa: 1, exponent: 0 }
  }
  const molarWord = MOLAR_WORDS[label.toLowerCase()]
  if (molarWord !== undefined) return scaled(label, 'M', 'molar concentration', molarWord)
  const timeSymbol =
    TIME_SYMBOLS[label] !== undefined
      ? label
      : TIME_WORDS.find(([pattern]) => pattern.test(label))?.[1]
  if (timeSymbol !== undefined) {
    return {
      label,
      symbol: timeSymbol,
      dimension: 'time',
      mantissa: TIME_SYMBOLS[timeSymbol]!,
      exponent: 0,
    }
  }
  const slash = label.indexOf('/')
  if (slash > 0) return quotient(label, label.slice(0, slash).trim(), label.slice(slash + 1).trim())
  return prefixed(label, label)
}

/** `mg/mL`, `mol/L`: an amount or mass over a volume. */
function quotient(label: string, top: string, bottom: string): Unit | null {
  const numerator = prefixed(top, top)
  const denominator = prefixed(bottom, bottom)
  if (!numerator || !denominator || denominator.dimension !== 'volume') return null
  const dimension =
    numerator.dimension === 'amount'
      ? 'molar concentration'
      : numerator.dimension === 'mass'
        ? 'mass concentration'
        : null
  if (!dimension) return null
  return {
    label,
    symbol: `${numerator.symbol}/${denominator.symbol}`,
    dimension,
    mantissa: 1,
    exponent: numerator.exponent - denominator.exponent,
  }
}

/** An SI symbol with an optional prefix: `nM`, `µL`, `ug`, `kg`. */
function prefixed(label: string, text: string): Unit | null {
  const micro = MICRO.exec(text)
  const normalized = micro ? `µ${text.slice(micro[0].length)}` : text
  for (const [base, definition] of Object.entries(BASE_SYMBOLS)) {
    if (!normalized.endsWith(base)) continue
    const prefix = normalized.slice(0, normalized.length - base.length)
    if (!definition.prefixes.includes(prefix)) continue
    const symbolBase = base === 'l' ? 'L' : base
    return scaled(label, symbolBase, definition.dimension, PREFIXES[prefix]!, prefix)
  }
  return null
}

function scaled(
  label: string,
  base: string,
  dimension: Dimension,
  exponent: number,
  prefix?: string,
): Unit {
  const symbolPrefix =
    prefix ?? Object.entries(PREFIXES).find(([, power]) => power === exponent)?.[0] ?? ''
  return { label, symbol: `${symbolPrefix}${base}`, dimension, mantissa: 1, exponent }
}

const DIMENSION_WORDS: Record<Dimension, string> = {
  'molar concentration': 'a molar concentration',
  'mass concentration': 'a mass concentration',
  amount: 'an amount of substance',
  mass: 'a mass',
  volume: 'a volume',
  time: 'a time',
  length: 'a length',
  percent: 'a percentage',
  ratio: 'a ratio',
  'negative log molar': 'a negative logarithm of a molar concentration',
  unknown: 'a unit Vault Desk does not know',
}

/** "a mass", "a molar concentration": for messages. */
export function describeDimension(dimension: Dimension): string {
  return DIMENSION_WORDS[dimension]
}

/**
 * Converts a value from one unit to another. A value without a unit is taken to be in the
 * target unit; a value with a unit cannot go to a target without one.
 */
export function convertValue(value: number, from: Unit | null, to: Unit | null): Conversion {
  if (from === null) return { ok: true, value }
  if (to === null) {
    return {
      ok: false,
      message: `${from.label} cannot be converted: the readout records no unit (give the value without a unit)`,
    }
  }
  if (from.dimension === 'unknown' || to.dimension === 'unknown') {
    if (from.label === to.label) return { ok: true, value }
    return {
      ok: false,
      message: `${from.label} cannot be converted to ${to.label}: ${[from, to]
        .filter((unit) => unit.dimension === 'unknown')
        .map((unit) => unit.label)
        .join(' and ')} ${
        from.dimension === 'unknown' && to.dimension === 'unknown' ? 'are units' : 'is a unit'
      } Vault Desk does not know, and the labels differ`,
    }
  }
  if (from.dimension !== to.dimension) return { ok: false, message: mismatch(from, to) }
  return { ok: true, value: rescale(value, from, to) }
}

function mismatch(from: Unit, to: Unit): string {
  const base = `${from.label} is ${describeDimension(from.dimension)} and ${to.label} ${describeDimension(to.dimension)}`
  const dimensions = new Set([from.dimension, to.dimension])
  if (dimensions.has('negative log molar') && dimensions.has('molar concentration')) {
    return `${base}: Vault Desk does not convert between logarithmic and molar values; compare in the readout's own unit (${to.label})`
  }
  if (dimensions.has('mass concentration') && dimensions.has('molar concentration')) {
    return `${base}: converting between them needs the molecular weight; compare in ${to.label}`
  }
  return `${from.label} cannot be converted to ${to.label}: ${base}`
}

/** Exact for powers of ten: multiplying or dividing by an exact integer power rounds once. */
function rescale(value: number, from: Unit, to: Unit): number {
  const power = from.exponent - to.exponent
  let result = from.mantissa === to.mantissa ? value : (value * from.mantissa) / to.mantissa
  if (power > 0) result *= 10 ** power
  else if (power < 0) result /= 10 ** -power
  return result
}

/** Whether two labels name the same unit (`uM` and `µM`; `RLU` and `RLU`). */
export function sameUnit(first: Unit | null, second: Unit | null): boolean {
  if (first === null || second === null) return first === second
  if (first.dimension === 'unknown' || second.dimension === 'unknown')
    return first.label === second.label
  return (
    first.dimension === second.dimension &&
    first.exponent === second.exponent &&
    first.mantissa === second.mantissa
  )
}
