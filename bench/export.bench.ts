/**
 * Exporting 250k molecules (chembl_250k.csv.gz as records the vault would give) from a cache to a
 * local file, through the export service as a window or `vault-desk export` asks it (the list read
 * by key through the browse service, a page of 1000 at a time, the view's columns), against the
 * bare `SELECT` streaming the same rows in the same run: records per second, and how much the main
 * process's memory grows (the peak resident set during the export over the resident set before it).
 * Each rate is also given per second of the process's CPU time (all its threads): on this shared
 * machine the wall time is mostly time spent waiting for a core, and the CPU rate is what a quiet
 * machine's wall rate would be at most. The main thread's own CPU per record is given too (what an
 * export takes from the process that runs the window), beside the bare SELECT's per row.
 *
 * - Reading alone, the ways a whole list can be read, taking turns (BENCH_READ_ROUNDS, 2; 0: not): by
 *   offset pages as the window pages (a count and an OFFSET per page: how exports read before),
 *   by key (`BrowseService.read`) with each record's JSON left unparsed and parsed, and by place
 *   (a list whose sort column has no index: its order taken once, 8 bytes a row).
 * - CSV of every molecule.
 * - SD file of every molecule whose record carries its molfile, as the vault API gives it: the
 *   molfiles are RDKit's, written in the chemistry workers for the first BENCH_MOLFILES (2,000)
 *   molecules and given in turn to all of them (the writer's cost depends on their size, not on
 *   which molecule they draw).
 * - Where an SD file's molfile is best found (BENCH_MOLFILE_ROWS, 50,000; 0: not): main-thread CPU
 *   per row of the rows of vault 2 in the list's order with their JSON text, with the molfile
 *   alone read by SQLite (`json ->> '$.molfile'`, guarded by json_valid as a damaged row needs),
 *   and with the text's molfile found as the export finds it (json-members.ts).
 * - SD file of molecules given as SMILES only, whose molfiles (with 2D coordinates) RDKit writes
 *   in the workers during the export: BENCH_SMILES_SAMPLE (20,000) molecules, since RDKit's
 *   coordinates, not the export, set that pace.
 *
 * The cache is built once in bench-results/export/ (the writer, as sync stores pages) and kept.
 * Environment: BENCH_MOLECULES (250000), BENCH_MOLFILES, BENCH_SMILES_SAMPLE, BENCH_READ_ROUNDS,
 * BENCH_EXPORT_RUNS (parts of the names of the export runs to make; all by default).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { ChemWorkerPool } from '../src-main/chem/worker-pool.ts'
import { BrowseService } from '../src-main/services/browse-service.ts'
import { LocalChemService } from '../src-main/services/chem-service.ts'
import type { ConnectionRuntimes } from '../src-main/services/connection-runtimes.ts'
import { membersFromEnd } from '../src-main/export/json-members.ts'
import { ExportService, type ExportRequest } from '../src-main/services/export-service.ts'
import { ResultsService } from '../src-main/services/results-service.ts'
import { EventBus } from '../src-main/shared/events.ts'
import { silentLogger } from '../src-main/shared/logger.ts'
import { VaultCache } from '../src-main/store/vault-cache.ts'
import { chemblMoleculePages } from '../test/store/fixtures/chembl-molecules.ts'
import { progress, report } from './report.ts'

const moleculeCount = Number(process.env.BENCH_MOLECULES ?? 250_000)
const molfileCount = Number(process.env.BENCH_MOLFILES ?? 2000)
/** Rounds of the reading comparison; 0 leaves it out (an export's own figures alone). */
const readRounds = Math.max(Math.trunc(Number(process.env.BENCH_READ_ROUNDS ?? 2)), 0)
const molfileRows = Math.max(Math.trunc(Number(process.env.BENCH_MOLFILE_ROWS ?? 50_000)), 0)
const smilesSample = Math.min(Number(process.env.BENCH_SMILES_SAMPLE ?? 20_000), moleculeCount)
/** Vault 1: molecules as SMILES; vault 2: the same with molfiles; vault 3: a sample of vault 1. */
const vaults = { smiles: 1, molfiles: 2, sample: 3 } as const
const goalRate = 50_000
const goalGrowthMB = 64
const megabyte = 1024 * 1024
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})

