import type { Database } from 'better-sqlite3'
import type { RequestContext } from '../../core/context.ts'
import type { VaultAccess } from '../../core/sim-core.ts'
import { formatMicros } from '../../core/dates.ts'
import type { RecordExportable } from '../../core/exports/exportable.ts'
import { invalid, missingIds, notFound, unprocessable } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import { envelope, readPageUnlessExporting, type Page } from '../../core/pagination.ts'
import type { Params } from '../../core/params.ts'
import { SqlWhere } from '../../core/sql-where.ts'
import { parseWellLabel, wellLabel } from '../../pure/well-positions.ts'
import { checkFieldValues, mergeFieldValues, type FieldValue } from '../fields.ts'
import { readableProjects, requireEditable, userName, userRef } from './access-rules.ts'
import { startCheckedExport } from './async-exports.ts'
import { locationOf, requireInventory, type LocationRow } from './inventory-locations.ts'

/**
 * Inventory samples: tracked amounts of a batch. The current amount is the credits minus the
 * debits of the sample's events; a sample starts with a credit of its initial amount, and each
 * update adds or changes at most one event. Timestamps keep microseconds.
 */

const schema = `
CREATE TABLE IF NOT EXISTS inventory_samples (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  batch_id INTEGER NOT NULL REFERENCES batches(id),
  units TEXT NOT NULL,
  location_id INTEGER REFERENCES inventory_locations(id),
  position TEXT,
  fields TEXT NOT NULL DEFAULT '{}',
  owner_id INTEGER NOT NULL REFERENCES users(id),
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS inventory_samples_by_batch ON inventory_samples (batch_id);

CREATE TABLE IF NOT EXISTS inventory_events (
  id INTEGER PRIMARY KEY,
  sample_id INTEGER NOT NULL REFERENCES inventory_samples(id) ON DELETE CASCADE,
  event_type TEXT NOT NULL CHECK (event_type IN ('Credit', 'Debit')),
  amount REAL NOT NULL CHECK (amount > 0),
  note TEXT,
  user_id INTEGER NOT NULL REFERENCES users(id),
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL
);
`

const SAMPLE_UNITS = [
  'g',
  'mg',
  'µg',
  'kg',
  'L',
  'mL',
  'µL',
  'M',
  'mM',
  'µM',
  'nM',
  'count',
] as const
const EVENT_TYPES = ['Credit', 'Debit'] as const

interface SampleRow {
  id: number
  vault_id: number
  batch_id: number
  units: string
  location_id: number | null
  position: string | null
  fields: string
  owner_id: number
  created_at: number
  modified_at: number
}

interface EventRow {
  id: number
  sample_id: number
  event_type: 'Credit' | 'Debit'
  amount: number
  note: string | null
  user_id: number
  created_at: number
  modified_at: number
}

interface EventInput {
  id?: number
  eventType?: 'Credit' | 'Debit'
  amount?: number
  note?: string
}

/** Samples of batches in projects the user reads. */
const VISIBLE = `EXISTS (SELECT 1 FROM batch_projects WHERE batch_projects.batch_id = inventory_samples.batch_id
  AND batch_projects.project_id IN (SELECT value FROM json_each(?)))`

function eventsOf(db: Database, sampleId: number): EventRow[] {
  return db
    .prepare(`SELECT * FROM inventory_events WHERE sample_id = ? ORDER BY created_at, id`)
    .all(sampleId) as EventRow[]
}

function balance(events: readonly Pick<EventRow, 'event_type' | 'amount'>[]): number {
  const total = events.reduce(
    (sum, event) => sum + (event.event_type === 'Credit' ? event.amount : -event.amount),
    0,
  )
  return Number(total.toFixed(9))
}

