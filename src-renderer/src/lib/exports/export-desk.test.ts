import { describe, expect, it } from 'vitest'
import type { EventPayload, RequestArgs, Result } from '../bridge.ts'
import { deferred, settle } from '../testing/bridge-double.ts'
import { quietBridge } from '../testing/quiet-bridge.ts'
import { RecordList } from '../state/record-list.svelte.ts'
import { ResultsTable } from '../state/results-table.svelte.ts'
import { ExportDesk, progressText, type SaveRequest } from './export-desk.svelte.ts'
import { formatChoices } from './export-formats.ts'
import { listExportQuestion, resultsExportQuestion } from './export-questions.ts'

const exportId = '7d3f9a52-4c1e-4f7a-9b0e-2f1c3d4e5a6b'
const question = { connectionId: 'c1', vaultId: 1, kind: 'molecules' as const, text: 'VD-1' }
const csvOfMolecules: SaveRequest = {
  source: 'list',
  question,
  columns: 'view',
  format: 'csv',
  bom: true,
  suggestedName: 'Molecules VD-1',
  noun: 'molecules',
}

type ExportProgress = EventPayload<'exports.progress'>

const progress = (state: ExportProgress['state'], more: Partial<ExportProgress> = {}) => ({
  exportId,
  state,
  path: '/home/ada/Molecules VD-1.csv',
  written: 0,
  total: 2000,
  bytes: 0,
  ...more,
})

function deskOver(target: { path: string; name: string; download?: string } | null) {
  const downloads: { href: string; name: string }[] = []
  const bridge = quietBridge()
    .answer('app.chooseSavePath', async () => ({ ok: true, value: target }))
    .answer('exports.start', async () => ({
      ok: true,
      value: { exportId, path: target?.path ?? '' },
    }))
    .answer('exports.cancel', async () => ({ ok: true, value: { cancelled: true } }))
    .answer('app.showInFolder', async () => ({ ok: true, value: { shown: true } }))
  const desk = new ExportDesk(bridge, { download: (href, name) => downloads.push({ href, name }) })
  const stop = desk.start()
  return { desk, bridge, downloads, stop }
}

const saved = { path: '/home/ada/Molecules VD-1.csv', name: 'Molecules VD-1.csv' }

