import { describe, expect, it } from 'vitest'
import { declarationOf, operationNames } from '../../../../src-common/outbox/operations.ts'
import { editorPath } from './editors.ts'

/** The editor files, listed without loading them. */
const files = Object.keys(import.meta.glob('./editors/*.svelte'))

describe('the editors of queued items', () => {
  it('edit only operations a person may correct, each named after its operation', () => {
    expect(files.length).toBeGreaterThan(0)
    for (const file of files) {
      const operation = operationNames.find((name) => editorPath(name) === file)
      expect(operation, file).toBeDefined()
      expect(declarationOf(operation!).editable, file).not.toBeNull()
    }
  })

  it('give the forms the dialog had to the notebook, imports and readout corrections', () => {
    for (const operation of [
      'eln.create',
      'eln.update',
      'eln.status',
      'eln.append',
      'slurp.create',
      'readout.update',
    ] as const) {
      expect(files, operation).toContain(editorPath(operation))
    }
  })
})
