import { describe, expect, it } from 'vitest'
import type {
  ResultsCell,
  ResultsRow,
} from '../../../../src-common/analysis/readouts/results-table.ts'
import type { RequestArgs, RequestResult, Result } from '../bridge.ts'
import { deferred, settle } from '../testing/bridge-double.ts'
import { quietBridge } from '../testing/quiet-bridge.ts'
import { picks } from '../results/molecule-pick.ts'
import { emptyQuestion, type ResultsQuestion } from '../results/results-address.ts'
import { ResultsTable, type IndexBacklog } from './results-table.svelte.ts'

type TableArgs = RequestArgs<'results.table'>
type TableAnswer = RequestResult<'results.table'>

const ic50 = { protocolId: 3, definitionId: 12 }
const inhibition = { protocolId: 3, definitionId: 15 }

const catalogue: RequestResult<'results.catalogue'>['protocols'] = [
  {
    id: 3,
    name: 'Kinase IC50 (ADP-Glo)',
    readouts: [
      { id: 12, name: 'IC50', valueType: 'number', unit: 'uM', aggregation: 'geometric mean' },
      { id: 15, name: '% Inhibition', valueType: 'number', unit: '%', aggregation: null },
      { id: 16, name: 'Comment', valueType: 'text', unit: null, aggregation: null },
    ],
  },
]

const number = (value: number, modifier: string | null = null): ResultsCell => ({
  kind: 'number',
  number: value,
  modifier,
  text: String(value),
  n: 2,
  source: 'computed',
})

/**
 * 250 batches of 125 molecules (two each): IC50 from 0.001 to 30 uM, the weakest `>30`, every
 * tenth `ND`, every seventh none; % inhibition from 0 to 99.
 */
const subjects = Array.from({ length: 250 }, (_, index) => {
  const id = index + 1
  const ic50Cell: ResultsCell | null =
    id % 7 === 0
      ? null
      : id % 10 === 0
        ? { ...number(0), kind: 'text', number: null, text: 'ND' }
        : id > 240
          ? number(30, '>')
          : number(0.001 * 1.04 ** id)
  return {
    subjectId: id,
    moleculeId: Math.ceil(id / 2),
    name: `VD-${String(id).padStart(6, '0')}`,
    cells: [ic50Cell, number(id % 100)],
  }
})

/** The rank a sorted column gives a cell: numbers, then text, then nothing (both directions). */
const kindRank = (cell: ResultsCell | null | undefined) =>
  cell?.kind === 'number' ? 0 : cell?.kind === 'text' ? 1 : 2

/** Answers results.table over `subjects` as the cache would (criteria: IC50 below 1 uM). */
function tableAnswer(args: TableArgs, backlog: IndexBacklog): Result<TableAnswer> {
  if (args.criteria?.some((criterion) => criterion.includes('IC5 '))) {
    return {
      ok: false,
      error: {
        code: 'invalid_argument',
        message: 'Kinase IC50 (ADP-Glo) has no readout "IC5"; it has "IC50", "Comment".',
      },
    }
  }
  const positions = args.columns.map((column) =>
    [ic50, inhibition].findIndex((known) => known.definitionId === column.definitionId)!,
  )
  const cellsOf = (subject: (typeof subjects)[number]) =>
    positions.map((position) => subject.cells[position] ?? null)
  let rows: ResultsRow[] = subjects.map((subject) => ({ ...subject, cells: cellsOf(subject) }))
  if (args.within?.text) rows = rows.filter((row) => row.name!.includes(args.within!.text!))
  if (args.moleculeIds) rows = rows.filter((row) => args.moleculeIds!.includes(row.moleculeId!))
  if (args.criteria?.length) rows = rows.filter((row) => (row.cells[0]?.number ?? 99) < 1)
  for (const range of args.ranges ?? []) {
    rows = rows.filter((row) => {
      const value = row.cells[range.column]?.number
      if (value === null || value === undefined) return false
      return value >= (range.min ?? -Infinity) && value <= (range.max ?? Infinity)
    })
  }
  const sort = args.sort
  if (sort && sort.column !== 'name') {
    const column = sort.column
    const sign = sort.direction === 'asc' ? 1 : -1
    rows = rows.toSorted((first, second) => {
      const [a, b] = [first.cells[column], second.cells[column]]
      return (
        kindRank(a) - kindRank(b) ||
        sign * ((a?.number ?? 0) - (b?.number ?? 0)) ||
        first.subjectId - second.subjectId
      )
    })
  } else if (sort?.direction === 'desc') rows = rows.toReversed()
  const offset = args.offset ?? 0
  return {
    ok: true,
    value: { total: rows.length, rows: rows.slice(offset, offset + (args.limit ?? 100)), backlog },
  }
}