describe('ExportDesk', () => {
  it('asks where to save, starts the export there, and follows it to the end', async () => {
    const { desk, bridge, downloads } = deskOver(saved)
    expect(await desk.save(csvOfMolecules)).toEqual({ kind: 'started', exportId })
    expect(bridge.calls.map((call) => call.args)).toEqual([
      { format: 'csv', suggestedName: 'Molecules VD-1' },
      { ...question, format: 'csv', columns: 'view', bom: true, path: saved.path },
    ])
    expect(desk.jobs).toMatchObject([{ exportId, state: 'running', name: saved.name }])

    bridge.emit('exports.progress', progress('running', { written: 1000 }))
    expect(progressText(desk.jobs[0]!)).toBe('1,000 of 2,000 molecules')
    bridge.emit('exports.progress', progress('completed', { written: 2000, notes: ['Note'] }))
    expect(desk.jobs[0]).toMatchObject({ state: 'completed', written: 2000, notes: ['Note'] })
    // Saved through the dialog: nothing to download; the file can be shown in its folder.
    expect(downloads).toEqual([])
    await desk.showInFolder(exportId)
    expect(bridge.calls.at(-1)).toEqual({
      channel: 'app.showInFolder',
      args: { path: saved.path },
    })
    desk.dismiss(exportId)
    expect(desk.jobs).toEqual([])
  })

  it('starts nothing when the person closes the save dialog', async () => {
    const { desk, bridge } = deskOver(null)
    expect(await desk.save(csvOfMolecules)).toEqual({ kind: 'dismissed' })
    expect(bridge.calls.map((call) => call.channel)).toEqual(['app.chooseSavePath'])
    expect(desk.jobs).toEqual([])
  })

  it('passes the byte order mark only with CSV, and the results question as it is', async () => {
    const { desk, bridge } = deskOver(saved)
    bridge.answer('exports.startResults', async () => ({
      ok: true,
      value: { exportId, path: saved.path },
    }))
    const table = {
      connectionId: 'c1',
      vaultId: 1,
      level: 'batch' as const,
      columns: [{ protocolId: 3, definitionId: 12 }],
    }
    await desk.save({ ...csvOfMolecules, source: 'results', question: table, format: 'sdf' })
    expect(bridge.calls.at(-1)).toEqual({
      channel: 'exports.startResults',
      args: { ...table, format: 'sdf', path: saved.path },
    })
  })

  it('downloads the file in the browser preview once, when complete', async () => {
    const download = '/downloads/abc/Molecules%20VD-1.csv'
    const { desk, bridge, downloads } = deskOver({ ...saved, download })
    await desk.save(csvOfMolecules)
    bridge.emit('exports.progress', progress('running', { written: 1000 }))
    expect(downloads).toEqual([])
    bridge.emit('exports.progress', progress('completed', { written: 2000 }))
    bridge.emit('exports.progress', progress('completed', { written: 2000 }))
    expect(downloads).toEqual([{ href: download, name: saved.name }])
  })

  it('keeps progress that came before the answer naming the export', async () => {
    const { desk, bridge } = deskOver(saved)
    const started = deferred<Result<{ exportId: string; path: string }>>()
    bridge.answer('exports.start', () => started.promise)
    const saving = desk.save(csvOfMolecules)
    await settle()
    // A short export: main has finished it before its answer is read.
    bridge.emit('exports.progress', progress('running', { written: 10, total: 10 }))
    bridge.emit('exports.progress', progress('completed', { written: 10, total: 10 }))
    started.resolve({ ok: true, value: { exportId, path: saved.path } })
    await saving
    expect(desk.jobs).toMatchObject([{ state: 'completed', written: 10, total: 10 }])
  })

  it('cancels, and says when it could not', async () => {
    const { desk, bridge } = deskOver(saved)
    await desk.save(csvOfMolecules)
    await desk.cancel(exportId)
    expect(bridge.calls.at(-1)).toEqual({ channel: 'exports.cancel', args: { exportId } })
    expect(desk.jobs[0]).toMatchObject({ state: 'running', cancelling: true })
    bridge.emit('exports.progress', progress('cancelled', { written: 1000 }))
    expect(desk.jobs[0]).toMatchObject({ state: 'cancelled', cancelling: false })
    // A later event of the same export changes nothing.
    bridge.emit('exports.progress', progress('running', { written: 1500 }))
    expect(desk.jobs[0]).toMatchObject({ state: 'cancelled', written: 1000 })

    await desk.save(csvOfMolecules)
    bridge.answer('exports.cancel', async () => ({
      ok: false,
      error: { code: 'internal', message: 'The connection to main closed.' },
    }))
    desk.dismiss(exportId)
    await desk.cancel(exportId)
    expect(desk.jobs.at(-1)).toMatchObject({
      state: 'running',
      cancelling: false,
      error: 'The connection to main closed.',
    })
  })

  it('answers a refusal with its message, and shows a failure with its reason', async () => {
    const { desk, bridge } = deskOver(saved)
    const refusal = 'An SD file holds structures, and plates have none.'
    bridge.answer('exports.start', async () => ({
      ok: false,
      error: { code: 'invalid_argument', message: refusal },
    }))
    expect(await desk.save(csvOfMolecules)).toEqual({ kind: 'refused', message: refusal })
    expect(desk.jobs).toEqual([])

    bridge.answer('exports.start', async () => ({
      ok: true,
      value: { exportId, path: saved.path },
    }))
    await desk.save(csvOfMolecules)
    // A running export cannot be dismissed, only cancelled.
    desk.dismiss(exportId)
    expect(desk.jobs).toHaveLength(1)
    bridge.emit(
      'exports.progress',
      progress('failed', { error: { code: 'storage', message: 'The disk is full.' } }),
    )
    expect(desk.jobs[0]).toMatchObject({ state: 'failed', error: 'The disk is full.' })

    bridge.answer('app.chooseSavePath', async () => ({
      ok: false,
      error: { code: 'invalid_argument', message: 'This Vault Desk host has no save dialog.' },
    }))
    expect(await desk.save(csvOfMolecules)).toEqual({
      kind: 'refused',
      message: 'This Vault Desk host has no save dialog.',
    })
  })

  it('stops following progress once stopped', () => {
    const { bridge, stop } = deskOver(saved)
    expect(bridge.listenerCount('exports.progress')).toBe(1)
    stop()
    expect(bridge.listenerCount('exports.progress')).toBe(0)
  })
})

