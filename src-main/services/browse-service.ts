import type { EventBus } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import { isObject, toId, toLinkId, toText, type JsonObject } from '../store/record-values.ts'
import { recordKind, recordKinds, type RecordKindName } from '../store/record-kinds.ts'
import type { ListOptions, RecordPage } from '../store/record-queries.ts'
import type { LinkedRecord } from '../store/record-links.ts'
import type { SearchOptions, SearchResult } from '../store/search-index.ts'
import { connectionVaultId, type VaultCache } from '../store/vault-cache.ts'
import type { OutboxItemView } from '../sync/outbox/item-view.ts'
import type { OutboxState } from '../sync/outbox/outbox-item.ts'
import type { Outbox } from '../sync/outbox/outbox.ts'
import type { PendingRecord } from '../sync/outbox/pending-records.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'
import { AppError } from '../shared/app-error.ts'
import type { StructureListOptions, StructurePage } from './chem-results.ts'

export interface CachedVault {
  id: number
  name: string | null
  counts: Record<string, number>
  lastSyncAt: string | null
}

export interface RecordKindInfo {
  name: RecordKindName
  sortable: string[]
  filterable: string[]
  searchable: boolean
}

/**
 * The member a browse answer adds to a record with changes in the outbox (the API never sends a
 * member starting with an underscore): the record shown is the cached copy with those changes
 * applied, and a record created offline has `id: null` until the server has it.
 */
export const pendingMember = '_pending'

export interface PendingMark {
  /** The most pressing state among its items (needs attention first). */
  state: OutboxState
  itemIds: number[]
  /** The item creating the record offline (null for a record the server has). */
  createdBy: number | null
}

/** The vaults a cache holds, with their counts by kind and last complete sync. */
export function cachedVaults(cache: VaultCache): CachedVault[] {
  const counts = cache.counts()
  const synced = new Map(cache.lastSyncs().map((sync) => [sync.vaultId, sync.lastSyncAt]))
  return cache
    .list('vaults', connectionVaultId, { sort: 'name', limit: 1000 })
    .records.map((vault: JsonObject) => {
      const id = Number(vault.id)
      return {
        id,
        name: typeof vault.name === 'string' ? vault.name : null,
        counts: { ...counts[id] } as Record<string, number>,
        lastSyncAt: synced.get(id) ?? null,
      }
    })
}

/** A pending record as browse answers show it: the merged record, marked. */
export function markedRecord(pending: PendingRecord): JsonObject {
  const mark: PendingMark = {
    state: pending.state,
    itemIds: pending.itemIds,
    createdBy: pending.createdBy,
  }
  return { ...pending.record, id: pending.id, [pendingMember]: mark }
}

/** Kinds whose pages show what a file is attached to (`file.attach` targets). */
const attachKinds: Record<string, RecordKindName> = {
  molecule: 'molecules',
  run: 'runs',
  protocol: 'protocols',
  eln_entry: 'eln_entries',
  readout_row: 'runs',
}

export interface BrowseOutbox {
  outbox: Outbox
  events: EventBus
  log?: Logger
}

/** What answers structure and property searches of molecules (the ChemService). */
export interface StructureLists {
  list(connectionId: string, vaultId: number, options: StructureListOptions): Promise<StructurePage>
}

/**
 * What the UI and the CLI read: vaults, records, links and search, from a connection's cache
 * only; browsing never waits on the network. With the outbox, records show the changes still
 * waiting in it (marked `_pending`), records created offline come first in their lists, and
 * `records.changed` follows pending changes as they appear and go.
 */
export class BrowseService {
  readonly #runtimes: ConnectionRuntimes
  readonly #outbox: Outbox | null
  readonly #structures: StructureLists | null

  constructor(runtimes: ConnectionRuntimes, pending?: BrowseOutbox, structures?: StructureLists) {
    this.#runtimes = runtimes
    this.#outbox = pending?.outbox ?? null
    this.#structures = structures ?? null
    if (pending) {
      pending.events.on('outbox.changed', ({ itemIds }) => {
        if (itemIds.length > 0) this.#tellChanged(pending, itemIds)
      })
    }
  }