const resultsDir = path.resolve(import.meta.dirname, '../bench-results/export')
fs.mkdirSync(resultsDir, { recursive: true })
const cacheFile = path.join(resultsDir, `cache-${moleculeCount}-${molfileCount}-${smilesSample}.db`)
/** Written once the cache is complete: a build cut short is built again. */
const builtMark = `${cacheFile}.built`
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-bench-export-'))

try {
  if (!fs.existsSync(builtMark)) await buildCache()
  const { cache } = VaultCache.open(cacheFile)
  // The vault list, as sync keeps it (an export names its vault from it).
  cache.replaceVaults(Object.entries(vaults).map(([name, id]) => ({ id, name })))
  const runtimes = { get: () => ({ cache }), opened: () => [] } as unknown as ConnectionRuntimes
  const events = new EventBus()
  const chem = new LocalChemService({ runtimes, events, log: silentLogger })
  const browse = new BrowseService(runtimes, undefined, chem)
  const exports = new ExportService({
    browse,
    results: new ResultsService(runtimes),
    chem,
    events,
    log: silentLogger,
  })
  // Once to read the file into the system's cache: the first reading of a cold file measured the
  // disk, not the SELECT, and every export after it read a warm one.
  // Each vault's rows by the bare SELECT, read once before to warm the system's cache: the first
  // reading of a cold file measured the disk, not the SELECT, and every export after it read a
  // warm one. An SD file's records (with molfiles) are larger than a CSV's: each run is set
  // beside the SELECT of its own vault.
  const bareOf = (vaultId: number): ReturnType<typeof bareSelect> => {
    bareSelect(cacheFile, vaultId)
    const bare = bareSelect(cacheFile, vaultId)
    progress(
      `bare SELECT of vault ${vaultId}: ${Math.round(bare.rate)} rows/s, ${bare.cpuSeconds.toFixed(2)} s of CPU`,
    )
    return bare
  }
  if (readRounds > 0) compareReadings(browse, bareOf(vaults.smiles).rate, readRounds)
  if (molfileRows > 0) compareMolfileReadings(cacheFile, molfileRows)

  const runs: { name: string; format: 'csv' | 'sdf'; vaultId: number; what: string }[] = [
    { name: 'export.csv.molecules_250k', format: 'csv', vaultId: vaults.smiles, what: 'CSV' },
    {
      name: 'export.sdf.molecules_250k_with_molfiles',
      format: 'sdf',
      vaultId: vaults.molfiles,
      what: 'SD file, molfiles in the records',
    },
    {
      name: 'export.sdf.molecules_from_smiles_sample',
      format: 'sdf',
      vaultId: vaults.sample,
      what: 'SD file, molfiles written by RDKit in the workers from SMILES',
    },
  ]
  // BENCH_EXPORT_RUNS=csv,sdf.molecules_250k: only the runs whose names contain one of these.
  const chosen = (process.env.BENCH_EXPORT_RUNS ?? '').split(',').filter((part) => part !== '')
  for (const run of runs) {
    if (chosen.length > 0 && !chosen.some((part) => run.name.includes(part))) continue
    const request: ExportRequest = {
      connectionId: 'bench',
      vaultId: run.vaultId,
      question: { kind: 'molecules' },
      format: run.format,
      columns: 'view',
    }
    const bare = bareOf(run.vaultId)
    const file = path.join(outDir, `${run.name}.${run.format}`)
    // The chemistry workers (threads of this process, RDKit's memory included) are the app's,
    // started on its first chemistry: they are running before the export, as in the app.
    if (run.vaultId === vaults.sample) await chem.molblocks(['C', 'CC'])
    gc()
    const before = process.memoryUsage()
    let peak = before.rss
    let heapPeak = before.heapUsed
    const sample = (): void => {
      const now = process.memoryUsage()
      peak = Math.max(peak, now.rss)
      heapPeak = Math.max(heapPeak, now.heapUsed)
    }
    const sampler = setInterval(sample, 50)
    progress(`${run.what}…`)
    const started = performance.now()
    const cpuBefore = process.cpuUsage()
    const mainCpuBefore = process.threadCpuUsage()
    const summary = await exports.toFile(request, file, {
      onProgress: (written, total) => {
        sample()
        if (written % 50_000 === 0) progress(`${written}/${total}`)
      },
    })
    const seconds = (performance.now() - started) / 1000
    const cpuSeconds = cpuSecondsSince(cpuBefore)
    const mainCpu = process.threadCpuUsage(mainCpuBefore)
    clearInterval(sampler)
    sample()
    const rate = summary.records / seconds
    const growthMB = (peak - before.rss) / megabyte
    const goalApplies = run.vaultId !== vaults.sample
    report({
      name: `${run.name}.records_per_second`,
      value: Math.round(rate),
      unit: 'records/s',
      reference: 'bare better-sqlite3 SELECT iterating the same rows (id, columns, JSON), same run',
      referenceValue: Math.round(bare.rate),
      ratio: Number((rate / bare.rate).toFixed(3)),
      ...(goalApplies
        ? { goal: `at least ${goalRate} records/s`, met: rate >= goalRate }
        : { note: "no goal: RDKit's 2D coordinates set the pace (see the file's comment)" }),
      records: summary.records,
      seconds: Number(seconds.toFixed(2)),
      cpuSeconds: Number(cpuSeconds.toFixed(2)),
      recordsPerCpuSecond: Math.round(summary.records / cpuSeconds),
      referencePerCpuSecond: Math.round(bare.rows / bare.cpuSeconds),
      // The main thread's own CPU: what an export takes from the window's process.
      mainThreadMicrosecondsPerRecord: Number(
        ((mainCpu.user + mainCpu.system) / summary.records).toFixed(2),
      ),
      referenceMicrosecondsPerRow: Number(((bare.cpuSeconds * 1e6) / bare.rows).toFixed(2)),
      bytes: summary.bytes,
      loadAverage: loadAverage(),
    })
    report({
      name: `${run.name}.memory_growth`,
      value: Number(growthMB.toFixed(1)),
      unit: 'MB',
      reference: 'the bare SELECT over the same rows: its peak RSS growth, same run',
      referenceValue: Number(bare.growthMB.toFixed(1)),
      ratio: Number((growthMB / Math.max(bare.growthMB, 1)).toFixed(2)),
      goal: `under ${goalGrowthMB} MB`,
      met: growthMB < goalGrowthMB,
      heapGrowthMB: Number(((heapPeak - before.heapUsed) / megabyte).toFixed(1)),
      rssBeforeMB: Math.round(before.rss / megabyte),
    })
    fs.rmSync(file, { force: true })
  }
  await chem.close()
  await cache.close()
} finally {
  fs.rmSync(outDir, { recursive: true, force: true })
}