describe('formatChoices', () => {
  it('offers an SD file only for molecules and results tables', () => {
    const formats = (subject: Parameters<typeof formatChoices>[0]) =>
      formatChoices(subject).map((choice) => choice.format)
    expect(formats({ kind: 'molecules' })).toEqual(['csv', 'xlsx', 'sdf', 'jsonl'])
    expect(formats('results')).toEqual(['csv', 'xlsx', 'sdf', 'jsonl'])
    expect(formats({ kind: 'plates' })).toEqual(['csv', 'xlsx', 'jsonl'])
  })
})

describe('the question an export takes', () => {
  it('is the question the list asks for its pages, paging aside', async () => {
    const asked: RequestArgs<'records.list'>[] = []
    const bridge = quietBridge().answer('records.list', async () => {
      asked.push(bridge.calls.at(-1)!.args as RequestArgs<'records.list'>)
      return { ok: true, value: { kind: 'molecules', total: 0, rows: [] } }
    })
    const list = new RecordList(bridge, () => {}, {
      connectionId: 'c1',
      vaultId: 1,
      kind: 'molecules',
      projectFilter: 'projects',
      fixedFilters: { registration_type: 'SMALL_MOLECULE' },
    })
    list.want({ start: 0, end: 20 })
    list.setText('  aspirin ')
    list.setProject(4)
    list.setSort({ columnId: 'name', direction: 'descending' })
    list.setFilters(['mol_weight'], { mol_weight: 180 })
    list.setStructure(
      { kind: 'substructure', query: 'c1ccncc1' },
      { molecularWeight: { max: 500 } },
    )
    await settle()
    const { limit, offset, ...pageQuestion } = asked.at(-1)!
    expect([limit, offset]).toEqual([100, 0])
    expect(listExportQuestion(list)).toEqual(pageQuestion)
    expect(pageQuestion).toMatchObject({ text: 'aspirin', projectId: 4, direction: 'desc' })
  })

  it('is the question the results table asks for its rows, paging aside', async () => {
    const asked: RequestArgs<'results.table'>[] = []
    const bridge = quietBridge()
      .answer('results.catalogue', async () => ({
        ok: true,
        value: { protocols: [], backlog: { rows: 0, groups: 0 } },
      }))
      .answer('results.table', async () => {
        asked.push(bridge.calls.at(-1)!.args as RequestArgs<'results.table'>)
        return { ok: true, value: { total: 0, rows: [], backlog: { rows: 0, groups: 0 } } }
      })
    const table = new ResultsTable(bridge, () => {}, { connectionId: 'c1', vaultId: 2 })
    table.want({ start: 0, end: 20 })
    table.setProject(7)
    table.setQuestion({
      level: 'batch',
      columns: [
        { protocolId: 3, definitionId: 15 },
        { protocolId: 3, definitionId: 12 },
      ],
      sort: { column: '3:12', direction: 'desc' },
      ranges: [{ column: '3:12', min: 0.01, max: 1 }],
      criteria: ['Kinase IC50 (ADP-Glo): IC50 < 1 uM'],
      text: ' VD-0001 ',
    })
    await settle()
    const { limit, offset, ...rowsQuestion } = asked.findLast((args) => args.limit !== 1)!
    expect(offset).toBe(0)
    expect(limit).toBeGreaterThan(1)
    expect(resultsExportQuestion(table)).toEqual(rowsQuestion)
    expect(rowsQuestion).toMatchObject({ sort: { column: 1 }, within: { projectId: 7 } })
  })
})
