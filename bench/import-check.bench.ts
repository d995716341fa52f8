/**
 * The local pre-validation of an import file (src-main/intake/import-check.ts): a 10,000-row CSV
 * of an instrument's results (compound name, IC50 with modifiers, a comment) checked against a
 * cache of 250k molecules (chembl_250k.csv.gz, with the generated names, synonyms and batches of
 * test/store/fixtures), as the person waits for it before queueing.
 *
 * Measured in the same run, taking turns with the check: papaparse alone reading the same file
 * (the least any check reading it with papaparse costs), and the bare SQL lookup of the file's
 * distinct names (one query joining them with the name index), which is all the reference lookup
 * must cost.
 * A second line checks the same file with a SMILES column, each row's structure a cached one as
 * the cache holds it (as an instrument's file of registered compounds has them), which the
 * structure index read: found by `structure_hash` in one query, none needs RDKit. A third has
 * only unknown names and each structure written otherwise (a random SMILES from Debian's RDKit),
 * texts the cache does not hold, so that every structure (10,000 distinct) is parsed in the
 * chemistry workers (two). Both beside papaparse alone again and Debian's RDKit (C++, one core)
 * parsing the same SMILES (`nativeRdkitParseMs`, the parse loop alone, timed inside Python): what
 * parsing every structure costs at the least. `parsedStructures` says how many texts the last
 * check sent to RDKit.
 *
 * The cache is built once and kept in the temporary folder between runs (it takes minutes), with
 * its structure index copied from the chemistry benchmarks' own (bench-results/chem, built if
 * missing); the data stays in shared/. Environment: BENCH_MOLECULES (default 250000),
 * BENCH_IMPORT_ROWS (default 10000), BENCH_ROUNDS (default 5; the median is judged),
 * BENCH_IMPORT_STRUCTURES=0 to leave the files with structures out (they take minutes). Goal:
 * under 2 s per check.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import Papa from 'papaparse'
import { checkStructuresInWorkers } from '../src-main/chem/structure-check.ts'
import { ChemWorkerPool } from '../src-main/chem/worker-pool.ts'
import { LocalImportChecker } from '../src-main/intake/import-check.ts'
import {
  structureFields,
  structureTextHash,
  structureTextOf,
} from '../src-main/store/structure-index-repository.ts'
import { VaultCache } from '../src-main/store/vault-cache.ts'
import { chemblMoleculePages } from '../test/store/fixtures/chembl-molecules.ts'
import { readMolecules } from './native/benchmark-data.ts'
import { openBenchmarkIndex } from './native/benchmark-index.ts'
import { percentile, progress, report } from './report.ts'

const moleculeCount = Number(process.env.BENCH_MOLECULES ?? 250_000)
const rowCount = Number(process.env.BENCH_IMPORT_ROWS ?? 10_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const withStructures = process.env.BENCH_IMPORT_STRUCTURES !== '0'
const vaultId = 1
const protocolId = 77
const goalMs = 2_000

const cacheFile = path.join(os.tmpdir(), `vd-bench-import-check-${moleculeCount}.db`)
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-bench-import-check-'))

/** The molecules the rows name: every molecule's name and SMILES, sampled as the cache fills. */
interface Sampled {
  name: string
  smiles: string
}

