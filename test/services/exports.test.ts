/**
 * Exports through the contract, as a window asks for them, from the demo vault synced from the
 * simulator over real HTTP: the same list a view shows (queued changes included, every criterion
 * applied), read back by independent readers (Python's csv, Debian's RDKit, openpyxl); refusals
 * before anything is written; cancel, and a full disk, leaving no file.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type {
  CachedRecordPage,
  ExportProgress,
  ExportStarted,
} from '../../src-main/ipc/contract.ts'
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
const pendingName = 'Renamed offline, "twice"\nÜnïcödé 化合物'

beforeAll(async () => {
  sim = await startDemoSnapshotSim({ port: 0 })
  main = sim.cast.vaults.main.id
  ;({ services, dispose } = testServices())
  dispatch = createDispatcher(createHandlers(services), services.log)
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-exports-'))
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
  // A change waiting in the outbox: the export shows it as the list does.
  await sim.stop()
  const first = await list({ kind: 'molecules', limit: 1 })
  await call('outbox.queue', {
    connectionId,
    vaultId: main,
    operation: 'molecule.update',
    payload: { molecule: first.rows[0]!.id, changes: { name: pendingName } },
  })
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

function list(question: Record<string, unknown>): Promise<CachedRecordPage> {
  return call<CachedRecordPage>('records.list', { connectionId, vaultId: main, ...question })
}

/** Every row of a list, page by page, as a window would scroll it. */
async function wholeList(question: Record<string, unknown>): Promise<CachedRecordPage['rows']> {
  const rows: CachedRecordPage['rows'] = []
  for (let offset = 0; ; offset += 1000) {
    const page = await list({ ...question, offset, limit: 1000 })
    rows.push(...page.rows)
    if (page.rows.length < 1000) return rows
  }
}

/** Starts an export through the contract and waits for its last event. */
async function exported(args: Record<string, unknown>): Promise<ExportProgress[]> {
  const events: ExportProgress[] = []
  let exportId: string | null = null
  const ended = new Promise<void>((resolve) => {
    const off = services.events.on('exports.progress', (progress) => {
      events.push(progress)
      if (progress.exportId === exportId && progress.state !== 'running') {
        off()
        resolve()
      }
    })
  })
  const started = await call<ExportStarted>('exports.start', {
    connectionId,
    vaultId: main,
    ...args,
  })
  exportId = started.exportId
  if (!events.some((event) => event.exportId === exportId && event.state !== 'running')) {
    await ended
  }
  return events.filter((event) => event.exportId === exportId)
}

