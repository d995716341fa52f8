/**
 * Ingest of 100k molecules with their batches, from JSON pages in memory to committed rows:
 * records/s through the cache writer (the worker thread sync commits through: molecule and batch
 * rows, search documents, project links, cursor), pages handed over as sync hands them (up to
 * six wait while the next is made ready). Against two bare better-sqlite3 inserts on the main
 * thread, in blocks of ten pages taking turns with the store, so that all see the same machine
 * load:
 * - the same rows: one (vault_id, id, JSON) row per molecule and one per batch, no indexes;
 * - one row per record: one (vault_id, id, JSON) row per molecule, its batches inside the JSON.
 * Beside them: how long the main thread is held at most while the writer stores (the event loop's
 * delay: it serializes pages for the worker in slices), against storing a page on the main thread
 * itself (VaultCache.applyPage, the path of single records).
 *
 * Environment: BENCH_MOLECULES (default 100000).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { VaultCache } from '../src-main/store/vault-cache.ts'
import { HandedOverPages } from '../src-main/sync/handed-over-pages.ts'
import { chemblMoleculePages } from '../test/store/fixtures/chembl-molecules.ts'
import { bareDatabase } from './bare-database.ts'
import { EventLoopDelay } from './event-loop-delay.ts'
import { percentile, progress, report } from './report.ts'

const moleculeCount = Number(process.env.BENCH_MOLECULES ?? 100_000)
const pageSize = 1000
const pagesPerBlock = 10
const vaultId = 1

type Page = Record<string, unknown>[]

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
  const { cache: inThread } = VaultCache.open(path.join(dir, 'in-thread.db'))

  const milliseconds = { store: 0, sameRows: 0, recordRows: 0, inThread: 0 }
  const eventLoopDelay = new EventLoopDelay()
  const inThreadPerPage: number[] = []
  const timed = (key: keyof typeof milliseconds, work: () => void) => {
    const start = performance.now()
    work()
    milliseconds[key] += performance.now() - start
  }

  /** The block through the writer, pages handed over as sync hands them (HandedOverPages). */
  async function storeBlock(block: Page[]): Promise<void> {
    const start = performance.now()
    eventLoopDelay.start()
    const handedOver = new HandedOverPages()
    for (const page of block) {
      const stored = cache.writer.applyPage('molecules', vaultId, page, {
        cursor: { modifiedAfter: page.at(-1)!.modified_at },
      })
      await handedOver.add({ sent: cache.writer.sent(), committed: stored.then(() => {}) })
    }
    await handedOver.committed()
    eventLoopDelay.stop()
    milliseconds.store += performance.now() - start
  }

  let records = 0
  let batches = 0
  let block: Page[] = []
  let blocks = 0
  const runBlock = async () => {
    // Alternate who goes first, so that neither always follows the other's garbage.
    const bare = () => {
      for (const page of block) timed('sameRows', () => ingestSameRows(page))
      for (const page of block) timed('recordRows', () => ingestRecordRows(page))
    }
    if (blocks % 2 === 0) bare()
    await storeBlock(block)
    if (blocks % 2 === 1) bare()
    for (const page of block) {
      const start = performance.now()
      inThread.applyPage('molecules', vaultId, page, { cursor: page.at(-1)!.modified_at })
      inThreadPerPage.push(performance.now() - start)
      milliseconds.inThread += inThreadPerPage.at(-1)!
    }
    blocks++
    block = []
  }
  for await (const page of chemblMoleculePages(moleculeCount, pageSize)) {
    block.push(page)
    records += page.length
    for (const record of page) batches += (record.batches as unknown[]).length
    if (block.length === pagesPerBlock) await runBlock()
    if (records % 20_000 === 0) progress(`${records} molecules`)
  }
  if (block.length > 0) await runBlock()
  // Closing checkpoints the WAL (the writer leaves that to its idle time): the file holds it all.
  await cache.close()
  const cacheBytes = fs.statSync(path.join(dir, 'cache.db')).size
  await inThread.close()
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
      storedOnTheMainThreadRecordsPerSecond: Math.round(rate(milliseconds.inThread)),
      cacheBytes,
    })
  }
  inThreadPerPage.sort((a, b) => a - b)
  const round = (value: number) => Number(value.toFixed(2))
  const delayMs = (fraction: number) => eventLoopDelay.percentileMs(fraction * 100)
  report({
    name: 'store.ingest.main_thread_blocked_ms',
    value: round(delayMs(0.99)),
    unit: 'ms',
    reference:
      'p99 of the time one page takes to store on the main thread (VaultCache.applyPage), same run',
    referenceValue: round(percentile(inThreadPerPage, 0.99)),
    ratio: round(delayMs(0.99) / percentile(inThreadPerPage, 0.99)),
    goal: 'while sync stores pages, the main thread is held less than a frame (16 ms) at a time',
    met: delayMs(0.99) < 16,
    p50: round(delayMs(0.5)),
    max: round(eventLoopDelay.maxMs()),
    referenceP50: round(percentile(inThreadPerPage, 0.5)),
  })
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