  vaults(connectionId: string): CachedVault[] {
    return cachedVaults(this.#runtimes.get(connectionId).cache)
  }

  kinds(): RecordKindInfo[] {
    return [...recordKinds.values()].map((kind) => ({
      name: kind.name,
      sortable: [...kind.sortable],
      filterable: [...kind.filterable],
      searchable: kind.searchOf !== undefined || kind.name === 'batches',
    }))
  }

  /**
   * A page of cached records with their pending changes applied; records created offline that
   * match the question come first (before the cached ones, in every order).
   */
  list(connectionId: string, vaultId: number, kind: string, options: ListOptions): RecordPage {
    const cache = this.#runtimes.get(connectionId).cache
    const pending = this.#pendingList(connectionId, vaultId, kind)
    if (pending.length === 0) return cache.list(kind, vaultId, options)
    const created = pending
      .filter((record) => record.id === null && matches(record.record, options))
      .map(markedRecord)
    const limit = Math.min(Math.max(Math.trunc(options.limit ?? 50), 0), 1000)
    const offset = Math.max(Math.trunc(options.offset ?? 0), 0)
    const createdShown = created.slice(offset, offset + limit)
    const page = cache.list(kind, vaultId, {
      ...options,
      offset: Math.max(0, offset - created.length),
      limit: limit - createdShown.length,
    })
    const changed = new Map(
      pending.flatMap((record) => (record.id === null ? [] : [[record.id, record] as const])),
    )
    return {
      kind: page.kind,
      total: page.total + created.length,
      records: [
        ...createdShown,
        ...page.records.map((record) => {
          const id = toId(record.id)
          const change = id === null ? undefined : changed.get(id)
          return change ? markedRecord(change) : record
        }),
      ],
    }
  }

  /**
   * A page of molecules answering a structure search or property ranges (with the list's text,
   * filters, fields and project), from the local structure index; records show their pending
   * changes, and molecules created offline (not indexed yet) are not among them.
   */
  async listStructure(
    connectionId: string,
    vaultId: number,
    kind: string,
    options: StructureListOptions,
  ): Promise<StructurePage> {
    if (recordKind(kind).name !== 'molecules') {
      throw new AppError(
        'invalid_argument',
        `Structure and property searches find molecules, not ${kind}.`,
      )
    }
    if (!this.#structures) throw new AppError('internal', 'Structure search is not available.')
    const page = await this.#structures.list(connectionId, vaultId, options)
    return {
      ...page,
      records: this.#withPending(connectionId, vaultId, 'molecules', page.records),
    }
  }

  /**
   * One record with its links, each with its pending changes applied; files waiting to be
   * attached to it are listed among its files.
   */
  get(connectionId: string, vaultId: number, kind: string, id: number): LinkedRecord | null {
    const cache = this.#runtimes.get(connectionId).cache
    const linked = cache.linked(kind, vaultId, id)
    if (!this.#outbox) return linked
    const own = this.#outbox.pendingFor(connectionId, vaultId, kind, { id })
    if (!linked) {
      return own ? { kind: recordKind(kind).name, record: markedRecord(own), links: {} } : null
    }
    const links: LinkedRecord['links'] = {}
    for (const [linkKind, records] of Object.entries(linked.links) as [
      RecordKindName,
      JsonObject[],
    ][]) {
      links[linkKind] = this.#withPending(connectionId, vaultId, linkKind, records)
    }
    const attachKind = Object.entries(attachKinds).find(([, name]) => name === linked.kind)?.[0]
    if (attachKind && attachKind !== 'readout_row') {
      const files = this.#pendingList(connectionId, vaultId, 'files').filter(
        (file) =>
          file.id === null &&
          file.record.resource_class === attachKind &&
          toLinkId(file.record.resource_id) === id,
      )
      if (files.length > 0) links.files = [...files.map(markedRecord), ...(links.files ?? [])]
    }
    return {
      kind: linked.kind,
      record: own ? markedRecord(own) : linked.record,
      links,
    }
  }

  search(connectionId: string, text: string, options: SearchOptions): SearchResult {
    return this.#runtimes.get(connectionId).cache.search(text, options)
  }

  #pendingList(connectionId: string, vaultId: number, kind: string): PendingRecord[] {
    return this.#outbox ? this.#outbox.pendingList(connectionId, vaultId, kind) : []
  }

  #withPending(
    connectionId: string,
    vaultId: number,
    kind: RecordKindName,
    records: JsonObject[],
  ): JsonObject[] {
    const pending = this.#pendingList(connectionId, vaultId, kind)
    if (pending.length === 0) return records
    const changed = new Map(
      pending.flatMap((record) => (record.id === null ? [] : [[record.id, record] as const])),
    )
    return records.map((record) => {
      const id = toId(record.id)
      const change = id === null ? undefined : changed.get(id)
      return change ? markedRecord(change) : record
    })
  }

