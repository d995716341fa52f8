import { recordKind, type RecordKindName } from './record-kinds.ts'
import type { RecordQueries } from './record-queries.ts'
import { isObject, toId, toLinkId, type JsonObject } from './record-values.ts'

/** A record and the records it links to, by kind, for a detail page. */
export interface LinkedRecord {
  kind: RecordKindName
  record: JsonObject
  links: Partial<Record<RecordKindName, JsonObject[]>>
}

/** Readout rows and other many-sided links are capped per detail page. */
const manyLimit = 2000

const kinds = {
  molecules: recordKind('molecules'),
  batches: recordKind('batches'),
  readoutRows: recordKind('readout_rows'),
  runs: recordKind('runs'),
  protocols: recordKind('protocols'),
  plates: recordKind('plates'),
  samples: recordKind('inventory_samples'),
  locations: recordKind('inventory_locations'),
  files: recordKind('files'),
  controlLayouts: recordKind('control_layouts'),
  calculations: recordKind('dose_response_calculations'),
  series: recordKind('dose_response_series'),
} as const

/**
 * Follows the links a detail page shows: molecule -> batches -> readout rows -> runs -> protocol;
 * plate -> wells -> batches; sample -> location (and its parents); ELN entry -> files. Links are
 * read from indexed columns where the cache has them, else from the record's JSON.
 */
export class RecordLinks {
  readonly #queries: RecordQueries

  constructor(queries: RecordQueries) {
    this.#queries = queries
  }

  get(kindName: string, vaultId: number, id: number): LinkedRecord | null {
    const kind = recordKind(kindName)
    const record = this.#queries.get(kind.name, vaultId, id)
    if (!record) return null
    const links = this.#linksOf(kind.name, vaultId, id, record)
    return { kind: kind.name, record, links }
  }