function sampleRecord(
  access: VaultAccess,
  row: SampleRow,
  withOwnerId: boolean,
): Record<string, unknown> {
  const db = access.db
  const events = eventsOf(db, row.id)
  const location = row.location_id ? locationOf(access, row.location_id) : undefined
  const owner = (userId: number): Record<string, unknown> => ({
    owner: userName(db, userId),
    ...(withOwnerId ? { owner_id: userRef(db, userId) } : {}),
  })
  return {
    id: row.id,
    class: 'inventory sample',
    batch_id: row.batch_id,
    units: row.units,
    current_amount: balance(events),
    location: location ? { id: location.id, value: location.name, position: row.position } : null,
    fields: JSON.parse(row.fields) as Record<string, unknown>,
    ...owner(row.owner_id),
    inventory_events: events.map((event) => ({
      id: event.id,
      event_type: event.event_type,
      amount: event.amount,
      ...(event.note ? { note: event.note } : {}),
      ...owner(event.user_id),
      created_at: formatMicros(event.created_at),
      modified_at: formatMicros(event.modified_at),
    })),
    created_at: formatMicros(row.created_at),
    modified_at: formatMicros(row.modified_at),
  }
}

function visibleSample(access: VaultAccess, id: number): SampleRow {
  const row = access.db
    .prepare(`SELECT * FROM inventory_samples WHERE id = ? AND vault_id = ? AND ${VISIBLE}`)
    .get(id, access.vault.id, readableProjects(access)) as SampleRow | undefined
  if (!row) throw notFound(`Inventory sample ${id}`)
  return row
}

function batchProjectIds(db: Database, batchId: number): number[] {
  return (
    db.prepare(`SELECT project_id FROM batch_projects WHERE batch_id = ?`).all(batchId) as {
      project_id: number
    }[]
  ).map((row) => row.project_id)
}

interface SampleQuery {
  ids: number[]
  page: Page
  withOwnerId: boolean
}

function readSampleQuery(access: VaultAccess, params: Params): SampleQuery {
  const page = readPageUnlessExporting(params)
  const withOwnerId = params.boolean('owner_id', false)
  const projects = params.ids('projects')
  const readable = JSON.stringify(
    projects ? projects.filter((id) => access.canReadProject(id)) : access.projectIds,
  )
  const where = new SqlWhere().add(`vault_id = ?`, access.vault.id).add(VISIBLE, readable)
  const batchIds = params.ids('batch_ids')
  if (batchIds) where.ids('batch_id', batchIds)
  const sampleIds = params.ids('inventory_sample_ids')
  if (sampleIds) where.ids('id', sampleIds)
  where.dateRange(params, 'created', 'created_at', 'microsecond')
  where.dateRange(params, 'modified', 'modified_at', 'microsecond')
  params.ignore('async', 'format')
  params.rejectUnknown()
  const ids = (
    access.db
      .prepare(`SELECT id FROM inventory_samples${where} ORDER BY id`)
      .all(...where.args) as { id: number }[]
  ).map((row) => row.id)
  if (sampleIds) {
    const found = new Set(
      (
        access.db
          .prepare(
            `SELECT id FROM inventory_samples WHERE vault_id = ? AND ${VISIBLE}
             AND id IN (SELECT value FROM json_each(?))`,
          )
          .all(access.vault.id, readableProjects(access), JSON.stringify(sampleIds)) as {
          id: number
        }[]
      ).map((row) => row.id),
    )
    const missing = sampleIds.filter((id) => !found.has(id))
    if (missing.length > 0) throw missingIds('Inventory samples', missing)
  }
  return { ids, page, withOwnerId }
}

function samplesByIds(
  access: VaultAccess,
  ids: readonly number[],
  withOwnerId: boolean,
): Record<string, unknown>[] {
  const rows = access.db
    .prepare(
      `SELECT * FROM inventory_samples WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`,
    )
    .all(JSON.stringify(ids)) as SampleRow[]
  return rows.map((row) => sampleRecord(access, row, withOwnerId))
}

const sampleExport: RecordExportable = {
  kind: 'inventory_samples',
  formats: ['json', 'csv'],
  *pages(access, params) {
    requireInventory(access)
    const query = readSampleQuery(access, params)
    for (let start = 0; start < query.ids.length; start += 500) {
      yield samplesByIds(access, query.ids.slice(start, start + 500), query.withOwnerId)
    }
  },
}

