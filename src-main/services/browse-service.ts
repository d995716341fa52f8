import type { EventBus } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import {
  fileTargetOf,
  filesShownOn,
  isAttachTarget,
} from '../../src-common/outbox/attach-targets.ts'
import type { OutboxItemView } from '../../src-common/outbox/item-view.ts'
import type { RecordRow } from '../../src-common/records/record-row.ts'
import { isObject, toText, type JsonObject } from '../../src-common/values.ts'
import type { PendingInput } from '../store/pending-rows.ts'
import { recordKind, recordKinds, type RecordKindName } from '../store/record-kinds.ts'
import type { DistinctValue, ListOptions, ListReader, RowPage } from '../store/record-queries.ts'
import type { LinkedRecord } from '../store/record-links.ts'
import type { SearchOptions, SearchResult } from '../store/search-index.ts'
import { connectionVaultId, type VaultCache } from '../store/vault-cache.ts'
import type { Outbox } from '../sync/outbox/outbox.ts'
import type { PendingRecord } from '../sync/outbox/pending-records.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'
import { AppError } from '../shared/app-error.ts'
import type { StructureListOptions, StructurePage } from './chem-results.ts'
import type { StructureCriterion } from '../chem/structure-search-request.ts'
import { toCriterion } from './structure-list.ts'

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

/** A pending record as the store evaluates it: its merged record and its mark. */
function pendingInput(pending: PendingRecord): PendingInput {
  return {
    id: pending.id,
    json: { ...pending.record, id: pending.id },
    mark: { state: pending.state, itemIds: pending.itemIds, createdBy: pending.createdBy },
  }
}

export interface BrowseOutbox {
  outbox: Outbox
  events: EventBus
  log?: Logger
}

/** What answers structure and property searches of molecules (the ChemService). */
export interface StructureLists {
  list(connectionId: string, vaultId: number, options: StructureListOptions): Promise<StructurePage>
  /** Scores of structures outside the index (molecules registered offline), null: no match. */
  matchStructures?(
    criterion: StructureCriterion,
    structures: readonly string[],
  ): Promise<(number | null)[]>
}

type Row = RecordRow<RecordKindName>

