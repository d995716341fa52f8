import { describe, expect, it } from 'vitest'
import type { CachedRecord, CachedRecordPage, RequestArgs, Result } from '../bridge.ts'
import { deferred, settle } from '../testing/bridge-double.ts'
import { quietBridge } from '../testing/quiet-bridge.ts'
import { rowOf } from '../testing/rows.ts'
import { RecordList, type RecordListOptions } from './record-list.svelte.ts'

type ListArgs = RequestArgs<'records.list'>

const molecules = Array.from({ length: 250 }, (_, index) => ({
  id: index + 1,
  name: `VD-${String(index + 1).padStart(6, '0')}`,
}))

/** A cache of 250 molecules: text keeps names containing it, `desc` reverses the order. */
function cacheAnswer(args: ListArgs): Result<CachedRecordPage> {
  let records = molecules.filter((record) => !args.text || record.name.includes(args.text))
  if (args.direction === 'desc') records = records.toReversed()
  const offset = args.offset ?? 0
  return {
    ok: true,
    value: {
      kind: 'molecules',
      total: records.length,
      rows: records
        .slice(offset, offset + (args.limit ?? 50))
        .map((record) => rowOf('molecules', record)),
    },
  }
}

const scope = { connectionId: 'c1', vaultId: 1, kind: 'molecules' } as const

const options: RecordListOptions = {
  ...scope,
  projectFilter: 'projects',
  pageSize: 100,
}

function listOverCache() {
  const asked: ListArgs[] = []
  const bridge = quietBridge().answer('records.list', async () => {
    const args = bridge.calls.at(-1)!.args as ListArgs
    asked.push(args)
    return cacheAnswer(args)
  })
  const errors: string[] = []
  const list = new RecordList(bridge, (message) => errors.push(message), options)
  return { list, asked, errors, bridge }
}

const names = (rows: readonly (CachedRecord | undefined)[]) =>
  rows.map((row) => (row === undefined ? undefined : row.columns.name))

