import { describe, expect, it } from 'vitest'
import { declarationOf, operationNames } from '../../../../src-common/outbox/operations.ts'
import { queueRequest } from '../queue-request.ts'
import { operations } from './index.ts'

describe('main’s operations and their declarations', () => {
  it('send every declared operation under its own name', () => {
    expect(Object.keys(operations)).toEqual(operationNames)
    for (const name of operationNames) expect(operations[name].name).toBe(name)
  })

  it('check for conflicts exactly the operations queued as edits of a record', () => {
    for (const name of operationNames) {
      const edit = declarationOf(name).request === 'edit'
      expect(operations[name].changedSince !== undefined, name).toBe(edit)
    }
  })

  it('let the person correct only members their payloads have', () => {
    for (const name of operationNames) {
      const { shape } = operations[name].schema as unknown as { shape: Record<string, unknown> }
      for (const member of declarationOf(name).editable ?? []) {
        expect(Object.keys(shape), `${name}.${member}`).toContain(member)
      }
    }
  })

  it('take requests made from the declarations, with the modified_at only for edits', () => {
    const destination = { connectionId: 'lab', vaultId: 1 }
    const edit = {
      ...destination,
      operation: 'eln.update',
      payload: { entry: { id: 3 }, title: 'Notes' },
      baseModifiedAt: '2026-01-01T00:00:00Z',
    }
    expect(queueRequest.safeParse(edit).success).toBe(true)
    const change = {
      ...destination,
      operation: 'eln.status',
      payload: { entry: { id: 3 }, status_action: 'finalize' },
    }
    expect(queueRequest.safeParse(change).success).toBe(true)
    expect(queueRequest.safeParse({ ...change, baseModifiedAt: null }).success).toBe(false)
    const refused = queueRequest.safeParse({ ...change, payload: { entry: { id: 3 } } })
    expect(refused.success).toBe(false)
    expect(JSON.stringify(refused.error?.issues)).toContain('status_action')
    expect(
      queueRequest.safeParse({
        ...destination,
        operation: 'file.attach',
        file: '/tmp/a.csv',
        target: { kind: 'readout_row', ref: { id: 5 } },
      }).success,
    ).toBe(true)
    expect(queueRequest.safeParse({ ...destination, operation: 'lab.burn' }).success).toBe(false)
  })
})