function tableOverCache(backlogs: IndexBacklog[] = [{ rows: 0, groups: 0 }]) {
  const asked: TableArgs[] = []
  const scheduled: (() => void)[] = []
  let catalogueReads = 0
  const backlogNow = () => backlogs[Math.min(catalogueReads, backlogs.length) - 1] ?? backlogs[0]!
  const bridge = quietBridge()
    .answer('results.catalogue', async () => {
      catalogueReads++
      return { ok: true, value: { protocols: catalogue, backlog: backlogNow() } }
    })
    .answer('results.table', async () => {
      const args = bridge.calls.at(-1)!.args as TableArgs
      asked.push(args)
      return tableAnswer(args, backlogNow())
    })
  const errors: string[] = []
  const table = new ResultsTable(bridge, (message) => errors.push(message), {
    connectionId: 'c1',
    vaultId: 2,
    pageSize: 100,
    schedule: (work) => void scheduled.push(work),
  })
  /** The pages read for rows (the scales read one row at a time). */
  const pageReads = () => asked.filter((args) => args.limit !== 1)
  return {
    table,
    bridge,
    asked,
    pageReads,
    errors,
    scheduled,
    catalogueReads: () => catalogueReads,
  }
}

/** The kinase table's question as results.table takes it, with a text search. */
const argsOf = (text?: string): TableArgs => ({
  connectionId: 'c1',
  vaultId: 2,
  level: 'molecule',
  columns: [ic50, inhibition],
  ...(text ? { within: { text } } : {}),
})

const kinase: ResultsQuestion = { ...emptyQuestion, columns: [ic50, inhibition] }
const names = (rows: readonly (ResultsRow | undefined)[]) => rows.map((row) => row?.name)