async function listSamples(ctx: RequestContext): Promise<unknown> {
  requireInventory(ctx.access)
  const params = await ctx.input()
  if (params.boolean('async', false)) {
    return startCheckedExport(ctx, 'inventory_samples', params, params.string('format'), (copy) =>
      readSampleQuery(ctx.access, copy),
    )
  }
  const query = readSampleQuery(ctx.access, params)
  const { offset, pageSize } = query.page
  return envelope(
    query.ids.length,
    query.page,
    samplesByIds(ctx.access, query.ids.slice(offset, offset + pageSize), query.withOwnerId),
  )
}

function readEvent(item: Params, member: string, isNew: boolean): EventInput {
  const id = item.integer('id', { min: 1 })
  const eventType = item.oneOf('event_type', EVENT_TYPES)
  const amount = item.number('amount')
  const note = item.string('note', { allowEmpty: true })
  item.ignore('owner', 'owner_id', 'created_at', 'modified_at')
  item.rejectUnknown()
  if (amount !== undefined && amount <= 0)
    throw invalid(`${member}.amount`, `must be positive, got ${amount}`)
  if ((isNew || id === undefined) && (eventType === undefined || amount === undefined)) {
    throw invalid(member, 'a new inventory event needs event_type (Credit or Debit) and amount')
  }
  return {
    ...(id !== undefined ? { id } : {}),
    ...(eventType !== undefined ? { eventType } : {}),
    ...(amount !== undefined ? { amount } : {}),
    ...(note !== undefined ? { note } : {}),
  }
}

/**
 * A sample's custom fields, checked against the vault's inventory sample field definitions as
 * molecule and batch fields are against theirs; a null or empty value clears a field.
 */
function readFields(
  access: VaultAccess,
  params: Params,
): Record<string, FieldValue | null> | undefined {
  const fields = params.record('fields')
  if (!fields) return undefined
  return checkFieldValues(access.db, access.vault.id, 'inventory_sample', fields, 'fields')
}

/** Checks a location and position; positions on grid locations are labels such as A01. */
function readPlacement(
  access: VaultAccess,
  locationId: number | null,
  position: string | null,
  sampleId: number | undefined,
): { location: LocationRow | undefined; position: string | null } {
  if (locationId === null) {
    if (position !== null) throw invalid('position', 'needs a location_id')
    return { location: undefined, position: null }
  }
  const location = locationOf(access, locationId)
  if (!location)
    throw invalid('location_id', `${locationId} is not an inventory location of this vault`)
  const others = access.db
    .prepare(`SELECT position FROM inventory_samples WHERE location_id = ? AND id != ?`)
    .all(location.id, sampleId ?? 0) as { position: string | null }[]
  if (location.position_limit !== null && others.length >= location.position_limit) {
    throw unprocessable(
      `Inventory location ${location.id} is full (${location.position_limit} samples)`,
    )
  }
  if (position === null || !location.num_rows || !location.num_columns)
    return { location, position }
  const grid = {
    size: location.num_rows * location.num_columns,
    rows: location.num_rows,
    columns: location.num_columns,
  }
  const parsed = parseWellLabel(position, grid)
  if (!parsed) {
    throw invalid(
      'position',
      `${JSON.stringify(position)} is not a position of location ${location.id} (${grid.rows} x ${grid.columns})`,
    )
  }
  const label = wellLabel(parsed, grid)
  if (others.some((other) => other.position === label)) {
    throw invalid('position', `${label} of location ${location.id} already holds a sample`)
  }
  return { location, position: label }
}

