import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type { Services } from '../../src-main/services/index.ts'
import type { OutboxItemView } from '../../src-common/outbox/item-view.ts'
import type { PendingRecord } from '../../src-main/sync/outbox/pending-records.ts'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { recordEvents, testServices } from '../services/support.ts'
import { removeTempFiles, tempFile, waitUntil } from './support/outbox-harness.ts'

let sim: VaultSim
let services: Services
let dispose: () => Promise<void>
let dispatch: Dispatch

beforeAll(async () => {
  sim = await startVaultSim({ port: 0, seed: 10 })
})
afterAll(async () => {
  await sim.stop()
  removeTempFiles()
})
beforeEach(() => {
  ;({ services, dispose } = testServices({
    outbox: { retry: { baseDelayMs: 5, maxDelayMs: 40 }, pollMs: 50 },
  }))
  dispatch = createDispatcher(createHandlers(services), services.log)
})
afterEach(() => dispose())

async function call<T>(channel: string, args: unknown): Promise<T> {
  const result = await dispatch(channel, args)
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`)
  return result.value as T
}

async function connect(): Promise<string> {
  const added = await call<{ connection: { id: string } }>('connections.add', {
    name: 'Lab',
    baseUrl: sim.baseUrl,
    token: sim.cast.users.writer.tokens[0],
    sessionOnly: true,
  })
  return added.connection.id
}

describe('the outbox through the contract', () => {
  it('queues a file by its local path, shows it pending, and sends it with events and status', async () => {
    const connectionId = await connect()
    const vaultId = sim.cast.vaults.main.id
    const moleculeId = (
      sim.core.db.prepare('SELECT MIN(id) AS id FROM molecules').get() as { id: number }
    ).id
    const events = recordEvents(services)
    const [item] = await call<OutboxItemView[]>('outbox.queue', {
      connectionId,
      vaultId,
      operation: 'file.attach',
      file: tempFile('gel.png', 'a gel image'),
      target: { kind: 'molecule', ref: { id: moleculeId } },
    })
    expect(item).toMatchObject({ state: 'queued', file: { name: 'gel.png', size: 11 } })
    const pending = await call<PendingRecord[]>('outbox.pendingList', {
      connectionId,
      vaultId,
      kind: 'files',
    })
    expect(pending[0]?.record).toMatchObject({
      name: 'gel.png',
      resource_class: 'molecule',
      resource_id: moleculeId,
    })
    expect(services.status.current().outboxPending).toBe(1)

    services.outbox.start()
    await waitUntil('the file is sent', async () => {
      const [current] = await call<OutboxItemView[]>('outbox.list', { states: ['sent'] })
      return current?.id === item!.id
    })
    await waitUntil(
      'the top bar counts nothing pending',
      () => services.status.current().outboxPending === 0,
    )
    expect(events.some((event) => event.name === 'outbox.changed')).toBe(true)
    expect(await call('outbox.counts', {})).toMatchObject({ pending: 0, queued: 0 })
    const [sent] = await call<OutboxItemView[]>('outbox.list', { states: ['sent'] })
    // The server's answer is in the cache at once, before any pull.
    const cached = await dispatch('records.get', {
      connectionId,
      vaultId,
      kind: 'files',
      id: sent!.serverId,
    })
    expect(cached).toMatchObject({ ok: true, value: { record: { json: { name: 'gel.png' } } } })
  })

  it('answers bad arguments with a clear error naming the member, and queues nothing', async () => {
    const connectionId = await connect()
    const refused = await dispatch('outbox.queue', {
      connectionId,
      vaultId: sim.cast.vaults.main.id,
      operation: 'readout.update',
      payload: { row: 5, readouts: { 12: { value: 3, note: 'not writable' } } },
    })
    expect(refused).toEqual({
      ok: false,
      error: {
        code: 'invalid_argument',
        message: expect.stringContaining('readouts.12: Unrecognized key: "note"'),
      },
    })
    const unknown = await dispatch('outbox.queue', {
      connectionId,
      vaultId: 1,
      operation: 'delete.everything',
    })
    expect(unknown).toMatchObject({ ok: false, error: { code: 'invalid_argument' } })
    expect(await call('outbox.counts', {})).toMatchObject({ pending: 0 })
  })
})