  /** Items changed state: the lists and pages showing their records read them again. */
  #tellChanged(pending: BrowseOutbox, itemIds: readonly number[]): void {
    const byVault = new Map<string, { connectionId: string; vaultId: number; kinds: Set<string> }>()
    for (const itemId of itemIds) {
      let item: OutboxItemView
      try {
        item = pending.outbox.item(itemId)
      } catch (error) {
        // An item forgotten meanwhile (pruned history) changes nothing shown.
        pending.log?.debug('an outbox item could not be read', { itemId, error: String(error) })
        continue
      }
      const key = `${item.connectionId}\u0000${item.vaultId}`
      const entry = byVault.get(key) ?? {
        connectionId: item.connectionId,
        vaultId: item.vaultId,
        kinds: new Set<string>(),
      }
      entry.kinds.add(item.record.kind)
      const target = isObject(item.payload.target) ? toText(item.payload.target.kind) : null
      const targetKind = target === null ? undefined : attachKinds[target]
      if (targetKind) entry.kinds.add(targetKind)
      byVault.set(key, entry)
    }
    for (const { connectionId, vaultId, kinds } of byVault.values()) {
      pending.events.emit('records.changed', { connectionId, vaultId, kinds: [...kinds] })
    }
  }
}

/**
 * Whether a record created offline answers a list's question, as far as it can be told without
 * the cache's indexes: its text words, filters on its members, its project.
 */
function matches(record: JsonObject, options: ListOptions): boolean {
  const text = options.text?.trim().toLowerCase()
  if (text) {
    const words = Object.values(record)
      .flatMap((value) => (typeof value === 'string' ? value.toLowerCase().split(/\s+/) : []))
      .filter(Boolean)
    const wanted = text.split(/\s+/)
    if (!wanted.every((prefix) => words.some((word) => word.startsWith(prefix)))) return false
  }
  for (const [column, value] of Object.entries(options.filters ?? {})) {
    if (!sameMember(record, column, value)) return false
  }
  for (const [name, value] of Object.entries(options.fields ?? {})) {
    const maps = Object.values(record).filter(isObject)
    const found = [record, ...maps].some((map) => String(map[name] ?? '') === value)
    if (!found) return false
  }
  if (options.projectId !== undefined) {
    const projects = [record.project, ...(Array.isArray(record.projects) ? record.projects : [])]
    if (!projects.some((project) => toLinkId(project) === options.projectId)) return false
  }
  return true
}

/** A filter on `column` (`status`, `project_id`...) against a record's JSON. */
function sameMember(record: JsonObject, column: string, value: unknown): boolean {
  const direct = record[column]
  if (direct !== undefined) return direct === value || String(direct) === String(value)
  if (column.endsWith('_id')) {
    const linked = toLinkId(record[column.slice(0, -3)])
    return linked !== null && String(linked) === String(value)
  }
  return value === null
}
