import { describe, expect, it } from 'vitest'
import type { OutboxItemView } from '../../src-common/outbox/item-view.ts'
import { connectionId, tempFile, useOutboxHarness, waitUntil } from './support/outbox-harness.ts'

const harness = useOutboxHarness()

const nameOnlyTemplate = {
  header_mappings: [
    {
      header: { name: 'Compound', position: 1 },
      definition: { type: 'InternalFieldDefinition::MoleculeName', name: 'Molecule Name' },
    },
  ],
}

function importFile(index: number): string {
  return tempFile(
    `compounds-${index}.csv`,
    `SMILES,Compound\r\nCCO${'C'.repeat(index)},Import ${index} A\r\nc1ccccc1${'C'.repeat(index)},Import ${index} B\r\n`,
  )
}

describe('imports through the outbox', () => {
  it('waits out 429 (too many imports running), then follows every import to its end', async () => {
    const { outbox, cache } = harness.open({ user: 'writer' })
    const vaultId = harness.vaultId
    harness.sim.clock.freeze()
    try {
      const queued: OutboxItemView[] = []
      for (let index = 1; index <= 4; index++) {
        const [item] = await outbox.queue({
          connectionId,
          vaultId,
          operation: 'slurp.create',
          file: importFile(index),
          payload: {
            project: 'Kinase Inhibitors',
            mapping_template: nameOnlyTemplate,
            ambiguous_events_resolution: 'new_molecule',
          },
        })
        queued.push(item!)
      }
      outbox.start()
      await waitUntil('three imports run and the fourth was refused', () => {
        const states = queued.map((item) => outbox.item(item.id))
        return (
          states.filter((item) => item.state === 'sent').length === 3 &&
          states.some((item) => item.state === 'queued' && item.lastError !== null)
        )
      })
      const refused = queued
        .map((item) => outbox.item(item.id))
        .find((item) => item.state === 'queued')!
      expect(refused.lastError).toMatch(/Too many imports/)

      // Time passes on the server: the running imports finish and the fourth gets its turn.
      harness.sim.clock.advance(10_000)
      await waitUntil(
        'the fourth import is sent',
        () => outbox.item(refused.id).state === 'sent',
        30_000,
      )
      harness.sim.clock.advance(10_000)
      await waitUntil('every import has finished', () =>
        queued.every((item) => !outbox.item(item.id).following),
      )
      for (const item of queued) {
        const view = outbox.item(item.id)
        expect(view.result).toMatchObject({
          id: view.serverId,
          state: 'committed',
          import_errors: [],
        })
        expect(cache.get('slurps', vaultId, view.serverId!)).toMatchObject({ state: 'committed' })
      }
      const created = harness.sim.core.db
        .prepare("SELECT COUNT(*) AS count FROM molecules WHERE name LIKE 'Import %'")
        .get() as { count: number }
      expect(created.count).toBe(8)
    } finally {
      harness.sim.clock.resume()
    }
  }, 60_000)

  it('refuses a file an import cannot take, naming it, and queues nothing', async () => {
    const { outbox } = harness.open()
    await expect(
      outbox.queue({
        connectionId,
        vaultId: harness.vaultId,
        operation: 'slurp.create',
        file: tempFile('notes.docx', 'not tabular'),
        payload: { project: 'Kinase Inhibitors' },
      }),
    ).rejects.toThrow(
      'notes.docx cannot be imported: an import takes .csv, .sdf, .xlsx, .zip files.',
    )
    expect(outbox.counts().pending).toBe(0)
  })
})