describe('RecordList', () => {
  it('reads only the pages the table shows, and leaves the rest as placeholders', async () => {
    const { list, asked } = listOverCache()
    list.want({ start: 0, end: 40 })
    await settle()
    expect(list.total).toBe(250)
    expect(list.rows).toHaveLength(250)
    expect(names(list.rows.slice(0, 2))).toEqual(['VD-000001', 'VD-000002'])
    expect(list.rows[100]).toBeUndefined()
    expect(asked.map((args) => args.offset)).toEqual([0])

    list.want({ start: 180, end: 230 })
    await settle()
    expect(asked.map((args) => args.offset)).toEqual([0, 100, 200])
    expect(list.rows[249]?.columns.name).toBe('VD-000250')
    list.want({ start: 150, end: 160 })
    await settle()
    expect(asked).toHaveLength(3)
  })

  it('searches, sorts and filters in the cache, and narrows to the chosen project', async () => {
    const { list, asked } = listOverCache()
    list.want({ start: 0, end: 40 })
    list.setText('00012')
    list.setSort({ columnId: 'name', direction: 'descending' })
    list.setFilters(['registration_type'], { registration_type: 'NUCLEOTIDE' })
    list.setProject(3)
    await settle()
    expect(asked.at(-1)).toEqual({
      connectionId: 'c1',
      vaultId: 1,
      kind: 'molecules',
      limit: 100,
      offset: 0,
      text: '00012',
      filters: { registration_type: 'NUCLEOTIDE' },
      projectId: 3,
      sort: 'name',
      direction: 'desc',
    })
    expect(list.total).toBe(11)
    expect(list.rows[0]?.columns.name).toBe('VD-000129')
  })

  it('keeps showing the old rows until the new query answers, then drops stale answers', async () => {
    const gates: ReturnType<typeof deferred<Result<CachedRecordPage>>>[] = []
    const bridge = quietBridge().answer('records.list', () => {
      const gate = deferred<Result<CachedRecordPage>>()
      gates.push(gate)
      return gate.promise
    })
    const list = new RecordList(bridge, () => {}, options)
    list.want({ start: 0, end: 10 })
    gates[0]!.resolve(cacheAnswer({ ...scope, offset: 0, limit: 100 }))
    await settle()
    expect(list.total).toBe(250)

    const firstVersion = list.queryVersion
    list.setText('VD-00001')
    list.setText('VD-000010')
    expect(list.queryVersion).toBe(firstVersion + 2)
    expect(list.total).toBe(250)
    // The answer to the newest query comes first; the one to the query typed over comes late.
    gates[2]!.resolve(cacheAnswer({ ...scope, text: 'VD-000010', offset: 0, limit: 100 }))
    await settle()
    gates[1]!.resolve(cacheAnswer({ ...scope, text: 'VD-00001', offset: 0, limit: 100 }))
    await settle()
    expect(names(list.rows)).toEqual(['VD-000010'])
  })

  it('re-reads the rows in view when the cache changes, and forgets the others', async () => {
    const { list } = listOverCache()
    list.want({ start: 0, end: 40 })
    list.want({ start: 200, end: 240 })
    await settle()
    molecules.push({ id: 251, name: 'VD-000251' })
    await list.refresh()
    expect(list.total).toBe(251)
    expect(list.rows[250]?.columns.name).toBe('VD-000251')
    expect(list.rows[0]).toBeUndefined()
    molecules.pop()
  })

  it('reports a failed read once and says what went wrong', async () => {
    const bridge = quietBridge().answer('records.list', async () => ({
      ok: false,
      error: { code: 'invalid_argument', message: 'molecules cannot be sorted by "log_p".' },
    }))
    const errors: string[] = []
    const list = new RecordList(bridge, (message) => errors.push(message), options)
    list.want({ start: 0, end: 250 })
    await settle()
    expect(list.error).toBe('molecules cannot be sorted by "log_p".')
    expect(errors).toEqual(['Could not read the list: molecules cannot be sorted by "log_p".'])
  })

  it('applies a project as a column filter for kinds that name one project', async () => {
    const { bridge } = listOverCache()
    const runs = new RecordList(bridge, () => {}, {
      ...options,
      kind: 'runs',
      projectFilter: 'project_id',
      fixedFilters: { protocol_id: 4 },
    })
    runs.setProject(2)
    await settle()
    expect(bridge.calls.at(-1)?.args).toMatchObject({
      kind: 'runs',
      filters: { protocol_id: 4, project_id: 2 },
    })
    expect(bridge.calls.at(-1)?.args).not.toHaveProperty('projectId')
  })

  it('searches by structure and properties, keeps the scores and asks again until counted', async () => {
    const asked: ListArgs[] = []
    let answers = 0
    const bridge = quietBridge().answer('records.list', async () => {
      const args = bridge.calls.at(-1)!.args as ListArgs
      asked.push(args)
      if (args.structure) answers++
      const complete = answers > 1
      const offset = args.offset ?? 0
      // While counting, main has found 120 hits; counted, 130.
      const total = complete ? 130 : 120
      const records = molecules.slice(offset, Math.min(total, offset + (args.limit ?? 50)))
      const value: CachedRecordPage = {
        kind: 'molecules',
        total,
        rows: records.map((record) => rowOf('molecules', record)),
        structure: {
          scores: Object.fromEntries(records.map((record) => [record.id, 1 - record.id / 1000])),
          skippedUnparseable: 2,
          pendingDetails: 0,
          complete,
        },
      }
      return { ok: true, value }
    })
    const list = new RecordList(bridge, () => {}, { ...options, recountDelay: 0 })
    list.want({ start: 0, end: 40 })
    list.setStructure(
      { kind: 'similarity', smiles: 'CCO', threshold: 0.5 },
      { molecularWeight: { max: 500 } },
    )
    await settle()
    expect(asked.at(-1)).toMatchObject({
      structure: { kind: 'similarity', smiles: 'CCO', threshold: 0.5 },
      properties: { molecularWeight: { max: 500 } },
    })
    expect(list.total).toBe(120)
    expect(list.search).toMatchObject({ complete: false, skippedUnparseable: 2 })
    expect(list.scores.get(1)).toBe(0.999)

    // Counting is done: the list asked again by itself.
    await new Promise((resolve) => setTimeout(resolve, 5))
    await settle()
    expect(list.total).toBe(130)
    expect(list.search?.complete).toBe(true)
    expect(list.scores.get(100)).toBe(0.9)

    const calls = asked.length
    list.setStructure(
      { kind: 'similarity', smiles: 'CCO', threshold: 0.5 },
      {
        molecularWeight: { max: 500 },
      },
    )
    expect(asked).toHaveLength(calls)

    list.setStructure(null, {})
    await settle()
    expect(asked.at(-1)).not.toHaveProperty('structure')
    expect(asked.at(-1)).not.toHaveProperty('properties')
    expect(list.structure).toBeNull()
    expect(list.properties).toBeNull()
  })
})

describe('a list whose criteria are its own (a saved search run offline)', () => {
  it('asks with its fields, results, project and structure, whatever project the person chose', () => {
    const structure = { kind: 'substructure', query: 'c1ncnc2ccccc12' } as const
    const list = new RecordList(quietBridge(), () => {}, {
      ...options,
      fixedCriteria: {
        fields: { Priority: '1' },
        results: ['Kinase IC50: IC50 < 1 uM'],
        projectId: 3,
      },
      initialStructure: structure,
    })
    list.setProject(7)
    list.setText('quin')
    expect(list.structure).toEqual(structure)
    expect(list.listQuestion()).toEqual({
      ...scope,
      text: 'quin',
      fields: { Priority: '1' },
      results: ['Kinase IC50: IC50 < 1 uM'],
      projectId: 3,
      structure,
    })
    // The person may still change the structure; the saved criteria stay.
    list.setStructure(null)
    expect(list.listQuestion()).not.toHaveProperty('structure')
    expect(list.listQuestion()).toMatchObject({ projectId: 3, fields: { Priority: '1' } })
  })
})