/**
 * Reads the whole list of vault 1 each way, taking turns, and reports each way's rate beside the
 * bare SELECT's (and the key's over the offset pages').
 */
function compareReadings(browse: BrowseService, bareRate: number, rounds: number): void {
  const drain = (options: { sort?: string }, parse: boolean): number => {
    const reader = browse.read('bench', vaults.smiles, 'molecules', options)
    let count = 0
    for (let rows = reader.next(1000); rows.length > 0; rows = reader.next(1000)) {
      count += rows.length
      if (parse) for (const row of rows) if (row.json.id === undefined) count--
    }
    return count
  }
  const ways: Record<string, { what: string; read: () => number }> = {
    offset_pages: {
      what: 'offset pages of 1000 (count and OFFSET each), JSON parsed: the reading before',
      read: () => {
        let count = 0
        for (let offset = 0; ; offset += 1000) {
          const page = browse.list('bench', vaults.smiles, 'molecules', { offset, limit: 1000 })
          count += page.rows.length
          if (page.rows.length < 1000) return count
        }
      },
    },
    by_key: { what: 'read by key, JSON left unparsed', read: () => drain({}, false) },
    by_key_json_parsed: {
      what: 'read by key, every JSON parsed',
      read: () => drain({}, true),
    },
    by_place_log_p: {
      what: 'sorted by log P (no index): the order taken once, rows read by place',
      read: () => drain({ sort: 'log_p' }, false),
    },
  }
  const seconds: Record<string, number[]> = {}
  let records = 0
  for (let round = 0; round < rounds; round++) {
    for (const [name, way] of Object.entries(ways)) {
      gc()
      const started = performance.now()
      records = way.read()
      const took = (performance.now() - started) / 1000
      ;(seconds[name] ??= []).push(took)
      progress(`read ${name}: ${Math.round(records / took)} records/s (load ${loadAverage()})`)
    }
  }
  const rateOf = (name: string): number => {
    const taken = seconds[name]!
    return records / (taken.reduce((sum, value) => sum + value, 0) / taken.length)
  }
  for (const [name, way] of Object.entries(ways)) {
    const rate = rateOf(name)
    report({
      name: `export.read.molecules_250k.${name}.records_per_second`,
      value: Math.round(rate),
      unit: 'records/s',
      reference: 'bare better-sqlite3 SELECT iterating the same rows (id, columns, JSON), same run',
      referenceValue: Math.round(bareRate),
      ratio: Number((rate / bareRate).toFixed(3)),
      note: way.what,
      ...(name === 'offset_pages'
        ? {}
        : { overOffsetPages: Number((rate / rateOf('offset_pages')).toFixed(2)) }),
      records,
      rounds,
      secondsEach: seconds[name]!.map((value) => Number(value.toFixed(2))),
      loadAverage: loadAverage(),
    })
  }
}

