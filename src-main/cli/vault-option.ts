import { AppError } from '../shared/app-error.ts'

/** `--vault ID`: a vault id, or undefined when not given. */
export function vaultIdOption(value: unknown): number | undefined {
  if (value === undefined) return undefined
  const id = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN
  if (!Number.isSafeInteger(id)) {
    throw new AppError(
      'invalid_argument',
      `--vault takes a vault id (a whole number), not ${JSON.stringify(value)}.`,
    )
  }
  return id
}