describe('ResultsTable', () => {
  it('asks nothing without columns, then reads only the pages in view', async () => {
    const { table, pageReads } = tableOverCache()
    table.want({ start: 0, end: 20 })
    table.setQuestion(emptyQuestion)
    await settle()
    expect(pageReads()).toEqual([])

    table.setQuestion(kinase)
    await settle()
    expect(table.total).toBe(250)
    expect(table.rows).toHaveLength(250)
    expect(table.rows[0]?.name).toBe('VD-000001')
    expect(table.rows[150]).toBeUndefined()
    table.want({ start: 180, end: 230 })
    await settle()
    expect(pageReads().map((args) => args.offset)).toEqual([0, 100, 200])
    expect(table.rows[249]?.name).toBe('VD-000250')
  })

  it('asks the question as results.table takes it: columns by position, the rest trimmed', async () => {
    const { table, pageReads } = tableOverCache()
    table.want({ start: 0, end: 20 })
    table.setProject(7)
    table.setQuestion({
      level: 'batch',
      columns: [inhibition, ic50],
      sort: { column: '3:12', direction: 'desc' },
      ranges: [{ column: '3:12', min: null, max: 1 }],
      criteria: ['  Kinase IC50 (ADP-Glo): IC50 < 1 uM  ', '   '],
      text: ' VD-0001 ',
    })
    await settle()
    expect(pageReads().at(-1)).toEqual({
      connectionId: 'c1',
      vaultId: 2,
      level: 'batch',
      columns: [inhibition, ic50],
      sort: { column: 1, direction: 'desc' },
      ranges: [{ column: 1, max: 1 }],
      criteria: ['Kinase IC50 (ADP-Glo): IC50 < 1 uM'],
      within: { text: 'VD-0001', projectId: 7 },
      limit: 100,
      offset: 0,
    })
  })

  it('sorts values first and empties last, in both directions, as the cache answers', async () => {
    const { table } = tableOverCache()
    table.want({ start: 0, end: 250 })
    table.setQuestion({ ...kinase, sort: { column: '3:12', direction: 'asc' } })
    await settle()
    const ascending = table.rows.map((row) => row!.cells[0])
    table.setQuestion({ ...kinase, sort: { column: '3:12', direction: 'desc' } })
    await settle()
    const descending = table.rows.map((row) => row!.cells[0])
    for (const cells of [ascending, descending]) {
      expect(cells.slice(0, 3).every((cell) => cell?.kind === 'number')).toBe(true)
      expect(cells.at(-1)).toBeNull()
    }
    expect(ascending[0]?.number).toBeLessThan(ascending[1]!.number!)
    expect(descending[0]).toMatchObject({ number: 30, modifier: '>' })
  })

  it('keeps the rows shown until the new question answers, and drops stale answers', async () => {
    const gates: ReturnType<typeof deferred<Result<TableAnswer>>>[] = []
    const bridge = quietBridge().answer('results.table', () => {
      const args = bridge.calls.at(-1)!.args as TableArgs
      if (args.limit === 1) return Promise.resolve(tableAnswer(args, { rows: 0, groups: 0 }))
      const gate = deferred<Result<TableAnswer>>()
      gates.push(gate)
      return gate.promise
    })
    const table = new ResultsTable(bridge, () => {}, { connectionId: 'c1', vaultId: 2 })
    table.want({ start: 0, end: 10 })
    table.setQuestion(kinase)
    gates[0]!.resolve(tableAnswer(argsOf(), noBacklog))
    await settle()
    expect(table.total).toBe(250)

    table.setQuestion({ ...kinase, text: 'VD-00001' })
    table.setQuestion({ ...kinase, text: 'VD-000010' })
    expect(table.total).toBe(250)
    gates[2]!.resolve(tableAnswer(argsOf('VD-000010'), noBacklog))
    await settle()
    gates[1]!.resolve(tableAnswer(argsOf('VD-00001'), noBacklog))
    await settle()
    expect(names(table.rows)).toEqual(['VD-000010'])
  })

  it('shows the main side’s refusal of a criterion as it is, without a notice', async () => {
    const { table, errors } = tableOverCache()
    table.want({ start: 0, end: 20 })
    table.setQuestion(kinase)
    await settle()
    table.setQuestion({ ...kinase, criteria: ['Kinase IC50 (ADP-Glo): IC5 < 1 uM'] })
    await settle()
    expect(table.error).toBe(
      'Kinase IC50 (ADP-Glo) has no readout "IC5"; it has "IC50", "Comment".',
    )
    expect(table.rows).toEqual([])
    expect(table.total).toBeNull()
    expect(errors).toEqual([])

    table.setQuestion({ ...kinase, criteria: ['Kinase IC50 (ADP-Glo): IC50 < 1 uM'] })
    await settle()
    expect(table.error).toBeNull()
    expect(table.total).toBeGreaterThan(0)
    expect(table.total).toBeLessThan(250)
  })

  it('reports a failure to read as a notice once', async () => {
    const bridge = quietBridge().answer('results.table', async () => ({
      ok: false,
      error: { code: 'internal', message: 'The cache could not be read.' },
    }))
    const errors: string[] = []
    const table = new ResultsTable(bridge, (message) => errors.push(message), {
      connectionId: 'c1',
      vaultId: 2,
    })
    table.want({ start: 0, end: 250 })
    table.setQuestion(kinase)
    await settle()
    expect(errors).toEqual(['Could not read the results table: The cache could not be read.'])
    expect(table.error).toBe('The cache could not be read.')
  })

  it('polls the index while it is being built, re-reads as it shrinks, and stops at zero', async () => {
    const { table, scheduled, pageReads, catalogueReads } = tableOverCache([
      { rows: 1200, groups: 40 },
      { rows: 200, groups: 40 },
      { rows: 0, groups: 0 },
    ])
    const stop = table.start()
    table.want({ start: 0, end: 20 })
    table.setQuestion(kinase)
    await settle()
    expect(table.backlog).toEqual({ rows: 1200, groups: 40 })
    expect(table.catalogue?.[0]?.name).toBe('Kinase IC50 (ADP-Glo)')
    // One timer at a time, however many answers reported a backlog.
    expect(scheduled).toHaveLength(1)
    const reads = pageReads().length

    scheduled.shift()!()
    await settle()
    expect(table.backlog).toEqual({ rows: 200, groups: 40 })
    expect(pageReads().length).toBeGreaterThan(reads)
    scheduled.shift()!()
    await settle()
    expect(table.backlog).toEqual({ rows: 0, groups: 0 })
    expect(catalogueReads()).toBe(3)
    expect(scheduled).toHaveLength(0)
    stop()
  })

  it('reads again when readout rows or protocols of its vault change, and only then', async () => {
    const { table, bridge, asked, pageReads, catalogueReads } = tableOverCache()
    const stop = table.start()
    table.want({ start: 0, end: 20 })
    table.setQuestion(kinase)
    await settle()
    const reads = pageReads().length
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 2, kinds: ['plates'] })
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 9, kinds: ['readout_rows'] })
    bridge.emit('records.changed', { connectionId: 'c2', vaultId: 2, kinds: ['protocols'] })
    await settle()
    expect(pageReads()).toHaveLength(reads)
    expect(catalogueReads()).toBe(1)

    // A new name changes the rows, not the values: the colour scales stay.
    const scaleReads = () => asked.filter((args) => args.limit === 1).length
    const scalesBefore = scaleReads()
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 2, kinds: ['molecules'] })
    await settle()
    expect(pageReads()).toHaveLength(reads + 1)
    expect(scaleReads()).toBe(scalesBefore)

    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 2, kinds: ['readout_rows'] })
    await settle()
    expect(pageReads()).toHaveLength(reads + 2)
    expect(scaleReads()).toBe(scalesBefore + 4)
    expect(catalogueReads()).toBe(3)
    stop()
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 2, kinds: ['protocols'] })
    await settle()
    expect(catalogueReads()).toBe(3)
    expect(bridge.listenerCount('records.changed')).toBe(0)
  })

  it('gives each numeric column a scale over the whole vault, not over the rows filtered', async () => {
    const { table, asked } = tableOverCache()
    table.start()
    await settle()
    table.want({ start: 0, end: 20 })
    table.setQuestion({
      ...kinase,
      columns: [ic50, inhibition, { protocolId: 3, definitionId: 16 }],
      ranges: [{ column: '3:15', min: 50, max: null }],
      text: 'VD-0001',
    })
    await settle()
    const ends = asked.filter((args) => args.limit === 1)
    expect(ends).toHaveLength(4)
    for (const args of ends) {
      expect(args).not.toHaveProperty('ranges')
      expect(args).not.toHaveProperty('within')
    }
    expect(table.scales['3:12']).toEqual({ min: 0.001 * 1.04, max: 30, kind: 'log' })
    expect(table.scales['3:15']).toEqual({ min: 0, max: 99, kind: 'linear' })
    expect(table.scales).not.toHaveProperty('3:16')

    // A new order asks no new scales.
    table.setQuestion({ ...table.question, sort: { column: 'name', direction: 'desc' } })
    await settle()
    expect(asked.filter((args) => args.limit === 1)).toHaveLength(4)
  })

  it('selects rows by molecule or batch, keeps them through a new order, not through a filter', async () => {
    const { table } = tableOverCache()
    table.want({ start: 0, end: 20 })
    table.setQuestion({ ...kinase, level: 'batch' })
    await settle()
    table.selection.selectOnly(0, table.keyAt)
    table.selection.extendTo(3, table.keyAt)
    // Batches 1 to 4 belong to molecules 1 and 2.
    expect([...table.selection.keys]).toEqual([1, 2, 3, 4])
    expect(table.selectedMoleculeIds()).toEqual([1, 2])

    table.setQuestion({ ...table.question, sort: { column: 'name', direction: 'desc' } })
    await settle()
    expect(table.rows[0]?.subjectId).toBe(250)
    expect(table.selectedMoleculeIds()).toEqual([1, 2])

    table.setQuestion({ ...table.question, text: 'VD-00002' })
    await settle()
    expect(table.selection.size).toBe(0)
  })

  it('is not read again when shown as a plot, nor for another plot column', async () => {
    const { table, pageReads, asked } = tableOverCache()
    table.want({ start: 0, end: 20 })
    table.setQuestion(kinase)
    await settle()
    table.selection.selectOnly(2, table.keyAt)
    const reads = asked.length
    table.setQuestion({ ...kinase, view: 'plot' })
    table.setQuestion({ ...kinase, view: 'plot', plot: { x: '3:15', colour: 'logP' } })
    await settle()
    expect(asked).toHaveLength(reads)
    expect(table.question.plot).toEqual({ x: '3:15', colour: 'logP' })
    expect([...table.selection.keys]).toEqual([3])
    expect(pageReads()).toHaveLength(1)
  })

  it('narrows to the molecules picked in the plot, a batch by its molecule', async () => {
    const { table, pageReads } = tableOverCache()
    table.want({ start: 0, end: 20 })
    table.setQuestion({ ...kinase, level: 'batch', picked: picks.pick([7, 3, 120]) })
    await settle()
    expect(pageReads().at(-1)).toMatchObject({ level: 'batch', moleculeIds: [3, 7, 120] })
    expect(table.rows.map((row) => row?.subjectId)).toEqual([5, 6, 13, 14, 239, 240])
    expect(table.selectedMoleculeIds()).toEqual([])

    // A pick this window no longer keeps narrows nothing (the screen says so).
    table.setQuestion({ ...kinase, picked: { ids: null, token: '~0000000000000a' } })
    await settle()
    expect(pageReads().at(-1)).not.toHaveProperty('moleculeIds')
    expect(table.total).toBe(250)
  })

  it('selects every row of a large table, reading the pages not read yet', async () => {
    const { table, pageReads } = tableOverCache()
    table.want({ start: 0, end: 20 })
    table.setQuestion(kinase)
    await settle()
    expect(await table.selectAll()).toBe(true)
    expect(table.selection.size).toBe(250)
    expect(table.selectedMoleculeIds()).toHaveLength(125)
    expect(pageReads().at(-1)).toMatchObject({ limit: 1000, offset: 0 })
  })
})

const noBacklog: IndexBacklog = { rows: 0, groups: 0 }
