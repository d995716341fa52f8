import { describe, expect, it } from 'vitest'
import type { RequestArgs, RequestResult, Result } from '../bridge.ts'
import { chosenAxes, memberReadouts, plotChoices } from '../results/plot-columns.ts'
import type { PlotChoices } from '../results/results-address.ts'
import { deferred, settle } from '../testing/bridge-double.ts'
import { quietBridge } from '../testing/quiet-bridge.ts'
import { ResultsPlot, type PlotRequest } from './results-plot.svelte.ts'
import type { IndexBacklog } from './results-table.svelte.ts'

type PointsArgs = RequestArgs<'results.points'>
type PointsAnswer = RequestResult<'results.points'>
type TableArgs = RequestArgs<'results.table'>

const ic50 = { protocolId: 3, definitionId: 12 }
const inhibition = { protocolId: 3, definitionId: 15 }
const readouts = [
  { key: '3:12', column: ic50, label: 'IC50', protocolName: 'Kinase', unit: 'uM', numeric: true },
  {
    key: '3:15',
    column: inhibition,
    label: '% Inhibition',
    protocolName: 'Kinase',
    unit: '%',
    numeric: true,
  },
] as const
const choices = plotChoices(readouts)
const noBacklog: IndexBacklog = { rows: 0, groups: 0 }

/**
 * Twenty molecules of a vault as the cache answers `results.points`: IC50 on the odd ones,
 * % inhibition on all but every fourth, cLogP on all; `criteria` keep the first ten.
 */
function pointsOf(
  args: PointsArgs,
  backlog: IndexBacklog = noBacklog,
  count = args.criteria?.length ? 10 : 20,
): Result<PointsAnswer> {
  const ids = Array.from({ length: count }, (_, index) => index + 1)
  const valueOf = (column: PointsArgs['columns'][number], id: number) => {
    if ('property' in column) return column.property === 'logP' ? id / 10 : 200 + id
    if (column.definitionId === 12) return id % 2 === 1 ? 0.01 * id : null
    return id % 4 === 0 ? null : 5 * id
  }
  return {
    ok: true,
    value: {
      ids,
      values: args.columns.map((column) => ids.map((id) => valueOf(column, id))),
      modifiers: args.columns.map((column) =>
        ids.map((id) => ('property' in column || id !== 19 ? null : '>')),
      ),
      backlog,
    },
  }
}

function requestOf(chosen: PlotChoices = {}, criteria?: string[]): PlotRequest {
  return {
    scope: criteria ? { criteria } : {},
    axes: chosenAxes(choices, chosen),
    members: memberReadouts(choices),
    ranges: [],
    readouts: [ic50, inhibition],
  }
}

function plotOverCache(answer: (args: PointsArgs) => Promise<Result<PointsAnswer>>) {
  const asked: PointsArgs[] = []
  const scheduled: (() => void)[] = []
  const errors: string[] = []
  const bridge = quietBridge()
    .answer('results.points', () => {
      const args = bridge.calls.at(-1)!.args as PointsArgs
      asked.push(args)
      return answer(args)
    })
    .answer('results.table', async () => {
      const args = bridge.calls.at(-1)!.args as TableArgs
      const rows = (args.moleculeIds ?? [])
        .filter((id) => id <= 20)
        .map((id) => ({
          subjectId: id,
          moleculeId: id,
          name: `VD-${String(id).padStart(6, '0')}`,
          cells: [],
        }))
      return { ok: true, value: { total: rows.length, rows, backlog: noBacklog } }
    })
  const plot = new ResultsPlot(bridge, (message) => errors.push(message), {
    connectionId: 'c1',
    vaultId: 2,
    schedule: (work) => void scheduled.push(work),
  })
  const runScheduled = async () => {
    for (const work of scheduled.splice(0)) work()
    await settle()
  }
  return { plot, bridge, asked, scheduled, errors, runScheduled }
}

const columnsAsked = (args: PointsArgs) =>
  args.columns.map((column) =>
    'property' in column ? column.property : `${column.protocolId}:${column.definitionId}`,
  )

