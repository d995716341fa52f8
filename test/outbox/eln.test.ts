import { describe, expect, it } from 'vitest'
import {
  connectionId,
  settled,
  tempFile,
  useOutboxHarness,
  waitUntil,
} from './support/outbox-harness.ts'

const harness = useOutboxHarness()

function entryRow(id: number) {
  return harness.sim.core.db
    .prepare('SELECT title, status, body, witness_id FROM eln_entries WHERE id = ?')
    .get(id) as { title: string; status: string; body: string; witness_id: number | null }
}

describe('ELN entries through the outbox', () => {
  it('creates an entry offline, appends text and a file to it, and submits it, in order', async () => {
    const { outbox } = harness.open()
    const vaultId = harness.vaultId
    const [create] = await outbox.queue({
      connectionId,
      vaultId,
      operation: 'eln.create',
      payload: { title: 'Suzuki coupling, batch 7', project: harness.sim.cast.projects.kinase.id },
    })
    const entry = { item: create!.id }
    const queued = await outbox.queue({
      connectionId,
      vaultId,
      operation: 'eln.append',
      entry,
      body: [
        { type: 'text', text: 'Yield 82 %, white solid.' },
        { type: 'file', path: tempFile('tlc.txt', 'Rf 0.4 in 3:1 hexane/EtOAc') },
        { type: 'link', url: 'https://example.org/protocols/suzuki', label: 'Protocol' },
      ],
    })
    expect(queued.map((item) => item.operation)).toEqual(['file.attach', 'eln.append'])
    await outbox.queue({
      connectionId,
      vaultId,
      operation: 'eln.status',
      payload: { entry, status_action: 'submit', witness: harness.sim.cast.users.writer.id },
    })
    const pending = outbox.pendingList(connectionId, vaultId, 'eln_entries')
    expect(pending).toHaveLength(1)
    expect(pending[0]!.record).toMatchObject({
      name: 'Suzuki coupling, batch 7',
      status: 'submitted',
      body: [
        { type: 'text', text: 'Yield 82 %, white solid.' },
        { type: 'file', file: { item: queued[0]!.id } },
        { type: 'link', url: 'https://example.org/protocols/suzuki', label: 'Protocol' },
      ],
    })

    outbox.start()
    await settled(outbox)

    const entryId = outbox.item(create!.id).serverId!
    const fileId = outbox.item(queued[0]!.id).serverId!
    const row = entryRow(entryId)
    expect(row.status).toBe('submitted')
    expect(row.witness_id).toBe(harness.sim.cast.users.writer.id)
    expect(JSON.parse(row.body)).toEqual([
      { type: 'text', text: 'Yield 82 %, white solid.' },
      { type: 'file', file: fileId, name: 'tlc.txt' },
      { type: 'link', url: 'https://example.org/protocols/suzuki', label: 'Protocol' },
    ])
    expect(
      harness.sim.core.db
        .prepare('SELECT resource_class, resource_id FROM uploaded_files WHERE id = ?')
        .get(fileId),
    ).toEqual({ resource_class: 'eln_entry', resource_id: entryId })
  })

  it('detects an edit of an entry changed on the server since editing began', async () => {
    const { outbox, cache } = harness.open()
    const vaultId = harness.vaultId
    const [create] = await outbox.queue({
      connectionId,
      vaultId,
      operation: 'eln.create',
      payload: { title: 'Crystallisation trials', project: 'Kinase Inhibitors' },
    })
    await outbox.queue({
      connectionId,
      vaultId,
      operation: 'eln.update',
      payload: { entry: { item: create!.id }, eln_fields: { Solvent: 'EtOH' } },
    })
    outbox.start()
    await settled(outbox)
    const entryId = outbox.item(create!.id).serverId!
    const seen = cache.get('eln_entries', vaultId, entryId)
    expect(seen?.modified_at).toEqual(expect.any(String))

    // A colleague retitles the entry on the server a little later.
    harness.sim.clock.advance(5_000)
    await harness
      .client('writer')
      .elnEntries.update(vaultId, entryId, { title: 'Recrystallisation' })

    const [edit] = await outbox.queue({
      connectionId,
      vaultId,
      operation: 'eln.update',
      payload: { entry: { id: entryId }, title: 'Crystallisation trials, round 2' },
    })
    expect(edit!.record).toEqual({ kind: 'eln_entries', id: entryId, createdBy: null })
    await settled(outbox)
    expect(outbox.item(edit!.id)).toMatchObject({
      state: 'conflict',
      theirs: expect.objectContaining({ id: entryId, name: 'Recrystallisation' }),
    })
    expect(entryRow(entryId).title).toBe('Recrystallisation')

    await outbox.resolveConflict(edit!.id, 'mine')
    await settled(outbox)
    expect(outbox.item(edit!.id).state).toBe('sent')
    expect(entryRow(entryId).title).toBe('Crystallisation trials, round 2')
  })

  it("finds a colleague's change of an entry a member (not an administrator) edits offline", async () => {
    // Members cannot query entries, and entry summaries carry no modified_at: what is compared
    // is what the person saw of each member against what the server holds when sending.
    const { outbox, cache } = harness.open({ user: 'writer' })
    const vaultId = harness.vaultId
    const [create] = await outbox.queue({
      connectionId,
      vaultId,
      operation: 'eln.create',
      payload: {
        title: 'Crystallisation trials',
        project: 'Kinase Inhibitors',
        eln_fields: { Solvent: 'EtOH', Scale: '5 g' },
      },
    })
    outbox.start()
    await settled(outbox)
    const entryId = outbox.item(create!.id).serverId!
    expect(cache.get('eln_entries', vaultId, entryId)).toMatchObject({
      name: 'Crystallisation trials',
      eln_fields: { Solvent: 'EtOH', Scale: '5 g' },
    })
    expect(cache.get('eln_entries', vaultId, entryId)?.modified_at).toBeUndefined()

    // A colleague retitles it while the member's edit waits offline.
    harness.sim.clock.advance(5_000)
    const colleague = harness.client('admin')
    await colleague.elnEntries.update(vaultId, entryId, { title: 'Recrystallisation' })
    const modifiedAt = () =>
      harness.sim.core.db
        .prepare('SELECT modified_at FROM eln_entries WHERE id = ?')
        .pluck()
        .get(entryId)
    const retitledAt = modifiedAt()
    harness.sim.clock.advance(5_000)
    const [edit] = await outbox.queue({
      connectionId,
      vaultId,
      operation: 'eln.update',
      payload: { entry: { id: entryId }, title: 'Crystallisation trials, round 2' },
    })
    await settled(outbox)
    expect(outbox.item(edit!.id)).toMatchObject({
      state: 'conflict',
      theirs: expect.objectContaining({ id: entryId, name: 'Recrystallisation' }),
    })
    expect(entryRow(entryId).title).toBe('Recrystallisation')
    // Reading the entry through a PUT of nothing changed nothing, its modified_at included.
    expect(modifiedAt()).toBe(retitledAt)

    // Kept: mine goes over the copy now seen.
    await outbox.resolveConflict(edit!.id, 'mine')
    await settled(outbox)
    expect(outbox.item(edit!.id).state).toBe('sent')
    expect(entryRow(entryId).title).toBe('Crystallisation trials, round 2')
  })

  it("checks a member's field edits field by field, and a kept copy is theirs", async () => {
    const { outbox, cache } = harness.open({ user: 'writer' })
    const vaultId = harness.vaultId
    const [create] = await outbox.queue({
      connectionId,
      vaultId,
      operation: 'eln.create',
      payload: {
        title: 'Aldol screen',
        project: 'Kinase Inhibitors',
        eln_fields: { Solvent: 'EtOH', Scale: '5 g' },
      },
    })
    outbox.start()
    await settled(outbox)
    const entryId = outbox.item(create!.id).serverId!
    const colleague = harness.client('admin')
    const fieldsOnServer = () =>
      JSON.parse(
        harness.sim.core.db
          .prepare('SELECT fields FROM eln_entries WHERE id = ?')
          .pluck()
          .get(entryId) as string,
      ) as Record<string, string>

    // Another field changed by the colleague: the member's edit of Solvent goes, theirs stays.
    await colleague.elnEntries.update(vaultId, entryId, { eln_fields: { Scale: '10 g' } })
    const [solvent] = await outbox.queue({
      connectionId,
      vaultId,
      operation: 'eln.update',
      payload: { entry: { id: entryId }, eln_fields: { Solvent: 'MeOH' } },
    })
    await settled(outbox)
    expect(outbox.item(solvent!.id).state).toBe('sent')
    expect(fieldsOnServer()).toEqual({ Solvent: 'MeOH', Scale: '10 g' })
    expect(cache.get('eln_entries', vaultId, entryId)?.eln_fields).toEqual({
      Solvent: 'MeOH',
      Scale: '10 g',
    })

    // The same field changed by both: a conflict; keeping theirs keeps their copy here too.
    harness.sim.clock.advance(5_000)
    await colleague.elnEntries.update(vaultId, entryId, { eln_fields: { Solvent: 'DMF' } })
    const [first] = await outbox.queue({
      connectionId,
      vaultId,
      operation: 'eln.update',
      payload: { entry: { id: entryId }, eln_fields: { Solvent: 'THF', Scale: '10 g' } },
    })
    await settled(outbox)
    expect(outbox.item(first!.id)).toMatchObject({
      state: 'conflict',
      theirs: expect.objectContaining({ eln_fields: { Solvent: 'DMF', Scale: '10 g' } }),
    })
    await outbox.resolveConflict(first!.id, 'theirs')
    expect(outbox.item(first!.id).state).toBe('cancelled')
    expect(fieldsOnServer()).toEqual({ Solvent: 'DMF', Scale: '10 g' })
    expect(cache.get('eln_entries', vaultId, entryId)?.eln_fields).toEqual({
      Solvent: 'DMF',
      Scale: '10 g',
    })
  })

  it('discards the uploads and edits of an entry whose creation is discarded', async () => {
    const { outbox } = harness.open()
    const vaultId = harness.vaultId
    const [create] = await outbox.queue({
      connectionId,
      vaultId,
      operation: 'eln.create',
      payload: { title: 'Never mind', project: 'Kinase Inhibitors' },
    })
    const appended = await outbox.queue({
      connectionId,
      vaultId,
      operation: 'eln.append',
      entry: { item: create!.id },
      body: [{ type: 'file', path: tempFile('scratch.txt', 'scratch') }],
    })
    const { discarded } = await outbox.discard(create!.id)
    expect(discarded.sort()).toEqual([create!.id, ...appended.map((item) => item.id)].sort())
    expect(outbox.counts().pending).toBe(0)
    expect(outbox.pendingList(connectionId, vaultId, 'eln_entries')).toEqual([])
  })
})

