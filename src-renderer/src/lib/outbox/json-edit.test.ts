import { describe, expect, it } from 'vitest'
import { itemView } from '../testing/outbox-items.ts'
import { editableJson, jsonEdited, keepsMembers } from './json-edit.ts'

describe('correcting an item as JSON', () => {
  const update = itemView({
    operation: 'molecule.update',
    payload: { molecule: 12, changes: { synonyms: ['Aspirin'] } },
  })

  it('shows only what the person may correct, and keeps the record it changes', () => {
    expect(JSON.parse(editableJson(update))).toEqual({ changes: { synonyms: ['Aspirin'] } })
    expect(keepsMembers(update)).toBe(true)
    expect(jsonEdited(update, '{"changes": {"synonyms": ["ASA"]}}')).toEqual({
      ok: true,
      payload: { molecule: 12, changes: { synonyms: ['ASA'] } },
    })
  })

  it('shows the whole payload of a new record, all of which may be corrected', () => {
    const plate = itemView({ operation: 'plate.create', payload: { name: 'P1', projects: [1] } })
    expect(JSON.parse(editableJson(plate))).toEqual({ name: 'P1', projects: [1] })
    expect(keepsMembers(plate)).toBe(false)
  })

  it('says what is wrong with text that is no JSON object, or changes what stays', () => {
    expect(jsonEdited(update, '{"changes": ')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^This is not JSON: /),
    })
    expect(jsonEdited(update, '[1]')).toEqual({
      ok: false,
      message: 'The change must be a JSON object.',
    })
    expect(jsonEdited(update, '{"molecule": 13, "changes": {}}')).toEqual({
      ok: false,
      message: 'Only changes can be corrected here, not molecule.',
    })
  })
})