/**
 * What the UI and the CLI read: vaults, records, links and search, from a connection's cache
 * only; browsing never waits on the network. With the outbox, records show the changes still
 * waiting in it (marked `pending`), evaluated by the cache as if the vault had them already (see
 * `PendingStage`), records created offline come first in their lists, and `records.changed`
 * follows pending changes as they appear and go.
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
      searchable: kind.searchable,
    }))
  }

  /** A page of cached records as typed rows, with the records waiting in the outbox. */
  list(connectionId: string, vaultId: number, kind: string, options: ListOptions): RowPage {
    const cache = this.#runtimes.get(connectionId).cache
    return cache.page(kind, vaultId, options, this.#pendingInputs(connectionId, vaultId, kind))
  }

  /**
   * A whole list for reading in its order a page at a time (exports, `find`), with the records
   * waiting in the outbox as they are now: each comes once, in its pending form, however the
   * outbox changes while the list is read.
   */
  read(connectionId: string, vaultId: number, kind: string, options: ListOptions): ListReader {
    const cache = this.#runtimes.get(connectionId).cache
    return cache.read(kind, vaultId, options, this.#pendingInputs(connectionId, vaultId, kind))
  }

  /** The distinct values of a filterable column among a list's cached records. */
  distinct(
    connectionId: string,
    vaultId: number,
    kind: string,
    column: string,
    options: ListOptions,
  ): DistinctValue[] {
    return this.#runtimes.get(connectionId).cache.distinct(kind, vaultId, column, options)
  }

  /**
   * A page of molecules answering a structure search or property ranges (with the list's text,
   * filters, fields and project), from the local structure index; records show their pending
   * changes. Molecules registered offline (not in the index) that match the structure come first
   * on the first page, as in every list, and are counted (property ranges leave them out: their
   * properties are computed once the vault has them).
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
    const rows = this.#withPending(connectionId, vaultId, 'molecules', page.rows)
    const offline = await this.#offlineMatches(connectionId, vaultId, options)
    if (offline.length === 0) return { ...page, rows }
    return {
      ...page,
      total: page.total + offline.length,
      rows: (options.offset ?? 0) === 0 ? [...offline, ...rows] : rows,
    }
  }

  /**
   * The molecules registered offline (alone or with a new batch) whose structure matches a list's
   * structure search (best score first), among those its text, filters, fields and project
   * allow. They are few: each is matched in a chemistry worker.
   */
  async #offlineMatches(
    connectionId: string,
    vaultId: number,
    options: StructureListOptions,
  ): Promise<Row[]> {
    const structures = this.#structures
    if (!this.#outbox || !options.structure || !structures?.matchStructures) return []
    if (Object.keys(options.properties ?? {}).length > 0 || options.ids !== undefined) return []
    const created = this.#offlineStructures(this.#outbox, connectionId, vaultId)
    if (created.length === 0) return []
    const scores = await structures.matchStructures(
      toCriterion(options.structure),
      created.map((molecule) => molecule.text),
    )
    const matched = created
      .map((molecule, index) => ({ input: molecule.input, score: scores[index] }))
      .filter(
        (match): match is { input: PendingInput; score: number } => typeof match.score === 'number',
      )
      .sort((a, b) => b.score - a.score)
    if (matched.length === 0) return []
    const cache = this.#runtimes.get(connectionId).cache
    const { text, filters, fields, projectId } = options
    const narrowed =
      (text !== undefined && text.trim() !== '') ||
      Object.keys(filters ?? {}).length > 0 ||
      Object.keys(fields ?? {}).length > 0 ||
      projectId !== undefined
    const rows = matched.map(({ input }) => cache.pendingRow('molecules', input))
    if (!narrowed) return rows
    // Records created offline come first in a list: a page as long as them holds those allowed.
    const allowed = new Set(
      cache
        .page(
          'molecules',
          vaultId,
          { text, filters, fields, projectId, limit: matched.length },
          matched.map(({ input }) => input),
        )
        .rows.filter((row) => row.id === null && row.pending)
        .map((row) => row.pending!.createdBy),
    )
    return rows.filter((row) => allowed.has(row.pending?.createdBy ?? null))
  }

  /**
   * The new structures waiting in the outbox, each as the molecule a list shows: a molecule
   * registered offline (`molecule.create`), or the molecule a registration vault makes for a new
   * batch of a new structure (`batch.create`), marked with the batch's item until the vault
   * numbers it.
   */
  #offlineStructures(
    outbox: Outbox,
    connectionId: string,
    vaultId: number,
  ): { input: PendingInput; text: string }[] {
    const molecules = outbox.pendingList(connectionId, vaultId, 'molecules').flatMap((pending) => {
      const text = structureTextOf(pending.record)
      return pending.id === null && text !== null ? [{ input: pendingInput(pending), text }] : []
    })
    const ofNewBatches = outbox.pendingList(connectionId, vaultId, 'batches').flatMap((pending) => {
      const { molecule, ...batch } = pending.record
      const text = isObject(molecule) ? structureTextOf(molecule) : null
      if (pending.id !== null || !isObject(molecule) || text === null) return []
      const json: JsonObject = {
        ...molecule,
        id: null,
        ...(Array.isArray(batch.projects) ? { projects: batch.projects } : {}),
        batches: [batch],
      }
      const mark = { state: pending.state, itemIds: pending.itemIds, createdBy: pending.createdBy }
      return [{ input: { id: null, json, mark }, text }]
    })
    return [...molecules, ...ofNewBatches]
  }

  /**
   * One record with its links, each with its pending changes applied; files waiting to be
   * attached to it are listed among its files.
   */
  get(connectionId: string, vaultId: number, kind: string, id: number): LinkedRecord | null {
    const cache = this.#runtimes.get(connectionId).cache
    const linked = cache.linked(kind, vaultId, id)
    if (!this.#outbox) return linked
    const kindName = recordKind(kind).name
    const own = this.#outbox.pendingFor(connectionId, vaultId, kind, { id })
    const ownRow = own ? cache.pendingRow(kindName, pendingInput(own)) : null
    if (!linked) return ownRow ? { kind: kindName, record: ownRow, links: {} } : null
    const links: LinkedRecord['links'] = {}
    for (const [linkKind, rows] of Object.entries(linked.links) as [RecordKindName, Row[]][]) {
      links[linkKind] = this.#withPending(connectionId, vaultId, linkKind, rows)
    }
    const target = fileTargetOf(linked.kind)
    if (target !== null) {
      const files = this.#pendingInputs(connectionId, vaultId, 'files')
        .filter((file) => file.id === null)
        .map((file) => cache.pendingRow('files', file))
        .filter((file) => file.columns.resource_class === target && file.columns.resource_id === id)
      if (files.length > 0) links.files = [...files, ...(links.files ?? [])]
    }
    return { kind: linked.kind, record: ownRow ?? linked.record, links }
  }

  search(connectionId: string, text: string, options: SearchOptions): SearchResult {
    return this.#runtimes.get(connectionId).cache.search(text, options)
  }

  #pendingInputs(connectionId: string, vaultId: number, kind: string): PendingInput[] {
    if (!this.#outbox) return []
    return this.#outbox.pendingList(connectionId, vaultId, kind).map(pendingInput)
  }

  #withPending(connectionId: string, vaultId: number, kind: RecordKindName, rows: Row[]): Row[] {
    const pending = this.#pendingInputs(connectionId, vaultId, kind)
    if (pending.length === 0) return rows
    const cache = this.#runtimes.get(connectionId).cache
    const changed = new Map(
      pending.flatMap((input) => (input.id === null ? [] : [[input.id, input] as const])),
    )
    return rows.map((row) => {
      const change = row.id === null ? undefined : changed.get(row.id)
      return change ? cache.pendingRow(kind, change) : row
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
      if (target !== null && isAttachTarget(target)) entry.kinds.add(filesShownOn[target])
      byVault.set(key, entry)
    }
    for (const { connectionId, vaultId, kinds } of byVault.values()) {
      pending.events.emit('records.changed', { connectionId, vaultId, kinds: [...kinds] })
    }
  }
}

/** The structure a molecule registered offline was given, as its overlay holds it. */
function structureTextOf(record: JsonObject): string | null {
  for (const member of ['molfile', 'cxsmiles', 'smiles']) {
    const text = toText(record[member])
    if (text !== null && text.trim() !== '') return text
  }
  return null
}
