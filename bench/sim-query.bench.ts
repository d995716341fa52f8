/**
 * The simulator's own speed over a 100k-molecule vault: seeding it; POST /molecules/query at
 * page_size 1000 read for the first time and again; three requests in flight; and the async
 * export of every molecule, from its creation to the parsed download. Each is measured beside a
 * reference in the same run, interleaved with it so that the load of a shared machine weighs on
 * both alike: a bare HTTP server handing out the same bytes from memory (the cost of moving and
 * parsing them alone). The sync benchmark ingests at >= 20k records/s end to end, so the
 * simulator must serve several times that: a ratio of 0.8 to the bare server.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import Database from 'better-sqlite3'
import { startVaultSim } from '../src-sim/index.ts'
import { measureQueryCapacity } from '../src-sim/query-capacity.ts'
import { percentile, progress, report } from './report.ts'

const moleculeCount = 100_000
const pageSize = 1000
/** Every page of the vault, as a sync ingesting it reads them. */
const pages = moleculeCount / pageSize
const parallelPages = 30
const servingGoal = 0.8

progress(`seeding ${moleculeCount} molecules`)
const seedStartedAt = performance.now()
const sim = await startVaultSim({
  seed: moleculeCount,
  exportTiming: { startDelayMs: 0, durationMs: 0 },
})
const seedSeconds = (performance.now() - seedStartedAt) / 1000

