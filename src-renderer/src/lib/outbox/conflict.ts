/**
 * A conflict, member by member: what the person's queued change sets, beside what the server's
 * copy holds now (it changed since the person began editing).
 */
import type { OutboxItemView } from '../../../../src-common/outbox/item-view.ts'
import { isObject, toText, type JsonObject } from '../../../../src-common/values.ts'

export interface ConflictRow {
  label: string
  mine: string
  theirs: string
  /** The two say the same: shown, but the choice does not matter for it. */
  same: boolean
}

/** A value as the comparison shows it. */
export function showValue(value: unknown): string {
  if (value === undefined || value === null || value === '') return '—'
  if (typeof value === 'boolean') return value ? 'Yes' : 'No'
  if (Array.isArray(value)) return value.map(showValue).join(', ') || '—'
  if (isObject(value)) {
    if ('value' in value || 'outlier' in value) {
      const shown = showValue(value.value)
      return value.outlier === true ? `${shown} (outlier)` : shown
    }
    return toText(value.name) ?? JSON.stringify(value)
  }
  return String(value)
}

const humanize = (member: string) =>
  member.replace(/_/g, ' ').replace(/^./, (first) => first.toUpperCase())

function row(label: string, mine: unknown, theirs: unknown): ConflictRow {
  const shownMine = showValue(mine)
  const shownTheirs = showValue(theirs)
  return { label, mine: shownMine, theirs: shownTheirs, same: shownMine === shownTheirs }
}

/** Members of a changes object against the same members of the server's record. */
function memberRows(changes: unknown, theirs: JsonObject): ConflictRow[] {
  if (!isObject(changes)) return []
  return Object.entries(changes).flatMap(([member, value]) => {
    const fieldMap = ['udfs', 'batch_fields', 'fields', 'eln_fields'].includes(member)
    if (fieldMap && isObject(value)) {
      const theirFields = isObject(theirs[member])
        ? theirs[member]
        : member === 'udfs' && isObject(theirs.molecule_fields)
          ? theirs.molecule_fields
          : {}
      return Object.entries(value).map(([name, fieldValue]) =>
        row(name, fieldValue, (theirFields as JsonObject)[name]),
      )
    }
    return [row(humanize(member), value, theirs[member])]
  })
}

/**
 * The rows of a conflict's comparison, from the item's payload and the server's copy. Readouts
 * are named by `readoutName` (their definitions are the protocol's).
 */
export function conflictRows(
  item: OutboxItemView,
  readoutName: (definitionId: string) => string = (id) => `Readout ${id}`,
): ConflictRow[] {
  const theirs = item.theirs ?? {}
  const payload = item.payload
  switch (item.operation) {
    case 'readout.update': {
      const cells = isObject(theirs.readouts) ? theirs.readouts : {}
      const readouts = isObject(payload.readouts) ? payload.readouts : {}
      return Object.entries(readouts).flatMap(([definition, change]) => {
        const cell = isObject(cells[definition]) ? cells[definition] : {}
        if (!isObject(change)) return []
        const rows: ConflictRow[] = []
        if ('value' in change) {
          rows.push(row(readoutName(definition), change.value, (cell as JsonObject).value))
        }
        if ('outlier' in change) {
          rows.push(
            row(
              `${readoutName(definition)} · outlier`,
              change.outlier === true,
              (cell as JsonObject).outlier === true,
            ),
          )
        }
        return rows
      })
    }
    case 'eln.update':
      return [
        ...(payload.title !== undefined ? [row('Title', payload.title, theirs.name)] : []),
        ...memberRows(
          payload.eln_fields === undefined ? {} : { eln_fields: payload.eln_fields },
          theirs,
        ),
      ]
    default: {
      const rows = memberRows(payload.changes, theirs)
      if (isObject(payload.event)) {
        rows.push(row('Inventory event', showValue(payload.event.amount), '—'))
      }
      return rows
    }
  }
}