async function buildCache(): Promise<Sampled[]> {
  const sampled: Sampled[] = []
  const every = Math.max(1, Math.floor(moleculeCount / rowCount))
  const complete = fs.existsSync(cacheFile) && cachedMolecules() === moleculeCount
  if (!complete) {
    for (const stale of [cacheFile, `${cacheFile}-wal`, `${cacheFile}-shm`])
      fs.rmSync(stale, { force: true })
    progress(`caching ${moleculeCount} molecules in ${cacheFile} (kept for the next run)`)
  }
  const cache = complete ? null : VaultCache.open(cacheFile).cache
  let committing: Promise<unknown> = Promise.resolve()
  let count = 0
  for await (const page of chemblMoleculePages(moleculeCount, 1000)) {
    for (const record of page) {
      if (count++ % every === 0)
        sampled.push({ name: String(record.name), smiles: String(record.smiles) })
    }
    if (cache) {
      const next = cache.writer.applyPage('molecules', vaultId, page)
      await committing
      committing = next
      if (count % 50_000 === 0) progress(`${count} molecules cached`)
    }
  }
  if (cache) {
    await committing
    cache.applyPage('protocols', vaultId, [
      {
        id: protocolId,
        name: 'Kinase IC50',
        readout_definitions: [
          {
            id: 771,
            name: 'IC50',
            data_type: 'Number',
            unit_label: 'uM',
            range: { min: 0, max: 1000 },
          },
          { id: 772, name: 'Comment', data_type: 'Text' },
        ],
      },
    ])
    const mapping = (header: string, type: string, id: number | null = null) => ({
      header: { name: header, position: 0 },
      definition: { id, type, name: header },
    })
    cache.applyPage('mapping_templates', vaultId, [
      {
        id: 1,
        name: 'Results by name',
        header_mappings: [
          mapping('Compound', 'InternalFieldDefinition::MoleculeName'),
          mapping('IC50 (uM)', 'ReadoutDefinition', 771),
          mapping('Comment', 'ReadoutDefinition', 772),
        ],
      },
      {
        id: 2,
        name: 'Results with structures',
        header_mappings: [
          mapping('SMILES', 'InternalFieldDefinition::Structure'),
          mapping('Compound', 'InternalFieldDefinition::MoleculeName'),
          mapping('IC50 (uM)', 'ReadoutDefinition', 771),
          mapping('Comment', 'ReadoutDefinition', 772),
        ],
      },
    ])
    await cache.close()
  }
  return sampled
}

/**
 * The cache's structure index as ingest leaves it after a sync: the chemistry benchmarks' index of
 * the same molecules (ids from 0 there, from 1 here; built if missing, its searchable pass) copied
 * in, with the `structure_hash` that the index's writes add, computed as they compute it. Kept
 * with the cache.
 */
async function indexStructures(): Promise<void> {
  // Brings a cache of an earlier run to the current schema.
  await VaultCache.open(cacheFile).cache.close()
  const db = new Database(cacheFile)
  try {
    const count = (sql: string) => db.prepare(sql).pluck().get(vaultId) as number
    if (count('SELECT count(*) FROM structure_index WHERE vault_id = ?') < moleculeCount) {
      const index = await openBenchmarkIndex(moleculeCount)
      const stored = index.db.prepare('SELECT count(*) FROM structure_index').pluck().get()
      if ((stored as number) < moleculeCount) {
        progress(`building the benchmark structure index of ${moleculeCount} molecules (kept)`)
        await index.engine.synchronize(
          readMolecules(moleculeCount).map(({ id, smiles }) => ({ id, structure: smiles })),
        )
      }
      const source = index.db.name
      await index.close()
      const columnsOf = (table: string) =>
        (db.prepare(`PRAGMA ${table}`).all() as { name: string }[]).map((column) => column.name)
      db.prepare('ATTACH ? AS chem').run(source)
      const theirs = new Set(columnsOf('chem.table_info(structure_index)'))
      const columns = columnsOf('main.table_info(structure_index)').filter(
        (name) => theirs.has(name) && name !== 'vault_id' && name !== 'molecule_id',
      )
      progress('copying the structure index into the cache (kept)')
      db.transaction(() => {
        db.prepare('DELETE FROM main.structure_index WHERE vault_id = ?').run(vaultId)
        db.prepare(
          `INSERT INTO main.structure_index (vault_id, molecule_id, ${columns.join(', ')})
             SELECT ?, molecule_id + 1, ${columns.join(', ')} FROM chem.structure_index
              WHERE vault_id = 1 AND molecule_id < ?`,
        ).run(vaultId, moleculeCount)
      }).immediate()
      db.exec('DETACH chem')
    }
    const unhashed = db
      .prepare(
        `SELECT s.molecule_id, ${structureFields.map((field) => `json_extract(m.json, '$.${field}')`).join(', ')}
           FROM structure_index s JOIN molecules m ON m.vault_id = s.vault_id AND m.id = s.molecule_id
          WHERE s.vault_id = ? AND s.molecule_id > ? AND s.structure_hash IS NULL
          ORDER BY s.molecule_id LIMIT 10000`,
      )
      .raw()
    const writeHash = db.prepare(
      'UPDATE structure_index SET structure_hash = ? WHERE vault_id = ? AND molecule_id = ?',
    )
    for (let after = 0; ;) {
      const rows = unhashed.all(vaultId, after) as [number, ...unknown[]][]
      if (rows.length === 0) break
      db.transaction(() => {
        for (const [id, ...fields] of rows) {
          const text = structureTextOf(fields)
          if (text !== null) writeHash.run(structureTextHash(text), vaultId, id)
        }
      })()
      after = rows.at(-1)![0]
    }
    db.pragma('wal_checkpoint(TRUNCATE)')
  } finally {
    db.close()
  }
}

