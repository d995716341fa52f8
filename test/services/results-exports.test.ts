/**
 * Results tables saved as files through the contract (`exports.startResults`), as a window asks,
 * from the demo vault synced from the simulator over real HTTP: every format read back by an
 * independent reader (Python's csv, Debian's RDKit, openpyxl) and compared with `results.table`
 * for the same question, paged as a window pages it; page edges among few rows; refusals before
 * any file exists. Lists exported in small pages read by key come out exactly as the list.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProtocolEntry } from '../../src-common/analysis/readouts/catalogue.ts'
import type {
  ResultsCell,
  ResultsColumn,
  ResultsRow,
} from '../../src-common/analysis/readouts/results-table.ts'
import type { RecordRow } from '../../src-common/records/record-row.ts'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type { ExportProgress, ExportStarted } from '../../src-main/ipc/contract.ts'
import type { ResultsAnswer, ResultsCatalogue } from '../../src-main/ipc/results/contract.ts'
import { ExportService } from '../../src-main/services/export-service.ts'
import type { Services } from '../../src-main/services/index.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import {
  canonicalSmiles,
  exportReadersHere,
  readCsv,
  readSdf,
  readXlsx,
} from '../support/export-readers.ts'
import { nextEvent, testServices } from './support.ts'

const readersHere = exportReadersHere()
let sim: VaultSim
let services: Services
let dispose: () => Promise<void>
let dispatch: Dispatch
let main: number
let connectionId: string
let folder: string
let catalogue: ProtocolEntry[]

beforeAll(async () => {
  sim = await startDemoSnapshotSim({ port: 0 })
  main = sim.cast.vaults.main.id
  ;({ services, dispose } = testServices())
  dispatch = createDispatcher(createHandlers(services), services.log)
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-results-exports-'))
  const added = await call<{ connection: { id: string } }>('connections.add', {
    name: 'Lab',
    baseUrl: sim.baseUrl,
    token: sim.cast.users.admin.tokens[0]!,
    sessionOnly: true,
  })
  connectionId = added.connection.id
  const synced = nextEvent(
    services,
    'sync.changed',
    (state) => state.connectionId === connectionId && !state.running,
  )
  await call('sync.start', { connectionId })
  expect(await synced).toMatchObject({ lastOutcome: 'completed' })
  await sim.stop()
  // The readout index complete, as a window's results table waits for it.
  services.runtimes.get(connectionId).cache.readoutIndex().complete()
  const answer = await call<ResultsCatalogue>('results.catalogue', {
    connectionId,
    vaultId: main,
  })
  catalogue = [...answer.protocols]
}, 180_000)

afterAll(async () => {
  await sim?.stop().catch(() => {})
  await dispose?.()
  if (folder) fs.rmSync(folder, { recursive: true, force: true })
})

async function call<T>(channel: string, args: unknown): Promise<T> {
  const result = await dispatch(channel, args)
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`)
  return result.value as T
}

async function refusal(channel: string, args: unknown): Promise<{ code: string; message: string }> {
  const result = await dispatch(channel, args)
  if (result.ok) throw new Error(`${channel} was expected to fail`)
  return result.error
}

function column(protocolName: string, readoutName: string): ResultsColumn {
  const protocol = catalogue.find((entry) => entry.name === protocolName)!
  return {
    protocolId: protocol.id,
    definitionId: protocol.readouts.find((readout) => readout.name === readoutName)!.id,
  }
}

function namesOf(columns: readonly ResultsColumn[]): { name: string; unit: string | null }[] {
  return columns.map(({ protocolId, definitionId }) => {
    const protocol = catalogue.find((entry) => entry.id === protocolId)!
    const readout = protocol.readouts.find((entry) => entry.id === definitionId)!
    return { name: `${protocol.name}: ${readout.name}`, unit: readout.unit }
  })
}

/** The whole table as a window pages it through `results.table`. */
async function wholeTable(question: Record<string, unknown>): Promise<ResultsRow[]> {
  const rows: ResultsRow[] = []
  for (let offset = 0; ; offset += 1000) {
    const page = await call<ResultsAnswer>('results.table', {
      connectionId,
      vaultId: main,
      ...question,
      offset,
      limit: 1000,
    })
    rows.push(...page.rows)
    if (page.rows.length < 1000) return rows
  }
}

/** The cached molecules by id, as a record page shows them. */
function molecules(ids: readonly number[]): Map<number, RecordRow> {
  const found = new Map<number, RecordRow>()
  for (let start = 0; start < ids.length; start += 1000) {
    const page = services.browse.list(connectionId, main, 'molecules', {
      ids: ids.slice(start, start + 1000),
      limit: 1000,
    })
    for (const row of page.rows) found.set(row.id!, row)
  }
  return found
}