  #linksOf(
    kind: RecordKindName,
    vaultId: number,
    id: number,
    record: JsonObject,
  ): LinkedRecord['links'] {
    const q = this.#queries
    switch (kind) {
      case 'molecules': {
        const batches = q.where(kinds.batches, vaultId, 'molecule_id', [id])
        const batchIds = idsOf(batches)
        const readoutRows = q.where(kinds.readoutRows, vaultId, 'batch_id', batchIds, manyLimit)
        return {
          batches,
          readout_rows: readoutRows,
          ...this.#runsAndProtocols(vaultId, readoutRows),
          inventory_samples: q.where(kinds.samples, vaultId, 'batch_id', batchIds),
          files: this.#filesOf(vaultId, 'molecule', id),
        }
      }
      case 'batches': {
        const readoutRows = q.where(kinds.readoutRows, vaultId, 'batch_id', [id], manyLimit)
        // A batch that came inside its molecule has no `molecule` member; its row knows it.
        const moleculeId =
          toLinkId(record.molecule) ?? q.column(kinds.batches, vaultId, id, 'molecule_id')
        return {
          molecules: q.where(kinds.molecules, vaultId, 'id', [moleculeId]),
          readout_rows: readoutRows,
          ...this.#runsAndProtocols(vaultId, readoutRows),
          inventory_samples: q.where(kinds.samples, vaultId, 'batch_id', [id]),
        }
      }
      case 'readout_rows':
        return {
          molecules: q.where(kinds.molecules, vaultId, 'id', [toLinkId(record.molecule)]),
          batches: q.where(kinds.batches, vaultId, 'id', [toLinkId(record.batch)]),
          ...this.#runsAndProtocols(vaultId, [record]),
          plates: q.where(kinds.plates, vaultId, 'id', [toLinkId(record.plate)]),
        }
      case 'runs': {
        const readoutRows = q.where(kinds.readoutRows, vaultId, 'run_id', [id], manyLimit)
        return {
          protocols: q.where(kinds.protocols, vaultId, 'id', [toLinkId(record.protocol)]),
          readout_rows: readoutRows,
          batches: q.where(kinds.batches, vaultId, 'id', linkIdsOf(readoutRows, 'batch')),
          control_layouts: q.where(kinds.controlLayouts, vaultId, 'run_id', [id]),
          files: this.#filesOf(vaultId, 'run', id),
        }
      }
      case 'protocols':
        return {
          runs: q.where(kinds.runs, vaultId, 'protocol_id', [id]),
          dose_response_calculations: q.where(kinds.calculations, vaultId, 'protocol_id', [id]),
          control_layouts: q.where(kinds.controlLayouts, vaultId, 'protocol_id', [id]),
          files: this.#filesOf(vaultId, 'protocol', id),
        }
      case 'plates': {
        const wells = Array.isArray(record.wells) ? record.wells.filter(isObject) : []
        return {
          batches: q.where(kinds.batches, vaultId, 'id', linkIdsOf(wells, 'batch')),
          inventory_samples: q.where(kinds.samples, vaultId, 'id', linkIdsOf(wells, 'sample')),
          control_layouts: q.where(kinds.controlLayouts, vaultId, 'plate_id', [id]),
          readout_rows: q.where(kinds.readoutRows, vaultId, 'plate_id', [id], manyLimit),
        }
      }
      case 'inventory_samples':
        return {
          batches: q.where(kinds.batches, vaultId, 'id', [
            toLinkId(record.batch_id) ?? toLinkId(record.batch),
          ]),
          inventory_locations: this.#locationPath(
            vaultId,
            toLinkId(record.location) ?? toLinkId(record.location_id),
          ),
        }
      case 'inventory_locations':
        return {
          inventory_locations: this.#locationPath(vaultId, toLinkId(record.parent_id)),
          inventory_samples: q.where(kinds.samples, vaultId, 'location_id', [id]),
        }
      case 'eln_entries':
        return { files: this.#elnFiles(vaultId, id, record) }
      case 'dose_response_calculations':
        return {
          protocols: q.where(kinds.protocols, vaultId, 'id', [toLinkId(record.protocol)]),
          dose_response_series: q.where(kinds.series, vaultId, 'calculation_id', [id]),
        }
      case 'dose_response_series':
        return {
          batches: q.where(kinds.batches, vaultId, 'id', [toLinkId(record.batch)]),
          runs: q.where(kinds.runs, vaultId, 'id', [toLinkId(record.run)]),
        }
      default:
        return {}
    }
  }

  #runsAndProtocols(vaultId: number, readoutRows: readonly JsonObject[]): LinkedRecord['links'] {
    const runs = this.#queries.where(kinds.runs, vaultId, 'id', linkIdsOf(readoutRows, 'run'))
    const protocolIds = [
      ...new Set([...linkIdsOf(readoutRows, 'protocol'), ...linkIdsOf(runs, 'protocol')]),
    ]
    return { runs, protocols: this.#queries.where(kinds.protocols, vaultId, 'id', protocolIds) }
  }

  #filesOf(vaultId: number, resourceClass: string, id: number): JsonObject[] {
    return this.#queries
      .where(kinds.files, vaultId, 'resource_id', [id])
      .filter((file) => file.resource_class === resourceClass)
  }

  /** Files attached to the entry, and files its body refers to (`{type: "file", file: id}`). */
  #elnFiles(vaultId: number, id: number, entry: JsonObject): JsonObject[] {
    const referenced = [entry.files, entry.body, entry.append_to_body]
      .flatMap((list) => (Array.isArray(list) ? list : []))
      .map((item) => (isObject(item) ? (toLinkId(item.file) ?? toId(item.id)) : toId(item)))
    const attached = this.#filesOf(vaultId, 'eln_entry', id)
    const others = this.#queries.where(
      kinds.files,
      vaultId,
      'id',
      referenced.filter((fileId) => !attached.some((file) => toId(file.id) === fileId)),
    )
    return [...attached, ...others]
  }

  /** The location and its parents, innermost first (the tree is walked at most 50 levels). */
  #locationPath(vaultId: number, locationId: number | null): JsonObject[] {
    const path: JsonObject[] = []
    const seen = new Set<number>()
    let next = locationId
    while (next !== null && !seen.has(next) && path.length < 50) {
      seen.add(next)
      const location = this.#queries.get(kinds.locations.name, vaultId, next)
      if (!location) break
      path.push(location)
      next = toLinkId(location.parent_id)
    }
    return path
  }
}

function idsOf(records: readonly JsonObject[]): number[] {
  return records.map((record) => toId(record.id)).filter((id) => id !== null)
}

function linkIdsOf(records: readonly JsonObject[], member: string): number[] {
  const ids = new Set<number>()
  for (const record of records) {
    const id = toLinkId(record[member])
    if (id !== null) ids.add(id)
  }
  return [...ids]
}
