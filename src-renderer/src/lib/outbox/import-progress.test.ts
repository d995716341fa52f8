import { describe, expect, it } from 'vitest'
import { isImportable } from '../../../../src-common/outbox/imports.ts'
import { importProgress } from './import-progress.ts'
import { choicesOf, emptyChoices, importPayload } from './import-settings.ts'
import { itemView } from '../testing/outbox-items.ts'

describe('importProgress', () => {
  it('follows an import through its states, with its events and errors', () => {
    const queued = itemView({ operation: 'slurp.create' })
    expect(importProgress(queued)).toMatchObject({ phase: 'Waiting to be sent', step: -1 })
    const processing = itemView({
      operation: 'slurp.create',
      state: 'sent',
      following: true,
      result: {
        state: 'processing',
        ambiguous_events: [{ record: 3, message: 'two molecules match', resolution: null }],
      },
    })
    expect(importProgress(processing)).toMatchObject({
      phase: 'Processing…',
      step: 1,
      finished: false,
      ambiguous: [{ record: '3', message: 'two molecules match', resolution: null }],
    })
    const invalid = itemView({
      operation: 'slurp.create',
      state: 'sent',
      result: {
        state: 'invalid',
        summary: { records: 2, records_skipped: 1, runs: [] },
        import_errors: [{ record: 1, message: 'Appearance must be one of …' }],
      },
    })
    expect(importProgress(invalid)).toMatchObject({
      phase: 'The import was invalid',
      failed: true,
      finished: true,
      errors: [{ record: '1', message: 'Appearance must be one of …', resolution: null }],
      summary: [
        { label: 'records', value: '2' },
        { label: 'records skipped', value: '1' },
      ],
    })
  })

  it('takes csv, sdf, xlsx and zip files only', () => {
    expect(['a.CSV', 'b.sdf', 'c.xlsx', 'd.zip'].every(isImportable)).toBe(true)
    expect(['notes.txt', 'csv', 'archive.tar.gz'].some(isImportable)).toBe(false)
  })
})

describe('import settings', () => {
  it('builds the payload of the choices, leaving out what was not chosen', () => {
    expect(importPayload(emptyChoices(null))).toEqual({
      ok: false,
      message: 'Choose the project to import into.',
    })
    expect(importPayload(emptyChoices(1))).toEqual({ ok: true, payload: { project: 1 } })
    const choices = {
      ...emptyChoices(1),
      mappingTemplate: 2,
      runDate: '2026-07-24',
      person: ' Ada Lovelace ',
      ambiguous: 'new_batch' as const,
      autoreject: true,
    }
    const built = importPayload(choices)
    expect(built).toEqual({
      ok: true,
      payload: {
        project: 1,
        mapping_template: 2,
        runs: { run_date: '2026-07-24', person: 'Ada Lovelace' },
        autoreject: true,
        ambiguous_events_resolution: 'new_batch',
      },
    })
    // A queued import is edited from its payload, and gives the same payload back.
    expect(importPayload(choicesOf(built.ok ? built.payload : {}))).toEqual(built)
    expect(importPayload({ ...emptyChoices(1), runDate: '24/07/2026' }).ok).toBe(false)
  })
})
