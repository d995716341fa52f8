import { describe, expect, it } from 'vitest'
import {
  attachTargetKinds,
  attachTargetOf,
  fileTargetOf,
  filesShownOn,
  isAttachTarget,
} from './attach-targets.ts'
import {
  declarationOf,
  isEditable,
  isOperationName,
  operationDeclarations,
  operationNames,
  recordOf,
  summaryOf,
  type OperationName,
} from './operations.ts'
import type { SummaryFacts } from './operations.ts'

const facts = (overrides: Partial<SummaryFacts> = {}): SummaryFacts => ({
  id: 5,
  recordId: null,
  recordItem: null,
  fileName: null,
  ...overrides,
})

const summary = (operation: OperationName, payload: object, more?: Partial<SummaryFacts>) =>
  summaryOf({ operation, payload: { ...payload } }, facts(more))

describe('operation declarations', () => {
  it('name every operation once, in the order the outbox has always listed them', () => {
    expect(operationNames).toEqual([
      'file.attach',
      'slurp.create',
      'eln.create',
      'eln.update',
      'eln.append',
      'eln.status',
      'readout.update',
      'molecule.update',
      'batch.update',
      'collection.create',
      'collection.add',
      'plate.create',
      'plate.update',
      'sample.create',
      'sample.update',
      'curve.update',
      'molecule.create',
      'batch.create',
      'search.create',
    ])
    expect(new Set(operationNames.map((name) => declarationOf(name).label)).size).toBe(19)
    expect(isOperationName('eln.create')).toBe(true)
    expect(isOperationName('toString')).toBe(false)
  })

  it('say in one line what an item does, naming its file and its record', () => {
    const target = { kind: 'eln_entry', ref: { item: 3 } }
    expect(summary('file.attach', { target }, { fileName: 'tlc.txt' })).toBe(
      'Attach tlc.txt to the eln entry of item 3',
    )
    expect(summary('file.attach', { target: { kind: 'molecule', ref: { id: 12 } } })).toBe(
      'Attach a file to molecule 12',
    )
    expect(summary('slurp.create', { project: 1 }, { fileName: 'hits.csv' })).toBe(
      'Import hits.csv into project 1',
    )
    expect(summary('eln.create', { title: 'Notes', project: 1 })).toBe(
      'Create the ELN entry "Notes"',
    )
    expect(summary('eln.append', { entry: { item: 2 }, body: [] }, { recordItem: 2 })).toBe(
      'Append to the ELN entry of item 2',
    )
    expect(
      summary('eln.status', { entry: { id: 8 }, status_action: 'submit' }, { recordId: 8 }),
    ).toBe('Submit ELN entry 8')
    expect(summary('readout.update', { row: 44, readouts: {} }, { recordId: 44 })).toBe(
      'Correct readout row 44',
    )
    expect(summary('sample.create', { batch_id: 3 }, { recordItem: 5 })).toBe(
      'Create a sample of batch 3',
    )
    expect(summary('molecule.create', { name: 'VD-7', smiles: 'CCO' })).toBe(
      'Register the molecule "VD-7"',
    )
    expect(summary('batch.create', { projects: [1], molecule: { item: 4 } })).toBe(
      'Create a batch of the molecule of item 4',
    )
    expect(
      summary('batch.create', {
        projects: [1],
        molecule: { smiles: 'CCO', duplicate_resolution: 'prompt' },
      }),
    ).toBe('Register a new structure with its first batch')
    expect(summary('collection.create', { name: 'Hits' }, { recordItem: 5 })).toBe(
      'Create the collection "Hits"',
    )
    expect(summary('plate.update', { plate: { id: 4 }, changes: {} }, { recordId: 4 })).toBe(
      'Update plate 4',
    )
    expect(summary('sample.update', { sample: { item: 9 }, changes: {} }, { recordItem: 9 })).toBe(
      'Update the inventory sample of item 9',
    )
    expect(summary('molecule.update', { molecule: 1, changes: {} }, { recordItem: 5 })).toBe(
      'Update a new molecule',
    )
  })

  it('name an item stored in a shape it no longer reads by its operation, not by an error', () => {
    expect(summary('file.attach', {})).toBe('File upload')
  })

  it('find the record an item changes in its payload, or say it creates one', () => {
    expect(recordOf('eln.update', { entry: { item: 4 }, title: 'x' })).toEqual({
      kind: 'eln_entries',
      ref: { item: 4 },
    })
    expect(recordOf('readout.update', { row: 44, readouts: {} })).toEqual({
      kind: 'readout_rows',
      ref: { id: 44 },
    })
    expect(recordOf('plate.create', { name: 'P1', projects: [1] })).toEqual({
      kind: 'plates',
      creates: true,
    })
    const upload = { target: { kind: 'run', ref: { id: 3 } } }
    expect(declarationOf('file.attach').attachTarget?.(upload)).toEqual(upload.target)
  })

  it('let the person correct items only of editable operations, and only while unsent', () => {
    expect(isEditable({ operation: 'eln.create', state: 'needs_attention' })).toBe(true)
    expect(isEditable({ operation: 'readout.update', state: 'conflict' })).toBe(true)
    expect(isEditable({ operation: 'plate.update', state: 'queued' })).toBe(true)
    expect(isEditable({ operation: 'eln.create', state: 'sending' })).toBe(false)
    expect(isEditable({ operation: 'eln.create', state: 'uncertain' })).toBe(false)
    expect(isEditable({ operation: 'eln.create', state: 'sent' })).toBe(false)
    expect(isEditable({ operation: 'file.attach', state: 'needs_attention' })).toBe(false)
    // What names the record an item changes is never among what may be corrected.
    for (const name of operationNames) {
      const { editable } = operationDeclarations[name] as { editable: readonly string[] | null }
      for (const fixed of ['entry', 'row', 'molecule', 'batch', 'plate', 'sample', 'collection']) {
        expect(editable ?? [], `${name} ${fixed}`).not.toContain(fixed)
      }
    }
  })
})

describe('attach targets', () => {
  it('map each target to its records, and a readout row’s files to its run', () => {
    expect(attachTargetKinds.readout_row).toBe('readout_rows')
    expect(filesShownOn.readout_row).toBe('runs')
    expect(filesShownOn.eln_entry).toBe('eln_entries')
    expect(attachTargetOf('readout_rows')).toBe('readout_row')
    expect(attachTargetOf('batches')).toBeNull()
    expect(fileTargetOf('runs')).toBe('run')
    expect(fileTargetOf('readout_rows')).toBeNull()
    expect(isAttachTarget('readout_row')).toBe(true)
    expect(isAttachTarget('batch')).toBe(false)
    expect(isAttachTarget(undefined)).toBe(false)
  })
})