function cachedMolecules(): number {
  try {
    const db = new Database(cacheFile, { readonly: true })
    try {
      return (db.prepare('SELECT COUNT(*) AS count FROM molecules').get() as { count: number })
        .count
    } finally {
      db.close()
    }
  } catch {
    return -1
  }
}

/** A CSV cell, quoted (SMILES hold backslashes, which CSV keeps as they are). */
const csvCell = (text: string) => `"${text.replaceAll('"', '""')}"`

/**
 * Another writing of each structure, from Debian's RDKit (a random SMILES, seeded; a CXSMILES
 * loses its extension): the same structures, as texts the cache does not hold.
 */
function otherWritings(smiles: readonly string[]): string[] {
  const script = [
    'import json, sys',
    'from rdkit import Chem, RDLogger',
    'RDLogger.DisableLog("rdApp.*")',
    'out = []',
    'for index, text in enumerate(json.load(sys.stdin)):',
    '    mol = Chem.MolFromSmiles(text)',
    '    writings = [] if mol is None else Chem.MolToRandomSmilesVect(mol, 4, randomSeed=index + 1)',
    '    out.append(next((other for other in writings if other != text), text))',
    'print(json.dumps(out))',
  ].join('\n')
  const answer = execFileSync(python, ['-c', script], {
    input: JSON.stringify(smiles),
    maxBuffer: 256 * 1024 * 1024,
  })
  return JSON.parse(answer.toString()) as string[]
}

/**
 * An instrument's file: mostly known names, some unknown, some values that are not numbers. With
 * `newTexts` (one per sampled molecule), only unknown names, each row's structure written
 * otherwise than the cache holds it, so that RDKit parses every one.
 */
