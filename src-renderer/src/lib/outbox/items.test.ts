import { describe, expect, it } from 'vitest'
import { itemView } from '../testing/outbox-items.ts'
import { dependentsOf, groupItems, nextAttemptText, targetOf } from './items.ts'

describe('groupItems', () => {
  it('puts what waits for the person first, then what waits for the network, then history', () => {
    const queued = itemView({ id: 1 })
    const conflict = itemView({ id: 2, state: 'conflict' })
    const refused = itemView({ id: 3, state: 'needs_attention' })
    const sending = itemView({ id: 4, state: 'sending' })
    const uncertain = itemView({ id: 5, state: 'uncertain' })
    const sent = itemView({ id: 6, state: 'sent' })
    const groups = groupItems([queued, conflict, refused, sending, uncertain], [sent])
    expect(groups.map((group) => [group.id, group.items.map((item) => item.id)])).toEqual([
      ['attention', [3, 2, 5]],
      ['waiting', [4, 1]],
      ['recent', [6]],
    ])
    expect(groupItems([queued], []).map((group) => group.id)).toEqual(['waiting'])
    expect(groupItems([], [])).toEqual([])
  })
})

describe('targetOf', () => {
  it('links the record an item changes, and an entry written offline by its item', () => {
    expect(targetOf(itemView())).toEqual({ label: 'Readout row 44', href: '#/readout-rows/44' })
    expect(
      targetOf(
        itemView({
          operation: 'file.attach',
          record: { kind: 'files', id: null, createdBy: 9 },
          payload: { target: { kind: 'molecule', ref: { id: 12 } } },
        }),
      ),
    ).toEqual({ label: 'Molecule 12', href: '#/molecules/12' })
    expect(
      targetOf(
        itemView({
          operation: 'eln.append',
          record: { kind: 'eln_entries', id: null, createdBy: 7 },
        }),
      ),
    ).toEqual({ label: 'Notebook entry written offline (item 7)', href: '#/entries/new/7' })
    expect(
      targetOf(
        itemView({
          operation: 'file.attach',
          payload: { target: { kind: 'readout_row', ref: { id: 5 } } },
        }),
      ).href,
    ).toBe('#/readout-rows/5')
    expect(
      targetOf(itemView({ operation: 'slurp.create', payload: { project: 'Kinase Inhibitors' } })),
    ).toEqual({ label: 'Project Kinase Inhibitors', href: null })
  })
})

describe('dependentsOf', () => {
  it('finds the items that go with one discarded: those on its record, those naming it', () => {
    const create = itemView({
      id: 10,
      operation: 'eln.create',
      record: { kind: 'eln_entries', id: null, createdBy: 10 },
    })
    const upload = itemView({
      id: 11,
      operation: 'file.attach',
      record: { kind: 'files', id: null, createdBy: 11 },
      payload: { target: { kind: 'eln_entry', ref: { item: 10 } } },
    })
    const append = itemView({
      id: 12,
      operation: 'eln.append',
      record: { kind: 'eln_entries', id: null, createdBy: 10 },
      payload: { entry: { item: 10 }, body: [{ type: 'file', file: { item: 11 } }] },
    })
    const other = itemView({ id: 13, payload: { row: 10 } })
    const all = [create, upload, append, other]
    expect(dependentsOf(create, all).map((item) => item.id)).toEqual([11, 12])
    // Discarding the upload takes the append that shows it, not the entry.
    expect(dependentsOf(upload, all).map((item) => item.id)).toEqual([12])
    expect(dependentsOf(other, all)).toEqual([])
  })
})

describe('nextAttemptText', () => {
  it('says when a queued item is tried again after a failure', () => {
    const now = new Date('2026-07-24T10:00:00.000Z')
    const waiting = (at: string) => itemView({ attempts: 2, nextAttemptAt: at })
    expect(nextAttemptText(waiting('2026-07-24T10:00:30.000Z'), now)).toBe('Next try in 30 s')
    expect(nextAttemptText(waiting('2026-07-24T10:05:00.000Z'), now)).toBe('Next try in 5 min')
    expect(nextAttemptText(waiting('2026-07-24T09:59:00.000Z'), now)).toBe('Trying again now')
    expect(nextAttemptText(itemView({ state: 'sent', nextAttemptAt: null }), now)).toBeNull()
  })
})