describe('ResultsPlot', () => {
  it('reads nothing until shown, then every molecule with a readout number, once', async () => {
    const { plot, asked } = plotOverCache(async (args) => pointsOf(args))
    plot.ask(requestOf())
    await settle()
    expect(asked).toEqual([])

    plot.setActive(true)
    await settle()
    expect(asked.map(columnsAsked)).toEqual([['3:12', '3:15']])
    expect(asked[0]).toEqual({ connectionId: 'c1', vaultId: 2, columns: [ic50, inhibition] })
    // Every fourth molecule has neither readout (no IC50 on even ones, no inhibition there).
    const points = plot.points!
    expect([...points.ids]).toEqual([1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19])
    expect(points.inScope).toBe(20)
    expect(points.axes.x?.key).toBe('3:12')
    expect(points.columns.get('3:12')!.values[1]).toBeNaN()
    expect(points.columns.get('3:12')!.modifiers.at(-1)).toBe('>')

    // The same request again, and the plot hidden and shown: nothing read again.
    plot.ask(requestOf())
    plot.setActive(false)
    plot.setActive(true)
    await settle()
    expect(asked).toHaveLength(1)
  })

  it('reads only the columns a new choice adds, keeping the points already read', async () => {
    const { plot, asked } = plotOverCache(async (args) => pointsOf(args))
    plot.setActive(true)
    plot.ask(requestOf())
    await settle()
    const before = plot.points!
    const x = plot.plotColumn(before.axes.x)

    plot.ask(requestOf({ colour: 'logP', size: 'molecularWeight' }))
    // Until the new columns arrive, the plot shows what it had.
    expect(plot.points).toBe(before)
    await settle()
    expect(asked.map(columnsAsked)).toEqual([
      ['3:12', '3:15'],
      ['logP', 'molecularWeight'],
    ])
    const after = plot.points!
    expect(after.axes.colour?.key).toBe('logP')
    expect(after.columns.get('logP')!.values[0]).toBeCloseTo(0.1)
    // The x axis did not change: the plot is given the very same column.
    expect(after.ids).toBe(before.ids)
    expect(plot.plotColumn(after.axes.x)).toBe(x)
  })

  it('reads a new scope whole, one read at a time, dropping answers to older ones', async () => {
    const gates: ReturnType<typeof deferred<Result<PointsAnswer>>>[] = []
    const { plot, asked } = plotOverCache((args) => {
      const gate = deferred<Result<PointsAnswer>>()
      gates.push(gate)
      return gate.promise.then(() => pointsOf(args))
    })
    plot.setActive(true)
    plot.ask(requestOf())
    await settle()
    gates[0]!.resolve(pointsOf(asked[0]!))
    await settle()
    expect(plot.points?.inScope).toBe(20)

    plot.ask(requestOf({}, ['Kinase: IC50 < 1 uM']))
    await settle()
    plot.ask(requestOf({ colour: 'logP' }, ['Kinase: IC50 < 2 uM']))
    plot.ask(requestOf({ colour: 'logP' }, ['Kinase: IC50 < 3 uM']))
    await settle()
    // The first criterion's read is still out: nothing else is asked meanwhile.
    expect(asked).toHaveLength(2)
    gates[1]!.resolve(pointsOf(asked[1]!))
    await settle()
    expect(plot.points?.inScope).toBe(20)
    expect(asked).toHaveLength(3)
    expect(asked[2]).toMatchObject({ criteria: ['Kinase: IC50 < 3 uM'] })
    expect(columnsAsked(asked[2]!)).toEqual(['3:12', '3:15', 'logP'])
    gates[2]!.resolve(pointsOf(asked[2]!))
    await settle()
    expect(plot.points?.inScope).toBe(10)
    expect(plot.points?.axes.colour?.key).toBe('logP')
    expect(plot.reading).toBe(false)
  })

  it('reads again a moment after the cache changes, and while the index is built', async () => {
    let backlog: IndexBacklog = { rows: 500, groups: 3 }
    const { plot, bridge, asked, scheduled, runScheduled } = plotOverCache(async (args) =>
      pointsOf(args, backlog),
    )
    const stop = plot.start()
    plot.setActive(true)
    plot.ask(requestOf())
    await settle()
    expect(asked).toHaveLength(1)
    expect(plot.backlog).toEqual({ rows: 500, groups: 3 })
    // Indexing: one more read is due, however many pages sync commits meanwhile.
    for (const kinds of [['readout_rows'], ['molecules'], ['projects']]) {
      bridge.emit('records.changed', { connectionId: 'c1', vaultId: 2, kinds })
    }
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 9, kinds: ['readout_rows'] })
    expect(scheduled).toHaveLength(1)
    backlog = noBacklog
    await runScheduled()
    expect(asked).toHaveLength(2)
    expect(columnsAsked(asked[1]!)).toEqual(['3:12', '3:15'])
    // The index is built: no more reads are due.
    expect(scheduled).toHaveLength(0)

    stop()
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 2, kinds: ['readout_rows'] })
    await runScheduled()
    expect(asked).toHaveLength(2)
  })

  it('leaves a refused criterion to the table, and tells of other failures once', async () => {
    let failure: { code: 'invalid_argument' | 'internal'; message: string } | null = {
      code: 'invalid_argument',
      message: 'Kinase has no readout "IC5".',
    }
    const { plot, errors } = plotOverCache(async (args) =>
      failure ? { ok: false, error: failure } : pointsOf(args),
    )
    plot.setActive(true)
    plot.ask(requestOf({}, ['Kinase: IC5 < 1 uM']))
    await settle()
    expect(plot.error).toBe('Kinase has no readout "IC5".')
    expect(plot.points).toBeNull()
    expect(errors).toEqual([])

    failure = { code: 'internal', message: 'The cache could not be read.' }
    plot.ask(requestOf({}, ['Kinase: IC50 < 1 uM']))
    await settle()
    plot.ask(requestOf({}, ['Kinase: IC50 < 2 uM']))
    await settle()
    expect(errors).toEqual(['Could not read the points of the plot: The cache could not be read.'])

    failure = null
    plot.ask(requestOf({}, ['Kinase: IC50 < 3 uM']))
    await settle()
    expect(plot.error).toBeNull()
    expect(plot.points?.inScope).toBe(10)
  })

  it('reads the names of a small plot’s molecules at once, through the table', async () => {
    const { plot, bridge } = plotOverCache(async (args) => pointsOf(args))
    const nameReads = () =>
      bridge.calls.filter((call) => call.channel === 'results.table').map((call) => call.args)
    plot.setActive(true)
    plot.ask(requestOf())
    await settle()
    expect(nameReads()).toEqual([
      {
        connectionId: 'c1',
        vaultId: 2,
        level: 'molecule',
        columns: [ic50, inhibition],
        moleculeIds: [...plot.points!.ids],
        limit: 1000,
      },
    ])
    expect([3, 5, 3].map(plot.nameOf)).toEqual(['VD-000003', 'VD-000005', 'VD-000003'])
    // A molecule the plot does not have is read when asked for, once, and named by its id.
    expect(plot.nameOf(99)).toBe('Molecule 99')
    await settle()
    expect(nameReads().slice(1)).toMatchObject([{ moleculeIds: [99] }])
    expect(plot.nameOf(99)).toBe('Molecule 99')
    await settle()
    expect(nameReads()).toHaveLength(2)
  })

  it('reads the names of a large plot’s molecules as they are shown, together', async () => {
    const { plot, bridge } = plotOverCache(async (args) => pointsOf(args, noBacklog, 8000))
    const nameReads = () =>
      bridge.calls.filter((call) => call.channel === 'results.table').map((call) => call.args)
    plot.setActive(true)
    plot.ask(requestOf())
    await settle()
    expect(plot.points!.ids.length).toBeGreaterThan(5000)
    expect(nameReads()).toEqual([])
    expect([3, 5, 3, 99].map(plot.nameOf)).toEqual([
      'Molecule 3',
      'Molecule 5',
      'Molecule 3',
      'Molecule 99',
    ])
    await settle()
    expect(nameReads()).toMatchObject([{ moleculeIds: [3, 5, 99], limit: 1000 }])
    expect([3, 5, 99].map(plot.nameOf)).toEqual(['VD-000003', 'VD-000005', 'Molecule 99'])
    await settle()
    expect(nameReads()).toHaveLength(1)
  })
})