function writeCsv(
  file: string,
  sampled: readonly Sampled[],
  withStructures: boolean,
  newTexts?: readonly string[],
): void {
  const modifiers = ['', '', '', '<', '>']
  const lines = [
    withStructures ? 'SMILES,Compound,IC50 (uM),Comment' : 'Compound,IC50 (uM),Comment',
  ]
  for (let row = 0; row < rowCount; row++) {
    const molecule = sampled[row % sampled.length]!
    const name = newTexts || row % 100 === 99 ? `Unregistered ${row}` : molecule.name
    const structure = newTexts ? newTexts[row % sampled.length]! : molecule.smiles
    const value =
      row % 250 === 7 ? 'n.d.' : `${modifiers[row % 5]}${((row * 7919) % 100_000) / 100}`
    const cells = [name, value, row % 3 === 0 ? '"replicate 1, plate A"' : 'ok']
    lines.push((withStructures ? [csvCell(structure), ...cells] : cells).join(','))
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`)
}

function papaparseAlone(file: string): number {
  const start = performance.now()
  const parsed = Papa.parse<string[]>(fs.readFileSync(file, 'utf8'), { skipEmptyLines: 'greedy' })
  if (parsed.data.length !== rowCount + 1) throw new Error('papaparse read another number of rows')
  return performance.now() - start
}

function bareLookup(db: Database.Database, names: readonly string[]): number {
  const start = performance.now()
  db.prepare(
    `SELECT wanted.value, molecules.row_id FROM json_each(?) AS wanted
       CROSS JOIN molecules ON molecules.vault_id = ? AND molecules.name = wanted.value`,
  ).all(JSON.stringify([...new Set(names)]), vaultId)
  return performance.now() - start
}

const python = process.env.VAULT_DESK_NATIVE_PYTHON ?? '/usr/bin/python3'

/** Debian's RDKit (C++, one core) parsing the file's SMILES, timed inside Python. */
function nativeParse(file: string): number {
  const script = [
    'import csv, sys, time',
    'from rdkit import Chem, RDLogger',
    'RDLogger.DisableLog("rdApp.*")',
    'rows = list(csv.reader(open(sys.argv[1], newline="")))[1:]',
    'start = time.perf_counter()',
    'for row in rows: Chem.MolFromSmiles(row[0])',
    'print((time.perf_counter() - start) * 1000)',
  ].join('\n')
  return Number(execFileSync(python, ['-c', script, file]).toString().trim())
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  )

try {
  const sampled = await buildCache()
  await indexStructures()
  const namesFile = path.join(workDir, 'results.csv')
  const structuresFile = path.join(workDir, 'results-with-smiles.csv')
  const newStructuresFile = path.join(workDir, 'new-compounds-with-smiles.csv')
  writeCsv(namesFile, sampled, false)
  writeCsv(structuresFile, sampled, true)
  if (withStructures) {
    const writings = otherWritings(sampled.map((molecule) => molecule.smiles))
    writeCsv(newStructuresFile, sampled, true, writings)
  }
  const pool = new ChemWorkerPool({ size: Math.min(2, os.availableParallelism()) })
  let parsedStructures = 0
  const checker = new LocalImportChecker({
    cacheFileOf: () => cacheFile,
    structureProblems: (structures, signal) => {
      parsedStructures += structures.length
      return checkStructuresInWorkers(pool, structures, signal)
    },
  })
  const raw = new Database(cacheFile, { readonly: true })
  const names = sampled.map((molecule) => molecule.name)

  const cases = [
    ['names', namesFile, 'Results by name'],
    ['structures', structuresFile, 'Results with structures'],
    ['new_structures', newStructuresFile, 'Results with structures'],
  ] as const
  for (const [label, file, template] of withStructures ? cases : cases.slice(0, 1)) {
    const parsesStructures = label !== 'names'
    const checks: number[] = []
    const papa: number[] = []
    const lookups: number[] = []
    const natives: number[] = []
    let last = null as Awaited<ReturnType<LocalImportChecker['check']>> | null
    // A first round warms the workers and the page cache; then check and references take turns.
    for (let round = 0; round <= rounds; round++) {
      parsedStructures = 0
      const start = performance.now()
      last = await checker.check({
        connectionId: 'bench',
        vaultId,
        filePath: file,
        protocolId,
        mappingTemplate: template,
      })
      const elapsed = performance.now() - start
      const papaMs = papaparseAlone(file)
      const lookupMs = bareLookup(raw, names)
      const nativeMs = parsesStructures ? nativeParse(file) : Number.NaN
      if (round === 0) continue
      natives.push(nativeMs)
      checks.push(elapsed)
      papa.push(papaMs)
      lookups.push(lookupMs)
      progress(
        `${label} round ${round}: check ${elapsed.toFixed(0)} ms, papaparse ${papaMs.toFixed(0)} ms, lookup ${lookupMs.toFixed(0)} ms`,
      )
    }
    const value = Math.round(median(checks))
    const referenceValue = Math.round(median(papa))
    report({
      name: `import-check.csv_${rowCount}_rows_${label}`,
      value,
      unit: 'ms',
      reference: `papaparse alone reading the same ${rowCount}-row file (median of ${rounds})`,
      referenceValue,
      ratio: Number((value / Math.max(1, referenceValue)).toFixed(2)),
      goal: `under ${goalMs} ms per check against ${moleculeCount} cached molecules`,
      met: value < goalMs,
      molecules: moleculeCount,
      rows: last!.rows,
      errors: last!.errors,
      warnings: last!.warnings,
      counts: last!.counts,
      bareNameLookupMs: Math.round(median(lookups)),
      ...(parsesStructures
        ? { parsedStructures, nativeRdkitParseMs: Math.round(median(natives)) }
        : {}),
      loadAverage: os.loadavg()[0],
      checkMsPerRound: checks.map(Math.round),
    })
  }
  raw.close()
  await pool.close()
} finally {
  fs.rmSync(workDir, { recursive: true, force: true })
}