/**
 * Main-thread CPU per row of reading the molfiles of vault 2 in the list's order: the JSON text
 * (what the export reads), SQLite's own JSON reading of the molfile alone (which parses the
 * whole text), and the text's molfile found in JavaScript as the export finds it.
 */
function compareMolfileReadings(file: string, rows: number): void {
  const db = new Database(file, { readonly: true })
  const columns = `row_id, id, name, created_at, modified_at, registration_type, owner, inchi_key,
    formula, molecular_weight, log_p, batch_count, projects_json`
  const ways: Record<string, { what: string; sql: string; take?: (value: unknown) => unknown }> = {
    json_text: { what: 'the JSON text, as the export reads it', sql: 'json' },
    json_text_molfile_found: {
      what: 'the JSON text, its molfile found as the export finds it (json-members.ts)',
      sql: 'json',
      take: (text) => membersFromEnd(text as string, ['molfile'])?.get('molfile'),
    },
    sql_molfile: {
      what: "the molfile read by SQLite (json_valid guarding json ->> '$.molfile')",
      sql: "iif(json_valid(json), json ->> '$.molfile', NULL)",
    },
  }
  const microseconds: Record<string, number[]> = {}
  for (let round = 0; round < 2; round++) {
    for (const [name, way] of Object.entries(ways)) {
      const statement = db
        .prepare(
          `SELECT ${columns}, ${way.sql} FROM molecules WHERE vault_id = ?
             ORDER BY name, row_id LIMIT ?`,
        )
        .raw()
      gc()
      const before = process.threadCpuUsage()
      let count = 0
      let characters = 0
      for (const values of statement.iterate(vaults.molfiles, rows) as Iterable<unknown[]>) {
        const value = values[values.length - 1]
        const taken = way.take ? way.take(value) : value
        if (typeof taken === 'string') characters += taken.length
        count++
      }
      const used = process.threadCpuUsage(before)
      if (characters === 0) throw new Error(`${name}: no molfile was read`)
      ;(microseconds[name] ??= []).push((used.user + used.system) / count)
    }
  }
  db.close()
  const mean = (name: string): number =>
    microseconds[name]!.reduce((sum, value) => sum + value, 0) / microseconds[name]!.length
  for (const [name, way] of Object.entries(ways)) {
    report({
      name: `export.read.molfiles.${name}.main_thread_microseconds_per_row`,
      value: Number(mean(name).toFixed(2)),
      unit: 'us',
      reference: 'the same rows with their JSON text, same run',
      referenceValue: Number(mean('json_text').toFixed(2)),
      ratio: Number((mean(name) / mean('json_text')).toFixed(2)),
      note: way.what,
      rows,
      eachRound: microseconds[name]!.map((value) => Number(value.toFixed(2))),
      loadAverage: loadAverage(),
    })
  }
}

