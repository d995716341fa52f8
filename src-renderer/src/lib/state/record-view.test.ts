import { describe, expect, it } from 'vitest'
import type { LinkedCachedRecord } from '../bridge.ts'
import { settle } from '../testing/bridge-double.ts'
import { itemView } from '../testing/outbox-items.ts'
import { quietBridge } from '../testing/quiet-bridge.ts'
import { rowOf } from '../testing/rows.ts'
import { RecordView } from './record-view.svelte.ts'

const address = { connectionId: 'c1', vaultId: 1, kind: 'molecules' as const, id: 7 }

describe('RecordView', () => {
  it('reads the record, and again when sync changes a kind the page shows', async () => {
    let linked: LinkedCachedRecord | null = null
    const bridge = quietBridge().answer('records.get', async () => ({ ok: true, value: linked }))
    const view = new RecordView(bridge, address)
    const stop = view.start()
    await settle()
    expect(view.state).toEqual({ status: 'missing' })

    linked = {
      kind: 'molecules',
      record: rowOf('molecules', { id: 7, name: 'VD-000007' }),
      links: { batches: [] },
    }
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 1, kinds: ['molecules'] })
    await settle()
    expect(view.state).toEqual({ status: 'found', linked })

    const reads = () => bridge.calls.filter((call) => call.channel === 'records.get').length
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 1, kinds: ['batches'] })
    await settle()
    expect(reads()).toBe(3)
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 1, kinds: ['plates'] })
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 2, kinds: ['molecules'] })
    await settle()
    expect(reads()).toBe(3)
    stop()
    expect(bridge.listenerCount('records.changed')).toBe(0)
  })

  it('says why a record could not be read', async () => {
    const bridge = quietBridge().answer('records.get', async () => ({
      ok: false,
      error: { code: 'storage', message: 'The cache is locked.' },
    }))
    const view = new RecordView(bridge, address)
    view.start()
    await settle()
    expect(view.state).toEqual({ status: 'failed', message: 'The cache is locked.' })
  })

  it('finds the molecule of a batch the cache read from inside its molecule', async () => {
    const batch = rowOf('batches', { id: 12, molecule_batch_identifier: 'VD-000004-002' })
    const molecule = rowOf('molecules', {
      id: 4,
      name: 'VD-000004',
      batches: [{ id: 11 }, { id: 12 }],
    })
    const bridge = quietBridge()
      .answer('records.get', async () => ({
        ok: true,
        value: { kind: 'batches', record: batch, links: { molecules: [] } },
      }))
      .answer('records.list', async () => ({
        ok: true,
        value: {
          kind: 'molecules',
          total: 2,
          rows: [rowOf('molecules', { id: 9, batches: [{ id: 1 }] }), molecule],
        },
      }))
    const view = new RecordView(bridge, { ...address, kind: 'batches', id: 12 })
    view.start()
    await settle()
    expect(view.state.status === 'found' && view.state.linked.links.molecules).toEqual([molecule])
    expect(bridge.calls.at(-1)?.args).toMatchObject({ kind: 'molecules', text: 'VD-000004-002' })
  })

  it('reads an entry written offline from the outbox, and follows it to its server id', async () => {
    type Pending = {
      kind: string
      id: number | null
      createdBy: number
      state: 'queued'
      itemIds: number[]
      record: Record<string, unknown>
    }
    let pending: Pending | null = {
      kind: 'eln_entries',
      id: null,
      createdBy: 7,
      state: 'queued',
      itemIds: [7, 8],
      record: { name: 'Offline notes', status: 'open' },
    }
    let history = [itemView({ id: 7, state: 'sent', serverId: 31 })]
    const bridge = quietBridge()
      .answer('outbox.pending', async () => ({ ok: true, value: pending }))
      .answer('outbox.history', async () => ({ ok: true, value: history }))
    const draft = { ...address, kind: 'eln_entries' as const, id: 0, item: 7 }
    const view = new RecordView(bridge, draft)
    view.start()
    await settle()
    expect(view.state).toEqual({
      status: 'found',
      linked: {
        kind: 'eln_entries',
        record: {
          kind: 'eln_entries',
          id: null,
          columns: {
            name: 'Offline notes',
            created_at: null,
            modified_at: null,
            status: 'open',
            author_id: null,
            author: null,
            project_id: null,
          },
          json: { name: 'Offline notes', status: 'open' },
          pending: { state: 'queued', itemIds: [7, 8], createdBy: 7 },
        },
        links: {},
      },
    })
    expect(bridge.calls.at(-1)?.args).toEqual({
      connectionId: 'c1',
      vaultId: 1,
      kind: 'eln_entries',
      ref: { item: 7 },
    })

    pending = null
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 1, kinds: ['eln_entries'] })
    await settle()
    expect(view.state).toEqual({ status: 'moved', id: 31 })

    history = [itemView({ id: 7, state: 'cancelled' })]
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 1, kinds: ['eln_entries'] })
    await settle()
    expect(view.state).toEqual({ status: 'discarded' })
  })
})
