/**
 * Readout rows and the protocols that define their columns, read from cached records and grouped
 * the way a results table shows them: one table per protocol, one column per readout definition
 * that holds at least one value.
 */
import {
  idOf,
  isRecord,
  linkIdOf,
  numberOf,
  recordsOf,
  textOf,
  type RecordJson,
} from '../records/record-values.ts'
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

export function readoutDefinitionsOf(protocol: RecordJson | null | undefined): ReadoutDefinition[] {
  return recordsOf(protocol?.readout_definitions).flatMap((definition) => {
    const id = idOf(definition.id)
    if (id === null) return []
    return [
      {
        id,
        name: textOf(definition.name) ?? `Readout ${id}`,
        unit: textOf(definition.unit_label),
        precision: numberOf(definition.precision),
        calculated: definition.calculated === true || definition.calculated === 'true',
        text: textOf(definition.data_type)?.toLowerCase() === 'text',
      },
    ]
  })
}

export function controlStateOf(value: unknown): ControlState | null {
  const text = typeof value === 'string' ? value.trim() : ''
  return text === '+' || text === '-' || text === '#' ? text : null
}

export function readReadoutRow(raw: RecordJson): ReadoutRow | null {
  const id = idOf(raw.id)
  if (id === null) return null
  const cells = new Map<number, ReadoutCell>()
  if (isRecord(raw.readouts)) {
    for (const [key, value] of Object.entries(raw.readouts)) {
      const definitionId = idOf(key)
      const cell = readCell(value)
      if (definitionId !== null && cell !== null) cells.set(definitionId, cell)
    }
  }
  const well = isRecord(raw.well) ? textOf(raw.well.pos) : textOf(raw.well)
  return {
    id,
    aggregate: textOf(raw.type)?.toLowerCase().startsWith('aggregate') ?? false,
    protocolId: linkIdOf(raw.protocol ?? raw.protocol_id),
    runId: linkIdOf(raw.run ?? raw.run_id),
    runDate: isRecord(raw.run) ? textOf(raw.run.run_date) : null,
    moleculeId: linkIdOf(raw.molecule ?? raw.molecule_id),
    batchId: linkIdOf(raw.batch ?? raw.batch_id),
    plateId: linkIdOf(raw.plate ?? raw.plate_id),
    well,
    control: controlStateOf(raw.control_state),
    cells,
    pending: pendingOf(raw),
    modifiedAt: textOf(raw.modified_at),
  }
}

export function readReadoutRows(raw: readonly RecordJson[]): ReadoutRow[] {
  return raw.map(readReadoutRow).filter((row): row is ReadoutRow => row !== null)
}

/**
 * One group per protocol, named and ordered by protocol name. A readout the protocol does not
 * define (its record is not cached, say) still gets a column, named by its id.
 */
export function groupByProtocol(
  rows: readonly ReadoutRow[],
  protocols: readonly RecordJson[],
): ReadoutGroup[] {
  const protocolsById = new Map(protocols.map((protocol) => [idOf(protocol.id), protocol]))
  const byProtocol = new Map<number | null, ReadoutRow[]>()
  for (const row of rows) {
    const group = byProtocol.get(row.protocolId) ?? []
    group.push(row)
    byProtocol.set(row.protocolId, group)
  }
  const groups = [...byProtocol].map(([protocolId, groupRows]): ReadoutGroup => {
    const protocol = protocolId === null ? undefined : protocolsById.get(protocolId)
    return {
      protocolId,
      protocolName:
        textOf(protocol?.name) ?? (protocolId === null ? 'No protocol' : `Protocol #${protocolId}`),
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
