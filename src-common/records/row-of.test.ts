import { describe, expect, it } from 'vitest'
import { rowOfKind } from './record-kinds.ts'

describe('rowOfKind', () => {
  it('reads the columns of a record the cache holds no row for as sync reads them', () => {
    const run = {
      id: '31',
      run_date: '2026-07-24',
      person: { first_name: 'Ada', last_name: 'Lovelace' },
      protocol: { id: 1, name: 'Kinase IC50' },
      created_at: '2026-07-24T10:15:00+02:00',
    }
    expect(rowOfKind('runs', run)).toEqual({
      kind: 'runs',
      id: 31,
      columns: {
        name: '2026-07-24',
        created_at: '2026-07-24T08:15:00.000000Z',
        modified_at: null,
        protocol_id: 1,
        project_id: null,
        run_date: '2026-07-24',
        person: 'Ada Lovelace',
        place: null,
        slurp_id: null,
      },
      json: run,
    })
    const mark = { state: 'conflict' as const, itemIds: [4], createdBy: null }
    expect(rowOfKind('runs', run, mark).pending).toEqual(mark)
  })
})