async function createSample(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  requireInventory(access)
  const params = await ctx.input()
  const batchId = params.integer('batch_id', { min: 1, required: true }) as number
  const units = params.oneOf('units', SAMPLE_UNITS)
  if (units === undefined) throw invalid('units', `is required: one of ${SAMPLE_UNITS.join(', ')}`)
  const locationId = params.integer('location_id', { min: 1 }) ?? null
  const position = params.string('position') ?? null
  const fields = mergeFieldValues({}, readFields(access, params) ?? {})
  const events = params.objects('inventory_events') ?? []
  params.ignore(
    'id',
    'class',
    'current_amount',
    'location',
    'owner',
    'owner_id',
    'created_at',
    'modified_at',
  )
  params.rejectUnknown()
  const batch = access.db
    .prepare(`SELECT id FROM batches WHERE id = ? AND vault_id = ?`)
    .get(batchId, access.vault.id) as { id: number } | undefined
  const projects = batch ? batchProjectIds(access.db, batch.id) : []
  if (!batch || !projects.some((id) => access.canReadProject(id))) {
    throw invalid('batch_id', `${batchId} is not a batch of this vault`)
  }
  requireEditable(access, projects, `the inventory of batch ${batchId}`)
  if (events.length !== 1) {
    throw invalid(
      'inventory_events',
      `must hold exactly one Credit event with the initial amount, got ${events.length} events`,
    )
  }
  const initial = readEvent(events[0]!, 'inventory_events[0]', true)
  if (initial.eventType !== 'Credit') {
    throw invalid(
      'inventory_events[0].event_type',
      'must be Credit: a sample starts with a credit of its initial amount',
    )
  }
  const placement = readPlacement(access, locationId, position, undefined)
  const now = ctx.sim.clock.nowMicros()
  const id = ctx.db.transaction(() => {
    const sampleId = Number(
      ctx.db
        .prepare(
          `INSERT INTO inventory_samples (vault_id, batch_id, units, location_id, position, fields, owner_id, created_at, modified_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          access.vault.id,
          batchId,
          units,
          placement.location?.id ?? null,
          placement.position,
          JSON.stringify(fields),
          ctx.user.id,
          now,
          now,
        ).lastInsertRowid,
    )
    ctx.db
      .prepare(
        `INSERT INTO inventory_events (sample_id, event_type, amount, note, user_id, created_at, modified_at)
         VALUES (?, 'Credit', ?, ?, ?, ?, ?)`,
      )
      .run(sampleId, initial.amount, initial.note ?? null, ctx.user.id, now, now)
    return sampleId
  })()
  return sampleRecord(access, visibleSample(access, id), false)
}

async function updateSample(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  requireInventory(access)
  const row = visibleSample(access, ctx.pathId('id'))
  requireEditable(access, batchProjectIds(ctx.db, row.batch_id), `inventory sample ${row.id}`)
  const params = await ctx.input()
  const bodyId = params.integer('id')
  if (bodyId !== undefined && bodyId !== row.id)
    throw invalid('id', `must equal the id in the path (${row.id}), got ${bodyId}`)
  const batchId = params.integer('batch_id')
  if (batchId !== undefined && batchId !== row.batch_id) {
    throw invalid('batch_id', 'cannot change: a sample stays with its batch')
  }
  const units = params.oneOf('units', SAMPLE_UNITS)
  const locationId = params.has('location_id')
    ? (params.integer('location_id', { min: 1 }) ?? null)
    : undefined
  const position = params.has('position') ? (params.string('position') ?? null) : undefined
  const fields = readFields(access, params)
  const events = params.objects('inventory_events')
  params.ignore(
    'class',
    'current_amount',
    'location',
    'owner',
    'owner_id',
    'created_at',
    'modified_at',
  )
  params.rejectUnknown()
  if (events && events.length > 1) {
    throw invalid(
      'inventory_events',
      `may add or change at most one event per update, got ${events.length}`,
    )
  }
  const change = events?.[0] ? readEvent(events[0], 'inventory_events[0]', false) : undefined
  const existing = eventsOf(ctx.db, row.id)
  if (change?.id !== undefined && !existing.some((event) => event.id === change.id)) {
    throw invalid(
      'inventory_events[0].id',
      `${change.id} is not an event of inventory sample ${row.id}`,
    )
  }
  const after = change
    ? change.id === undefined
      ? [...existing, { event_type: change.eventType!, amount: change.amount! }]
      : existing.map((event) =>
          event.id === change.id
            ? {
                event_type: change.eventType ?? event.event_type,
                amount: change.amount ?? event.amount,
              }
            : event,
        )
    : existing
  if (balance(after) < 0) {
    throw unprocessable(
      `The event would leave inventory sample ${row.id} with a negative amount (${balance(after)} ${units ?? row.units})`,
    )
  }
  const placement =
    locationId !== undefined || position !== undefined
      ? readPlacement(
          access,
          locationId === undefined ? row.location_id : locationId,
          position === undefined ? row.position : position,
          row.id,
        )
      : undefined
  const now = ctx.sim.clock.nowMicros()
  ctx.db.transaction(() => {
    ctx.db
      .prepare(
        `UPDATE inventory_samples SET units = ?, location_id = ?, position = ?, fields = ?, modified_at = ? WHERE id = ?`,
      )
      .run(
        units ?? row.units,
        placement ? (placement.location?.id ?? null) : row.location_id,
        placement ? placement.position : row.position,
        JSON.stringify(
          mergeFieldValues(JSON.parse(row.fields) as Record<string, FieldValue>, fields ?? {}),
        ),
        now,
        row.id,
      )
    if (change?.id === undefined && change) {
      ctx.db
        .prepare(
          `INSERT INTO inventory_events (sample_id, event_type, amount, note, user_id, created_at, modified_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(row.id, change.eventType, change.amount, change.note ?? null, ctx.user.id, now, now)
    } else if (change) {
      const event = existing.find((candidate) => candidate.id === change.id)!
      ctx.db
        .prepare(
          `UPDATE inventory_events SET event_type = ?, amount = ?, note = ?, modified_at = ? WHERE id = ?`,
        )
        .run(
          change.eventType ?? event.event_type,
          change.amount ?? event.amount,
          change.note ?? event.note,
          now,
          event.id,
        )
    }
  })()
  return sampleRecord(access, visibleSample(access, row.id), false)
}

async function deleteSample(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  requireInventory(access)
  const row = visibleSample(access, ctx.pathId('id'))
  requireEditable(access, batchProjectIds(ctx.db, row.batch_id), `inventory sample ${row.id}`)
  const ties = ctx.db
    .prepare(
      `SELECT (SELECT COUNT(*) FROM readout_rows WHERE sample_id = ?) AS readouts,
              (SELECT COUNT(*) FROM plate_wells WHERE sample_id = ?) AS wells`,
    )
    .get(row.id, row.id) as { readouts: number; wells: number }
  if (ties.readouts > 0 || ties.wells > 0) {
    const what = [
      ...(ties.readouts > 0 ? [`${ties.readouts} readout rows of a protocol`] : []),
      ...(ties.wells > 0 ? [`${ties.wells} plate wells`] : []),
    ].join(' and ')
    throw unprocessable(`Inventory sample ${row.id} is used by ${what} and cannot be deleted`)
  }
  ctx.db.prepare(`DELETE FROM inventory_samples WHERE id = ?`).run(row.id)
  return { message: `Inventory sample ${row.id} has been destroyed` }
}

export const inventorySamplesModule: SimModule = {
  name: 'inventory samples',
  schema,
  routes(router) {
    router.query('/vaults/{vault_id}/inventory_samples', listSamples)
    router.post('/vaults/{vault_id}/inventory_samples', createSample, { write: true })
    router.get('/vaults/{vault_id}/inventory_samples/{id}', async (ctx) => {
      requireInventory(ctx.access)
      const params = await ctx.input()
      const withOwnerId = params.boolean('owner_id', false)
      params.rejectUnknown()
      return sampleRecord(ctx.access, visibleSample(ctx.access, ctx.pathId('id')), withOwnerId)
    })
    router.put('/vaults/{vault_id}/inventory_samples/{id}', updateSample, { write: true })
    router.delete('/vaults/{vault_id}/inventory_samples/{id}', deleteSample, { write: true })
  },
  exportables: [sampleExport],
  dependentData: {
    batch: (db, batchId) => {
      const { count } = db
        .prepare(`SELECT COUNT(*) AS count FROM inventory_samples WHERE batch_id = ?`)
        .get(batchId) as { count: number }
      return count > 0 ? `${count} inventory samples` : undefined
    },
  },
}
