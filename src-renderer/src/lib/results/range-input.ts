/**
 * A column's range filter as typed in its menu: a lower and an upper bound in the readout's unit,
 * either may be left empty. Checked before anything is asked, with a message that names what is
 * wrong; a decimal comma is refused rather than guessed (is `1,000` a thousand or one?).
 */
export type RangeInput =
  | { ok: true; min: number | null; max: number | null }
  | { ok: false; field: 'min' | 'max'; message: string }

const numberForm = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i

function boundOf(
  text: string,
  which: 'lower' | 'upper',
): { ok: true; value: number | null } | { ok: false; message: string } {
  const trimmed = text.trim()
  if (trimmed === '') return { ok: true, value: null }
  if (/^[+-]?\d*,\d+$/.test(trimmed)) {
    return {
      ok: false,
      message: `The ${which} bound “${trimmed}” has a comma: write decimals with a point.`,
    }
  }
  const value = Number(trimmed)
  if (!numberForm.test(trimmed) || !Number.isFinite(value)) {
    return { ok: false, message: `The ${which} bound “${trimmed}” is not a number.` }
  }
  return { ok: true, value }
}

/** Reads the two bounds; both empty means no range. */
export function readRange(minText: string, maxText: string, unit: string | null): RangeInput {
  const min = boundOf(minText, 'lower')
  if (!min.ok) return { ok: false, field: 'min', message: min.message }
  const max = boundOf(maxText, 'upper')
  if (!max.ok) return { ok: false, field: 'max', message: max.message }
  if (min.value !== null && max.value !== null && min.value > max.value) {
    const inUnit = (value: number) => (unit ? `${value} ${unit}` : String(value))
    return {
      ok: false,
      field: 'min',
      message: `The lower bound ${inUnit(min.value)} is above the upper bound ${inUnit(max.value)}.`,
    }
  }
  return { ok: true, min: min.value, max: max.value }
}

/** A bound as the menu's field shows it again. */
export function boundText(value: number | null): string {
  return value === null ? '' : String(value)
}

/** "0.01 to 1 uM", "at least 5 %", "at most 30 uM": a range in words, for chips and labels. */
export function describeRange(min: number | null, max: number | null, unit: string | null): string {
  const suffix = unit ? ` ${unit}` : ''
  if (min !== null && max !== null) return `${min} to ${max}${suffix}`
  if (min !== null) return `at least ${min}${suffix}`
  if (max !== null) return `at most ${max}${suffix}`
  return 'any value'
}
