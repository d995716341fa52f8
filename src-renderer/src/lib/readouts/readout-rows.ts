/**
 * Readout rows and the protocols that define their columns, read from cached rows and grouped the
 * way a results table shows them: one table per protocol, one column per readout definition that
 * holds at least one value. What places a row (its links, run date, well, control state, type) is
 * read from the columns the cache computed; only its cells come from its JSON.
 */
import type { CachedRecord } from '../bridge.ts'
import { isObject, toId, toNumber, toObjects, toText } from '../../../../src-common/values.ts'
import { pendingOf, type PendingMark } from '../outbox/pending.ts'
import { readCell, type ReadoutCell } from './readout-cell.ts'

export interface ReadoutDefinition {
  id: number
  name: string
  unit: string | null
  precision: number | null
  /** Filled in by the vault (an IC50 from a curve fit), not measured. */
  calculated: boolean
  /** Holds words (a comment), not numbers. */
  text: boolean
}

export type ControlState = '+' | '-' | '#'

export interface ReadoutRow {
  id: number
  aggregate: boolean
  protocolId: number | null
  runId: number | null
  runDate: string | null
  moleculeId: number | null
  batchId: number | null
  plateId: number | null
  well: string | null
  control: ControlState | null
  cells: ReadonlyMap<number, ReadoutCell>
  /** Changes of the row waiting in the outbox (shown applied), or null. */
  pending: PendingMark | null
  /** The row's modified_at as cached: a correction is based on it (conflicts). */
  modifiedAt: string | null
}

export interface ReadoutGroup {
  protocolId: number | null
  protocolName: string
  /** The columns: definitions of the protocol that hold a value in some row, in its order. */
  definitions: ReadoutDefinition[]
  rows: ReadoutRow[]
}

export function readoutDefinitionsOf(
  protocol: CachedRecord | null | undefined,
): ReadoutDefinition[] {
  return toObjects(protocol?.json.readout_definitions).flatMap((definition) => {
    const id = toId(definition.id)
    if (id === null) return []
    return [
      {
        id,
        name: toText(definition.name) ?? `Readout ${id}`,
        unit: toText(definition.unit_label),
        precision: toNumber(definition.precision),
        calculated: definition.calculated === true || definition.calculated === 'true',
        text: toText(definition.data_type)?.toLowerCase() === 'text',
      },
    ]
  })
}

export function controlStateOf(value: unknown): ControlState | null {
  const text = typeof value === 'string' ? value.trim() : ''
  return text === '+' || text === '-' || text === '#' ? text : null
}

export function readReadoutRow(row: CachedRecord): ReadoutRow | null {
  if (row.id === null) return null
  const { columns, json } = row
  const cells = new Map<number, ReadoutCell>()
  if (isObject(json.readouts)) {
    for (const [key, value] of Object.entries(json.readouts)) {
      const definitionId = toId(key)
      const cell = readCell(value)
      if (definitionId !== null && cell !== null) cells.set(definitionId, cell)
    }
  }
  return {
    id: row.id,
    aggregate: toText(columns.row_type)?.toLowerCase().startsWith('aggregate') ?? false,
    protocolId: toId(columns.protocol_id),
    runId: toId(columns.run_id),
    runDate: toText(columns.run_date),
    moleculeId: toId(columns.molecule_id),
    batchId: toId(columns.batch_id),
    plateId: toId(columns.plate_id),
    well: toText(columns.well),
    control: controlStateOf(columns.control_state),
    cells,
    pending: pendingOf(row),
    // The base of a correction is the server's own text, which the vault compares.
    modifiedAt: toText(json.modified_at),
  }
}

export function readReadoutRows(rows: readonly CachedRecord[]): ReadoutRow[] {
  return rows.map(readReadoutRow).filter((row): row is ReadoutRow => row !== null)
}

/**
 * One group per protocol, named and ordered by protocol name. A readout the protocol does not
 * define (its record is not cached, say) still gets a column, named by its id.
 */
export function groupByProtocol(
  rows: readonly ReadoutRow[],
  protocols: readonly CachedRecord[],
): ReadoutGroup[] {
  const protocolsById = new Map(protocols.map((protocol) => [protocol.id, protocol]))
  const byProtocol = new Map<number | null, ReadoutRow[]>()
  for (const row of rows) {
    const group = byProtocol.get(row.protocolId) ?? []
    group.push(row)
    byProtocol.set(row.protocolId, group)
  }
  const groups = [...byProtocol].map(([protocolId, groupRows]): ReadoutGroup => {
    const protocol = protocolsById.get(protocolId)
    return {
      protocolId,
      protocolName:
        toText(protocol?.columns.name) ??
        (protocolId === null ? 'No protocol' : `Protocol #${protocolId}`),
      definitions: columnsFor(readoutDefinitionsOf(protocol), groupRows),
      rows: groupRows,
    }
  })
  return groups.sort((a, b) => a.protocolName.localeCompare(b.protocolName))
}

function columnsFor(
  definitions: readonly ReadoutDefinition[],
  rows: readonly ReadoutRow[],
): ReadoutDefinition[] {
  const used = new Set(rows.flatMap((row) => [...row.cells.keys()]))
  const known = definitions.filter((definition) => used.has(definition.id))
  const unknown = [...used]
    .filter((id) => !definitions.some((definition) => definition.id === id))
    .sort((a, b) => a - b)
    .map((id) => ({
      id,
      name: `Readout ${id}`,
      unit: null,
      precision: null,
      calculated: false,
      text: false,
    }))
  return [...known, ...unknown]
}
