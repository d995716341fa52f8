import { formatDateParam, isDateParam } from './dates.ts'

export type QueryValue =
  string | number | boolean | Date | readonly (string | number)[] | null | undefined

export type QueryParams = Readonly<Record<string, QueryValue>>

/**
 * Query strings as the service reads them: id lists comma-separated, booleans as true/false,
 * dates as ISO 8601 with an offset; absent values are left out.
 */
export function appendQuery(url: URL, params: QueryParams): void {
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue
    let text: string
    if (Array.isArray(value)) text = value.join(',')
    else if (value instanceof Date || (isDateParam(name) && typeof value === 'string')) {
      text = formatDateParam(value as Date | string, name)
    } else text = String(value)
    url.searchParams.set(name, text)
  }
}

/** JSON request bodies, with every date member (at any depth) sent as ISO 8601 with an offset. */
export function jsonBody(body: unknown): string {
  return JSON.stringify(body, function (this: Record<string, unknown>, name, value: unknown) {
    const original = this[name]
    if (original instanceof Date) return formatDateParam(original, name)
    if (typeof value === 'string' && isDateParam(name)) return formatDateParam(value, name)
    return value
  })
}