describe.runIf(readersHere)('exports of a list', () => {
  it('writes the view as the list shows it, queued changes included, and tells its progress', async () => {
    const file = path.join(folder, 'molecules.csv')
    const events = await exported({ kind: 'molecules', format: 'csv', path: file })
    expect(events[0]).toMatchObject({ state: 'running', path: file, total: 2000 })
    expect(events.at(-1)).toMatchObject({ state: 'completed', written: 2000, total: 2000 })
    expect(events.at(-1)!.bytes).toBe(fs.statSync(file).size)

    const rows = readCsv(file)
    const shown = await wholeList({ kind: 'molecules' })
    expect(rows[0]).toEqual([
      'ID',
      'Name',
      'Formula',
      'MW',
      'cLogP',
      'Batches',
      'Projects',
      'Registered',
    ])
    expect(rows.slice(1).map((cells) => Number(cells[0]))).toEqual(shown.map((row) => row.id))
    const renamed = rows.find((cells) => cells[1] === pendingName)
    expect(renamed).toBeDefined()
    const original = shown.find((row) => row.pending !== undefined)!
    expect(Number(renamed![0])).toBe(original.id)
    expect(Number(renamed![3])).toBe(original.columns.molecular_weight)
    expect(fs.readdirSync(folder)).toEqual(['molecules.csv'])
  })

  it('writes a structure search as an SD file RDKit reads back, structures and properties', async () => {
    const question = { kind: 'molecules', structure: { kind: 'substructure', query: 'c1ccncc1' } }
    const file = path.join(folder, 'pyridines.sdf')
    const events = await exported({ ...question, format: 'sdf', path: file })
    expect(events.at(-1)).toMatchObject({ state: 'completed' })
    const shown = await wholeList(question)
    expect(shown.length).toBeGreaterThan(10)
    const read = readSdf(file)
    expect(read).toHaveLength(shown.length)
    const expected = canonicalSmiles(shown.map((row) => String(row.json.smiles)))
    read.forEach((record, index) => {
      const row = shown[index]!
      expect(record, `molecule ${row.id}`).not.toBeNull()
      expect(record!.smiles, `molecule ${row.id}`).toBe(expected[index])
      expect(record!.properties.ID).toBe(row.id)
      expect(String(record!.properties.Formula)).toBe(row.columns.formula)
      expect(record!.properties.MW).toBeCloseTo(row.columns.molecular_weight as number, 10)
      expect(record!.title).toBe(String(row.columns.name).replace(/[\r\n]+/g, ' '))
    })
  }, 120_000)

  it('writes every field to Excel (read by openpyxl and ExcelJS) and JSON Lines', async () => {
    const question = { kind: 'molecules', text: 'REF' }
    const shown = await wholeList(question)
    expect(shown.length).toBeGreaterThan(0)
    const jsonl = path.join(folder, 'ref.jsonl')
    await exported({ ...question, format: 'jsonl', columns: 'all', path: jsonl })
    const lines = fs.readFileSync(jsonl, 'utf8').trimEnd().split('\n')
    expect(lines.map((line) => JSON.parse(line))).toEqual(shown.map((row) => row.json))

    const xlsx = path.join(folder, 'ref.xlsx')
    await exported({ ...question, format: 'xlsx', columns: 'all', path: xlsx })
    const [sheet] = readXlsx(xlsx)
    const header = sheet!.rows[0] as string[]
    expect(header.slice(0, 3)).toEqual(['id', 'class', 'name'])
    expect(header).toContain('molecular_weight')
    expect(sheet!.rows).toHaveLength(shown.length + 1)
    const weight = header.indexOf('molecular_weight')
    sheet!.rows.slice(1).forEach((cells, index) => {
      expect(cells[0]).toBe(shown[index]!.id)
      expect(cells[weight]).toBe(shown[index]!.json.molecular_weight ?? null)
    })
    const workbook = new ExcelJS.Workbook()
    await workbook.xlsx.readFile(xlsx)
    expect(workbook.worksheets[0]!.rowCount).toBe(shown.length + 1)
  }, 60_000)

  it('refuses, before any file exists, what cannot be exported', async () => {
    const sdfOfPlates = await refusal('exports.start', {
      connectionId,
      vaultId: main,
      kind: 'plates',
      format: 'sdf',
      path: path.join(folder, 'plates.sdf'),
    })
    expect(sdfOfPlates).toMatchObject({ code: 'invalid_argument' })
    expect(sdfOfPlates.message).toMatch(/only molecules can be exported as an SD file/)
    const missing = await refusal('exports.start', {
      connectionId,
      vaultId: main,
      kind: 'molecules',
      format: 'csv',
      path: path.join(folder, 'no such folder', 'x.csv'),
    })
    expect(missing.message).toMatch(/does not exist/)
    const wrongEnding = await refusal('exports.start', {
      connectionId,
      vaultId: main,
      kind: 'molecules',
      format: 'xlsx',
      path: path.join(folder, 'molecules.csv'),
    })
    expect(wrongEnding.message).toMatch(/\.xlsx file/)
    const badQuery = await refusal('exports.start', {
      connectionId,
      vaultId: main,
      kind: 'molecules',
      structure: { kind: 'substructure', query: 'C1CC(' },
      format: 'csv',
      path: path.join(folder, 'bad.csv'),
    })
    expect(badQuery.code).toBe('invalid_argument')
    expect(fs.readdirSync(folder).filter((name) => /plates|bad|\.partial/.test(name))).toEqual([])
  })

  it('cancels, leaving no file behind', async () => {
    const file = path.join(folder, 'cancelled.sdf')
    let exportId = ''
    const ended = new Promise<ExportProgress>((resolve) => {
      const off = services.events.on('exports.progress', (progress) => {
        if (progress.exportId !== exportId || progress.state === 'running') return
        off()
        resolve(progress)
      })
    })
    ;({ exportId } = await call<ExportStarted>('exports.start', {
      connectionId,
      vaultId: main,
      kind: 'molecules',
      format: 'sdf',
      path: file,
    }))
    expect(fs.readdirSync(folder).some((name) => name.endsWith('.partial'))).toBe(true)
    expect(await call('exports.cancel', { exportId })).toEqual({ cancelled: true })
    expect(await ended).toMatchObject({ state: 'cancelled' })
    expect(await call('exports.cancel', { exportId })).toEqual({ cancelled: false })
    expect(fs.readdirSync(folder).filter((name) => /cancelled|\.partial/.test(name))).toEqual([])
  }, 60_000)

  it('says the disk is full when it fills, and leaves no file', async () => {
    const full = new ExportService({
      browse: services.browse,
      results: services.results,
      chem: services.chem,
      events: services.events,
      log: services.log,
      openStream: async (temporary) => {
        fs.writeFileSync(temporary, '')
        let written = 0
        return new Writable({
          write(chunk: Buffer, _encoding, done) {
            if ((written += chunk.length) > 64 * 1024) {
              done(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }))
            } else {
              fs.appendFileSync(temporary, chunk)
              done()
            }
          },
        })
      },
    })
    const file = path.join(folder, 'full.csv')
    const error = await full
      .toFile(
        {
          connectionId,
          vaultId: main,
          question: { kind: 'molecules' },
          format: 'csv',
          columns: 'all',
        },
        file,
      )
      .catch((thrown: unknown) => thrown)
    expect(error).toMatchObject({ code: 'storage' })
    expect((error as Error).message).toMatch(/disk is full/)
    expect(fs.readdirSync(folder).filter((name) => /full|\.partial/.test(name))).toEqual([])
  })
})
