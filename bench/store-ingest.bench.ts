/**
 * Ingest of 100k molecules with their batches, from JSON pages in memory to committed rows:
 * records/s through VaultCache.applyPage (molecule and batch rows, search documents, project
 * links, cursor). Against two bare better-sqlite3 inserts measured page by page in the same run,
 * so that all three see the same machine load:
 * - the same rows: one (vault_id, id, JSON) row per molecule and one per batch, no indexes;
 * - one row per record: one (vault_id, id, JSON) row per molecule, its batches inside the JSON.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { VaultCache } from '../src-main/store/vault-cache.ts'
import { chemblMoleculePages } from '../test/store/fixtures/chembl-molecules.ts'
import { progress, report } from './report.ts'

const moleculeCount = Number(process.env.BENCH_MOLECULES ?? 100_000)
const pageSize = 1000
const vaultId = 1

type Page = Record<string, unknown>[]

function bareDatabase(file: string, tables: string[]): Database.Database {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  for (const table of tables) {
    db.exec(
      `CREATE TABLE ${table} (vault_id INTEGER, id INTEGER, json TEXT, PRIMARY KEY (vault_id, id))`,
    )
  }
  return db
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-bench-ingest-'))
try {
  const sameRows = bareDatabase(path.join(dir, 'same-rows.db'), ['molecules', 'batches'])
  const insertMolecule = sameRows.prepare('INSERT INTO molecules VALUES (?, ?, ?)')
  const insertBatch = sameRows.prepare('INSERT INTO batches VALUES (?, ?, ?)')
  const ingestSameRows = sameRows.transaction((page: Page) => {
    for (const record of page) {
      const { batches, ...molecule } = record
      insertMolecule.run(vaultId, record.id, JSON.stringify(molecule))
      for (const batch of batches as { id: number }[]) {
        insertBatch.run(vaultId, batch.id, JSON.stringify(batch))
      }
    }
  })
  const recordRows = bareDatabase(path.join(dir, 'record-rows.db'), ['molecules'])
  const insertRecord = recordRows.prepare('INSERT INTO molecules VALUES (?, ?, ?)')
  const ingestRecordRows = recordRows.transaction((page: Page) => {
    for (const record of page) insertRecord.run(vaultId, record.id, JSON.stringify(record))
  })
  const { cache } = VaultCache.open(path.join(dir, 'cache.db'))

  const milliseconds = { store: 0, sameRows: 0, recordRows: 0 }
  const timed = (key: keyof typeof milliseconds, work: () => void) => {
    const start = performance.now()
    work()
    milliseconds[key] += performance.now() - start
  }
  let records = 0
  let batches = 0
  for await (const page of chemblMoleculePages(moleculeCount, pageSize)) {
    timed('sameRows', () => ingestSameRows(page))
    timed('recordRows', () => ingestRecordRows(page))
    timed('store', () =>
      cache.applyPage('molecules', vaultId, page, {
        cursor: { modifiedAfter: page.at(-1)!.modified_at },
      }),
    )
    records += page.length
    for (const record of page) batches += (record.batches as unknown[]).length
    if (records % 20_000 === 0) progress(`${records} molecules`)
  }
  cache.close()
  sameRows.close()
  recordRows.close()

  const rate = (ms: number) => (records / ms) * 1000
  const storeRate = rate(milliseconds.store)
  for (const [name, reference, bareMs] of [
    [
      'store.ingest.molecules_with_batches',
      'bare better-sqlite3 insert of the same rows (one id + JSON row per molecule and per batch, no indexes), same run',
      milliseconds.sameRows,
    ],
    [
      'store.ingest.molecules_with_batches.vs_one_row_per_record',
      'bare better-sqlite3 insert of one id + JSON row per molecule record (batches inside), same run',
      milliseconds.recordRows,
    ],
  ] as const) {
    const ratio = storeRate / rate(bareMs)
    report({
      name,
      value: Math.round(storeRate),
      unit: 'records/s',
      reference,
      referenceValue: Math.round(rate(bareMs)),
      ratio: Number(ratio.toFixed(3)),
      goal: 'at least 20000 records/s, and within 2x of the bare insert (ratio at least 0.5)',
      met: storeRate >= 20_000 && ratio >= 0.5,
      molecules: records,
      batches,
      pageSize,
      cacheBytes: fs.statSync(path.join(dir, 'cache.db')).size,
    })
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
