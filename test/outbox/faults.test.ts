import { describe, expect, it } from 'vitest'
import { batchesIn, buildDoseResponse } from '../sim/domain/assay-fixture.ts'
import {
  byState,
  connectionId,
  settled,
  tempFile,
  useOutboxHarness,
  waitUntil,
} from './support/outbox-harness.ts'

const harness = useOutboxHarness()

function uploadedNames(): string[] {
  const rows = harness.sim.core.db.prepare('SELECT name FROM uploaded_files').all() as {
    name: string
  }[]
  return rows.map((row) => row.name)
}

describe('sending through faults', () => {
  it('delivers 200 queued uploads under a 20% rate of 5xx, each once, within the limits', async () => {
    const { outbox } = harness.open()
    const molecules = harness.moleculeIds(40)
    for (let index = 0; index < 200; index++) {
      await outbox.queue({
        connectionId,
        vaultId: harness.vaultId,
        operation: 'file.attach',
        file: tempFile(`reading-${index}.csv`, `well,value\nA01,${index}\n`),
        target: { kind: 'molecule', ref: { id: molecules[index % molecules.length]! } },
      })
    }
    harness.sim.resetStats()
    harness.sim.faults.set({ serverErrorRate: 0.2, seed: 7 })
    outbox.start()
    await settled(outbox)

    expect(
      byState(outbox.list({ states: ['sent', 'queued', 'needs_attention', 'uncertain'] })),
    ).toEqual({
      sent: 200,
    })
    const names = uploadedNames().filter((name) => name.startsWith('reading-'))
    expect(names).toHaveLength(200)
    expect(new Set(names).size).toBe(200)
    expect(harness.sim.stats.injected.serverErrors).toBeGreaterThan(10)
    expect(harness.sim.stats.concurrencyRejections).toBe(0)
  }, 120_000)

  it('settles a correction whose answer was lost by reading the row: sent once, not again', async () => {
    const batches = batchesIn(harness.sim, harness.sim.cast.projects.kinase.id)
    const assay = buildDoseResponse(harness.sim, {
      projectId: harness.sim.cast.projects.kinase.id,
      name: 'Dropped answers assay',
      curves: [{ batchId: batches[1]!.id, ic50: 3 }],
    })
    const rowId = (
      harness.sim.core.db
        .prepare(
          'SELECT id FROM readout_rows WHERE run_id = ? AND batch_id IS NOT NULL ORDER BY id LIMIT 1',
        )
        .get(assay.runId) as { id: number }
    ).id
    const { outbox } = harness.open()
    const [item] = await outbox.queue({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'readout.update',
      payload: { row: rowId, readouts: { [assay.responseId]: { outlier: true } } },
    })
    harness.sim.resetStats()
    // The server does the work, then the connection breaks before the answer is read.
    harness.sim.faults.set({ dropRate: 1, match: /^PUT /, seed: 3 })
    outbox.start()
    // The server's count, not the item's doubt: that may last less than one look (a retry is
    // due within 5 ms here, and its look-up finds the change at once).
    await waitUntil('the first attempt broke off', () => harness.sim.stats.injected.drops > 0)
    harness.sim.faults.clear()
    await settled(outbox)
    expect(outbox.item(item!.id)).toMatchObject({ state: 'sent', inDoubt: false })
    expect(harness.sim.stats.injected.drops).toBe(1)
    expect(
      harness.sim.stats.byOperation['PUT /vaults/{vault_id}/readout_rows/{readout_row_id}'],
    ).toBe(1)
  })

  it('pauses a connection whose token is refused, asks for a new one, and resumes with it', async () => {
    const client = harness.client('writer')
    client.setToken('not-a-valid-token')
    const { outbox, events } = harness.open({ client })
    const [item] = await outbox.queue({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'collection.create',
      payload: { name: 'Paused until a new token' },
    })
    outbox.start()
    await waitUntil('the outbox asked for a new token', () =>
      events.some((event) => event.name === 'connections.needsToken'),
    )
    await outbox.flush()
    expect(outbox.item(item!.id)).toMatchObject({ state: 'queued', lastError: expect.any(String) })
    expect(events.find((event) => event.name === 'connections.needsToken')?.payload).toMatchObject({
      connectionId,
      name: 'Lab vault',
    })

    client.setToken(harness.token('writer'))
    outbox.resume(connectionId)
    await waitUntil('the item is sent', () => outbox.item(item!.id).state === 'sent')
  })

  it('attaches a file dropped onto a readout row to the row’s run', async () => {
    const batches = batchesIn(harness.sim, harness.sim.cast.projects.kinase.id)
    const assay = buildDoseResponse(harness.sim, {
      projectId: harness.sim.cast.projects.kinase.id,
      name: 'Row drop assay',
      curves: [{ batchId: batches[2]!.id, ic50: 2 }],
    })
    const rowId = (
      harness.sim.core.db
        .prepare('SELECT id FROM readout_rows WHERE run_id = ? ORDER BY id LIMIT 1')
        .get(assay.runId) as { id: number }
    ).id
    const { outbox } = harness.open()
    const [item] = await outbox.queue({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'file.attach',
      file: tempFile('plate-photo.png', 'not really a png'),
      target: { kind: 'readout_row', ref: { id: rowId } },
    })
    expect(item!.payload).toEqual({ target: { kind: 'run', ref: { id: assay.runId } } })
    outbox.start()
    await settled(outbox)
    const file = harness.sim.core.db
      .prepare('SELECT resource_class, resource_id FROM uploaded_files WHERE name = ?')
      .get('plate-photo.png')
    expect(file).toEqual({ resource_class: 'run', resource_id: assay.runId })
  })
})
