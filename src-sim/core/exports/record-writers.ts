/**
 * Turns records into the bytes of a JSON, CSV or SDF export. CSV flattens nested objects into
 * dotted column names; SDF takes each record's `molfile` (or asks for one from its `smiles`) and
 * writes the scalar members as data items.
 */

export function flattenRecord(
  record: Record<string, unknown>,
  prefix = '',
  into: Record<string, string> = {},
): Record<string, string> {
  for (const [key, value] of Object.entries(record)) {
    const name = `${prefix}${key}`
    if (value === null || value === undefined) continue
    if (Array.isArray(value)) {
      into[name] = value
        .map((item) =>
          typeof item === 'object' && item !== null
            ? describeObject(item as Record<string, unknown>)
            : String(item),
        )
        .join('; ')
    } else if (typeof value === 'object') {
      flattenRecord(value as Record<string, unknown>, `${name}.`, into)
    } else {
      into[name] = String(value)
    }
  }
  return into
}

/** An object inside a list cell: its name if it has one, else its id, else its JSON. */
function describeObject(item: Record<string, unknown>): string {
  if (typeof item.name === 'string') return item.name
  if (item.id !== undefined) return String(item.id)
  return JSON.stringify(item)
}

export function csvCell(value: string | undefined): string {
  if (value === undefined) return ''
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}

export function csvLine(cells: readonly (string | undefined)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`
}

export function sdfRecord(molfile: string, record: Record<string, unknown>): string {
  const lines = [molfile.endsWith('\n') ? molfile : `${molfile}\n`]
  for (const [key, value] of Object.entries(flattenRecord(withoutStructures(record)))) {
    if (value === '') continue
    lines.push(`> <${key}>\n${value.replace(/\n+/g, ' ')}\n\n`)
  }
  lines.push('$$$$\n')
  return lines.join('')
}

function withoutStructures(record: Record<string, unknown>): Record<string, unknown> {
  const { molfile: _molfile, ...rest } = record
  return rest
}