describe('appends under server errors', () => {
  const put = 'PUT /vaults/{vault_id}/eln/entries/{id}'
  const entryPut = /^PUT \/vaults\/\d+\/eln\/entries\/\d+$/

  async function queueAppend(title: string, text: string) {
    const entry = await harness.client().elnEntries.create(harness.vaultId, {
      title,
      project: harness.sim.cast.projects.kinase.id,
    })
    const { outbox } = harness.open()
    const [item] = await outbox.queue({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'eln.append',
      entry: { id: entry.id },
      body: [{ type: 'text', text }],
    })
    return { outbox, entryId: entry.id, itemId: item!.id }
  }

  it('never appends twice when the server failed after appending: the item is uncertain', async () => {
    const { outbox, entryId, itemId } = await queueAppend('Failed after the work', 'Once only.')
    harness.sim.resetStats()
    // The service appends, then answers 500: sending it again would append it again.
    harness.sim.faults.set({
      serverErrorRate: 1,
      serverErrorStatus: 500,
      serverErrorAfterWork: true,
      match: entryPut,
    })
    outbox.start()
    await waitUntil('the append is uncertain', () => outbox.item(itemId).state === 'uncertain')
    harness.sim.faults.clear()
    await settled(outbox)
    expect(outbox.item(itemId)).toMatchObject({ state: 'uncertain', attempts: 1 })
    expect(outbox.item(itemId).lastError).toContain('may or may not have arrived')
    expect(harness.sim.stats.byOperation[put]).toBe(1)
    expect(JSON.parse(entryRow(entryId).body)).toEqual([{ type: 'text', text: 'Once only.' }])
  })

  it('sends an append the server refused before doing anything again, and it arrives once', async () => {
    const { outbox, entryId, itemId } = await queueAppend('Refused before the work', 'Arrives.')
    harness.sim.resetStats()
    harness.sim.faults.set({ serverErrorRate: 1, serverErrorStatus: 503, match: entryPut })
    outbox.start()
    // The refusal, not the attempt: an attempt is counted when it is marked "sending", before
    // its request leaves.
    await waitUntil('the append was refused once', () => outbox.item(itemId).lastError !== null)
    harness.sim.faults.clear()
    await settled(outbox)
    expect(outbox.item(itemId)).toMatchObject({ state: 'sent', inDoubt: false })
    expect(harness.sim.stats.byOperation[put]).toBeGreaterThan(1)
    expect(JSON.parse(entryRow(entryId).body)).toEqual([{ type: 'text', text: 'Arrives.' }])
  })
})
