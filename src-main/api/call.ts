import { ApiError } from './errors.ts'
import { readAnswer, type Parser } from './shape.ts'
import type { RequestSpec, Transport } from './transport.ts'

/** Sends a request and reads its JSON answer with `parse`. */
export async function call<T>(
  transport: Transport,
  parse: Parser<T>,
  spec: RequestSpec,
): Promise<T> {
  return readAnswer(spec.operation, parse, await transport.json(spec))
}

/** Checks an id before it becomes part of a path: a stray value must never reach another URL. */
export function checkedId(value: number, name: string, operation: string): number {
  if (Number.isSafeInteger(value) && value >= 0) return value
  throw new ApiError({
    kind: 'validation',
    operation,
    message: `${name} must be a whole number, not ${JSON.stringify(value)}.`,
  })
}

/** `/vaults/{vaultId}/...segments`; numbers are ids, each checked and named by the segment before it. */
export function vaultPath(
  operation: string,
  vaultId: number,
  ...segments: readonly (string | number)[]
): string {
  const parts = ['vaults', String(checkedId(vaultId, 'the vault id', operation))]
  segments.forEach((segment, index) => {
    if (typeof segment === 'string') parts.push(segment)
    else parts.push(String(checkedId(segment, `the ${segments[index - 1] ?? ''} id`, operation)))
  })
  return `/${parts.join('/')}`
}