function cpuSecondsSince(before: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1e6
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')
}

/** The same rows as the export reads, by the bare SELECT: its rate and peak memory growth. */
function bareSelect(
  file: string,
  vaultId: number,
): { rate: number; growthMB: number; rows: number; cpuSeconds: number } {
  const db = new Database(file, { readonly: true })
  gc()
  const before = process.memoryUsage().rss
  let peak = before
  const started = performance.now()
  const cpuBefore = process.cpuUsage()
  let rows = 0
  for (const row of db
    .prepare(
      `SELECT id, name, created_at, modified_at, registration_type, owner, inchi_key, formula,
         molecular_weight, log_p, json FROM molecules WHERE vault_id = ? ORDER BY name, row_id`,
    )
    .iterate(vaultId)) {
    if (row && ++rows % 10_000 === 0) peak = Math.max(peak, process.memoryUsage().rss)
  }
  const seconds = (performance.now() - started) / 1000
  const cpuSeconds = cpuSecondsSince(cpuBefore)
  db.close()
  return {
    rows,
    cpuSeconds,
    rate: rows / seconds,
    growthMB: (Math.max(peak, process.memoryUsage().rss) - before) / megabyte,
  }
}

/** Builds the cache: the molecules as SMILES, the same with molfiles, and the SMILES sample. */
async function buildCache(): Promise<void> {
  progress(`writing ${molfileCount} molfiles with RDKit`)
  const pool = new ChemWorkerPool({ size: 2 })
  const smiles: string[] = []
  for await (const page of chemblMoleculePages(molfileCount, 1000)) {
    smiles.push(...page.map((record) => String(record.smiles)))
  }
  let molfiles: string[]
  try {
    const batches: Promise<({ molblock: string } | { problem: string })[]>[] = []
    for (let start = 0; start < smiles.length; start += 50) {
      batches.push(
        pool.run({ kind: 'writeMolblocks', structures: smiles.slice(start, start + 50) }),
      )
    }
    molfiles = (await Promise.all(batches))
      .flat()
      .flatMap((answer) => ('molblock' in answer ? [answer.molblock] : []))
  } finally {
    await pool.close()
  }
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${cacheFile}${suffix}`, { force: true })
  const { cache } = VaultCache.open(cacheFile)
  let count = 0
  let committing: Promise<unknown> = Promise.resolve()
  const commit = async (vaultId: number, page: Record<string, unknown>[]): Promise<void> => {
    const next = cache.writer.applyPage('molecules', vaultId, page)
    await committing
    committing = next
  }
  for await (const page of chemblMoleculePages(moleculeCount, 1000)) {
    await commit(vaults.smiles, page)
    await commit(
      vaults.molfiles,
      page.map((record, index) => ({
        ...record,
        molfile: molfiles[(count + index) % molfiles.length],
      })),
    )
    if (count < smilesSample) await commit(vaults.sample, page.slice(0, smilesSample - count))
    count += page.length
    if (count % 50_000 === 0) progress(`${count} molecules cached`)
  }
  await committing
  while (cache.writer.running) await new Promise((resolve) => setTimeout(resolve, 500))
  await cache.close()
  fs.writeFileSync(builtMark, new Date().toISOString())
}