function plainInsertSeconds(): number {
  const db = new Database(':memory:')
  db.exec(`CREATE TABLE molecules (id INTEGER PRIMARY KEY, name TEXT, smiles TEXT, formula TEXT,
    molecular_weight REAL, log_p REAL, heavy_atom_count INTEGER, fields TEXT, created_at INTEGER)`)
  const insert = db.prepare(`INSERT INTO molecules (name, smiles, formula, molecular_weight, log_p,
    heavy_atom_count, fields, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
  const begin = performance.now()
  db.transaction(() => {
    for (let index = 0; index < moleculeCount; index++) {
      insert.run(
        `VD-${index}`,
        'Cc1ccc(NC(=O)c2ccccc2)cc1',
        'C14H13NO',
        211.26,
        3.1,
        16,
        '{}',
        index,
      )
    }
  })()
  db.close()
  return (performance.now() - begin) / 1000
}

const insertSeconds = plainInsertSeconds()
report({
  name: 'sim seed 100k molecules',
  value: seedSeconds,
  unit: 's',
  reference: 'plain SQLite insert of 100k narrow rows',
  referenceValue: insertSeconds,
  ratio: seedSeconds / insertSeconds,
  goal: 'a 100k-molecule vault with its stored record documents in well under a minute (< 30 s)',
  met: seedSeconds < 30,
})

const vaultId = sim.cast.vaults.main.id
const token = sim.cast.users.admin.tokens[0]!
const headers = { 'X-SVC-Token': token, 'Content-Type': 'application/json' }

/** A bare server that answers every request with `body`, the reference for moving those bytes. */
async function bareServer(body: Buffer): Promise<{ url: string; close(): void }> {
  const server = http.createServer((request, response) => {
    request.resume()
    request.on('end', () =>
      response
        .writeHead(200, { 'content-type': 'application/json', 'content-length': body.length })
        .end(body),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => server.close(),
  }
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const startedAt = performance.now()
  const value = await run()
  return { value, seconds: (performance.now() - startedAt) / 1000 }
}

async function simPage(page: number): Promise<number> {
  const response = await fetch(`${sim.baseUrl}/vaults/${vaultId}/molecules/query`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ page_size: pageSize, offset: page * pageSize }),
  })
  if (response.status !== 200)
    throw new Error(`The simulator answered ${response.status}: ${await response.text()}`)
  return ((await response.json()) as { objects: unknown[] }).objects.length
}

async function barePage(url: string): Promise<number> {
  const response = await fetch(url, { method: 'POST', body: '{}' })
  return ((await response.json()) as { objects: unknown[] }).objects.length
}

/**
 * Reads every page from the simulator, each followed by a bare read of a page. Besides the
 * totals, the median of the page-by-page ratios shows how much of a total's ratio is noise.
 */
async function interleavedPages(bareUrl: string) {
  const totals = { simSeconds: 0, bareSeconds: 0, records: 0, bareRecords: 0 }
  const pageRatios: number[] = []
  for (let page = 0; page < pages; page++) {
    const read = await timed(() => simPage(page))
    totals.simSeconds += read.seconds
    totals.records += read.value
    const bare = await timed(() => barePage(bareUrl))
    totals.bareSeconds += bare.seconds
    totals.bareRecords += bare.value
    pageRatios.push(bare.seconds / read.seconds)
  }
  return {
    recordsPerSecond: totals.records / totals.simSeconds,
    bareRecordsPerSecond: totals.bareRecords / totals.bareSeconds,
    medianPageRatio: percentile(
      pageRatios.sort((a, b) => a - b),
      0.5,
    ),
  }
}

// The reference page is the vault's last; its size is that of every other page.
const cannedPage = Buffer.from(
  await (
    await fetch(`${sim.baseUrl}/vaults/${vaultId}/molecules/query`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ page_size: pageSize, offset: moleculeCount - pageSize }),
    })
  ).arrayBuffer(),
)
const bare = await bareServer(cannedPage)
progress(`reading all ${pages} pages of ${pageSize} molecules, then again, each beside a bare read`)
const firstRead = await interleavedPages(bare.url)
const repeatedRead = await interleavedPages(bare.url)
bare.close()

const pageLine = (name: string, measured: typeof firstRead, goal: string) =>
  report({
    name,
    value: measured.recordsPerSecond,
    unit: 'records/s',
    reference: 'a bare Node HTTP server answering the same number of records from memory',
    referenceValue: measured.bareRecordsPerSecond,
    ratio: measured.recordsPerSecond / measured.bareRecordsPerSecond,
    goal,
    met: measured.recordsPerSecond / measured.bareRecordsPerSecond >= servingGoal,
    pageSize,
    pages,
    pageBytes: cannedPage.length,
    medianPageRatio: measured.medianPageRatio,
  })
pageLine(
  'sim POST /molecules/query page_size 1000, first read',
  firstRead,
  `a page read for the first time costs at most a quarter more than moving it (ratio >= ${servingGoal})`,
)
pageLine(
  'sim POST /molecules/query page_size 1000, repeated read',
  repeatedRead,
  `a page read again costs at most a quarter more than moving it (ratio >= ${servingGoal})`,
)

progress(
  `reading ${parallelPages} pages with 1 and ${parallelPages} with 3 requests in flight, by turns`,
)
const rounds = 3
const roundPages = parallelPages / rounds
const serialRead = { records: 0, seconds: 0, recordsPerSecond: 0 }
const parallelRead = { records: 0, seconds: 0, recordsPerSecond: 0 }
for (let round = 0; round < rounds; round++) {
  for (const [concurrency, total] of [
    [1, serialRead],
    [3, parallelRead],
  ] as const) {
    const measured = await measureQueryCapacity({
      baseUrl: sim.baseUrl,
      token,
      vaultId,
      pages: roundPages,
      firstPage: (2 * round + (concurrency === 1 ? 0 : 1)) * roundPages,
      concurrency,
    })
    total.records += measured.records
    total.seconds += measured.seconds
    total.recordsPerSecond = total.records / total.seconds
  }
}
report({
  name: 'sim POST /molecules/query page_size 1000, 3 in flight',
  value: parallelRead.recordsPerSecond,
  unit: 'records/s',
  reference: 'as many other pages read with one request in flight, by turns with them',
  referenceValue: serialRead.recordsPerSecond,
  ratio: parallelRead.recordsPerSecond / serialRead.recordsPerSecond,
  goal: 'three requests in flight (the per-user limit) do not starve each other (ratio >= 0.75)',
  met: parallelRead.recordsPerSecond / serialRead.recordsPerSecond >= 0.75,
  pageSize,
  pages: parallelPages,
})

/** An async export of every molecule: created, polled until finished, downloaded and parsed. */
async function exportDownload(): Promise<{ records: number; bytes: Buffer }> {
  const created = (await (
    await fetch(`${sim.baseUrl}/vaults/${vaultId}/molecules/query`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ async: true }),
    })
  ).json()) as { id: number }
  for (;;) {
    const progressRecord = (await (
      await fetch(`${sim.baseUrl}/vaults/${vaultId}/export_progress/${created.id}`, { headers })
    ).json()) as { status: string }
    if (progressRecord.status === 'finished') break
    if (progressRecord.status !== 'new' && progressRecord.status !== 'started')
      throw new Error(`The export ended as ${progressRecord.status}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const redirect = await fetch(`${sim.baseUrl}/vaults/${vaultId}/exports/${created.id}`, {
    headers,
    redirect: 'manual',
  })
  const download = await fetch(redirect.headers.get('location')!)
  const bytes = Buffer.from(await download.arrayBuffer())
  return { records: (JSON.parse(bytes.toString('utf8')) as unknown[]).length, bytes }
}

async function bareDownload(url: string): Promise<number> {
  const response = await fetch(url)
  const bytes = Buffer.from(await response.arrayBuffer())
  return (JSON.parse(bytes.toString('utf8')) as unknown[]).length
}

progress(`exporting all ${moleculeCount} molecules twice, each beside a bare download`)
const exportRounds = 2
let exportSeconds = 0
let exportedRecords = 0
let bareExportSeconds = 0
let bareExportRecords = 0
let exportBytes = 0
for (let round = 0; round < exportRounds; round++) {
  const exported = await timed(exportDownload)
  exportSeconds += exported.seconds
  exportedRecords += exported.value.records
  exportBytes = exported.value.bytes.length
  const bareFile = await bareServer(exported.value.bytes)
  const bareRead = await timed(() => bareDownload(bareFile.url))
  bareFile.close()
  bareExportSeconds += bareRead.seconds
  bareExportRecords += bareRead.value
}
await sim.stop()
const exportRate = exportedRecords / exportSeconds
const bareExportRate = bareExportRecords / bareExportSeconds
report({
  name: 'sim async export of 100k molecules, created to downloaded and parsed',
  value: exportRate,
  unit: 'records/s',
  reference: 'a bare Node HTTP server answering the same file from memory',
  referenceValue: bareExportRate,
  ratio: exportRate / bareExportRate,
  goal: `an export costs at most a quarter more than moving its file (ratio >= ${servingGoal})`,
  met: exportRate / bareExportRate >= servingGoal,
  fileBytes: exportBytes,
  rounds: exportRounds,
})