/** Starts an export of a results table through the contract and waits for its last event. */
async function exported(args: Record<string, unknown>): Promise<ExportProgress> {
  let exportId: string | null = null
  const seen: ExportProgress[] = []
  const ended = new Promise<void>((resolve) => {
    const off = services.events.on('exports.progress', (progress) => {
      seen.push(progress)
      if (progress.exportId === exportId && progress.state !== 'running') {
        off()
        resolve()
      }
    })
  })
  const started = await call<ExportStarted>('exports.startResults', {
    connectionId,
    vaultId: main,
    ...args,
  })
  exportId = started.exportId
  if (!seen.some((event) => event.exportId === exportId && event.state !== 'running')) {
    await ended
  }
  return seen.filter((event) => event.exportId === exportId).at(-1)!
}

/** A cell as the four columns of a CSV read it back: value, modifier, unit, n (text). */
function cellTexts(cell: ResultsCell | null, unit: string | null): string[] {
  if (cell === null) return ['', '', '', '']
  const number = cell.kind === 'number' && cell.number !== null
  const value = number ? String(cell.number) : (cell.text?.trim() ?? '')
  return [value, cell.modifier ?? '', number ? (unit ?? '') : '', String(cell.n)]
}

describe.runIf(readersHere)('exports of a results table', () => {
  const kinase = 'Kinase IC50 (ADP-Glo)'

  it('writes CSV and JSON Lines rows equal to results.table, with SMILES and every aggregate', async () => {
    const columns = [
      column(kinase, 'IC50'),
      column(kinase, '% Inhibition'),
      column('Kinetic Solubility (PBS pH 7.4)', 'Solubility'),
    ]
    const question = { level: 'molecule', columns, sort: { column: 0, direction: 'asc' } }
    const expected = await wholeTable(question)
    expect(expected.length).toBeGreaterThan(50)
    expect(expected.some((row) => row.cells[0]?.modifier)).toBe(true)
    const named = namesOf(columns)
    const records = molecules(expected.map((row) => row.subjectId))

    const file = path.join(folder, 'results.csv')
    const ended = await exported({ ...question, format: 'csv', path: file })
    expect(ended).toMatchObject({ state: 'completed', written: expected.length })
    const [header, ...rows] = readCsv(file)
    expect(header).toEqual([
      'ID',
      'Name',
      'SMILES',
      ...named.flatMap(({ name }) => [name, `${name} modifier`, `${name} unit`, `${name} n`]),
    ])
    expect(rows).toEqual(
      expected.map((row) => [
        String(row.subjectId),
        row.name ?? '',
        String(records.get(row.subjectId)!.json.smiles ?? ''),
        ...row.cells.flatMap((cell, index) => cellTexts(cell, named[index]!.unit)),
      ]),
    )
    // Numbers read back exactly: the CSV holds the aggregate, not the table's rounded text.
    rows.forEach((cells, index) => {
      const cell = expected[index]!.cells[0]
      if (cell?.kind === 'number') expect(Number(cells[3])).toBe(cell.number)
    })

    const jsonl = path.join(folder, 'results.jsonl')
    await exported({ ...question, format: 'jsonl', path: jsonl })
    const lines = fs
      .readFileSync(jsonl, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines.map((line) => line.ID)).toEqual(expected.map((row) => row.subjectId))
    lines.forEach((line, index) => {
      const row = expected[index]!
      named.forEach(({ name }, column) => {
        const cell = row.cells[column]
        expect(line[`${name} n`]).toBe(cell ? cell.n : null)
        if (cell?.kind === 'number') expect(line[name]).toBe(cell.number)
      })
    })
  }, 120_000)

  it('writes an SD file RDKit reads back: the molecules, names and aggregates of the table', async () => {
    const columns = [column(kinase, 'IC50')]
    const question = {
      level: 'molecule',
      columns,
      ranges: [{ column: 0, max: 10 }],
      sort: { column: 'name', direction: 'desc' },
    }
    const expected = await wholeTable(question)
    expect(expected.length).toBeGreaterThan(5)
    const file = path.join(folder, 'results.sdf')
    expect(await exported({ ...question, format: 'sdf', path: file })).toMatchObject({
      state: 'completed',
    })
    const read = readSdf(file)
    const records = molecules(expected.map((row) => row.subjectId))
    const smiles = canonicalSmiles(
      expected.map((row) => String(records.get(row.subjectId)!.json.smiles)),
    )
    const [{ name }] = namesOf(columns) as [{ name: string; unit: string | null }]
    expect(read).toHaveLength(expected.length)
    read.forEach((record, index) => {
      const row = expected[index]!
      expect(record, `molecule ${row.subjectId}`).not.toBeNull()
      expect(record!.smiles).toBe(smiles[index])
      expect(record!.title).toBe(row.name)
      expect(record!.properties.ID).toBe(row.subjectId)
      expect(record!.properties.SMILES).toBeUndefined()
      const cell = row.cells[0]!
      expect(record!.properties[name]).toBeCloseTo(cell.number!, 12)
      expect(record!.properties[`${name} n`]).toBe(cell.n)
      expect(record!.properties[`${name} modifier`]).toBe(cell.modifier ?? undefined)
    })
  }, 120_000)

  it('writes a table by batch to Excel that openpyxl reads back, numbers as numbers', async () => {
    const columns = [column(kinase, 'IC50')]
    const question = { level: 'batch', columns, criteria: [`${kinase}: IC50 < 30 uM`] }
    const expected = await wholeTable(question)
    expect(expected.length).toBeGreaterThan(5)
    const file = path.join(folder, 'batches.xlsx')
    expect(await exported({ ...question, format: 'xlsx', path: file })).toMatchObject({
      state: 'completed',
    })
    const [sheet] = readXlsx(file)
    expect(sheet!.title).toBe('Results by batch')
    const [{ name, unit }] = namesOf(columns) as [{ name: string; unit: string | null }]
    expect(sheet!.rows[0]).toEqual([
      'ID',
      'Molecule ID',
      'Name',
      'SMILES',
      name,
      `${name} modifier`,
      `${name} unit`,
      `${name} n`,
    ])
    const records = molecules(expected.map((row) => row.moleculeId!))
    expect(sheet!.rows.slice(1)).toEqual(
      expected.map((row) => {
        const cell = row.cells[0]
        return [
          row.subjectId,
          row.moleculeId,
          row.name,
          records.get(row.moleculeId!)!.json.smiles ?? null,
          cell?.kind === 'number' ? cell.number : (cell?.text ?? null),
          cell?.modifier ?? null,
          cell?.kind === 'number' ? unit : null,
          cell ? cell.n : null,
        ]
      }),
    )
  }, 120_000)

  it('reads the table in pages: small pages write the same file', async () => {
    const columns = [column(kinase, 'IC50'), column(kinase, '% Inhibition')]
    const question = {
      level: 'molecule' as const,
      columns,
      sort: { column: 1, direction: 'desc' as const },
    }
    const small = new ExportService({
      browse: services.browse,
      results: services.results,
      chem: services.chem,
      events: services.events,
      log: services.log,
      pageSize: 7,
    })
    const file = path.join(folder, 'small-pages.csv')
    const summary = await small.resultsToFile(
      { connectionId, vaultId: main, question, format: 'csv' },
      file,
    )
    const whole = path.join(folder, 'whole.csv')
    await exported({ ...question, format: 'csv', path: whole })
    expect(summary.records).toBe((await wholeTable(question)).length)
    expect(summary.notes).toEqual([])
    expect(fs.readFileSync(file, 'utf8')).toBe(fs.readFileSync(whole, 'utf8'))
  }, 60_000)

  it('refuses, before any file exists, a table it cannot export', async () => {
    const base = { connectionId, vaultId: main, level: 'molecule', format: 'csv' }
    const kinaseEntry = catalogue.find((entry) => entry.name === kinase)!
    const unknownReadout = await refusal('exports.startResults', {
      ...base,
      columns: [{ protocolId: kinaseEntry.id, definitionId: 999_999 }],
      path: path.join(folder, 'unknown.csv'),
    })
    expect(unknownReadout).toMatchObject({ code: 'not_found' })
    expect(unknownReadout.message).toContain(`${kinase} has no readout 999999: its readouts are`)
    const noColumns = await refusal('exports.startResults', {
      ...base,
      columns: [],
      path: path.join(folder, 'none.csv'),
    })
    expect(noColumns.code).toBe('invalid_argument')
    const badCriterion = await refusal('exports.startResults', {
      ...base,
      columns: [column(kinase, 'IC50')],
      criteria: ['No Such Protocol: IC50 < 1'],
      path: path.join(folder, 'bad.csv'),
    })
    expect(badCriterion.code).toBe('invalid_argument')
    expect(badCriterion.message).toMatch(/No Such Protocol/)
    const wrongEnding = await refusal('exports.startResults', {
      ...base,
      columns: [column(kinase, 'IC50')],
      format: 'sdf',
      path: path.join(folder, 'results.csv.txt'),
    })
    expect(wrongEnding.message).toMatch(/\.sdf file/)
    expect(
      fs.readdirSync(folder).filter((name) => /unknown|none|bad|\.partial/.test(name)),
    ).toEqual([])
  })
})

describe.runIf(readersHere)('a list exported in small pages', () => {
  it('holds every record of the list once, in its order, for an indexed and another sort', async () => {
    for (const sort of [
      { sort: 'name', direction: 'desc' },
      { sort: 'log_p', direction: 'asc' },
    ] as const) {
      const small = new ExportService({
        browse: services.browse,
        results: services.results,
        chem: services.chem,
        events: services.events,
        log: services.log,
        pageSize: 97,
      })
      const file = path.join(folder, `list-${sort.sort}.csv`)
      const summary = await small.toFile(
        {
          connectionId,
          vaultId: main,
          question: { kind: 'molecules', ...sort },
          format: 'csv',
          columns: 'view',
        },
        file,
      )
      const shown: number[] = []
      for (let offset = 0; ; offset += 1000) {
        const page = services.browse.list(connectionId, main, 'molecules', {
          ...sort,
          offset,
          limit: 1000,
        })
        shown.push(...page.rows.map((row) => row.id!))
        if (page.rows.length < 1000) break
      }
      expect(summary.records).toBe(2000)
      expect(
        readCsv(file)
          .slice(1)
          .map((cells) => Number(cells[0])),
      ).toEqual(shown)
    }
  }, 60_000)
})
