/**
 * The simulator's own speed: seeding 100k molecules, and POST /molecules/query at page_size 1000
 * over that vault (first reads, repeated reads, three in flight), beside references measured in
 * the same run: the same pages read straight from SQLite, and a bare HTTP server answering a
 * canned page of the same size (the cost of moving and parsing the page alone).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import Database from 'better-sqlite3'
import { startVaultSim } from '../src-sim/index.ts'
import { measureQueryCapacity } from '../src-sim/query-capacity.ts'
import { progress, report } from './report.ts'

const moleculeCount = 100_000
const pages = 30

progress(`seeding ${moleculeCount} molecules`)
const seedStartedAt = performance.now()
const sim = await startVaultSim({ seed: moleculeCount })
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
  goal: 'a 100k-molecule vault in well under a minute (< 30 s)',
  met: seedSeconds < 30,
})

const vaultId = sim.cast.vaults.main.id
const token = sim.cast.users.admin.tokens[0]!
const capacity = (firstPage: number, concurrency = 1) =>
  measureQueryCapacity({ baseUrl: sim.baseUrl, token, vaultId, pages, firstPage, concurrency })

progress(
  `reading ${pages} pages of 1000 molecules, then again, then ${pages} more with 3 in flight`,
)
const cannedPage = await (
  await fetch(`${sim.baseUrl}/vaults/${vaultId}/molecules/query`, {
    method: 'POST',
    headers: { 'X-SVC-Token': token, 'Content-Type': 'application/json' },
    body: JSON.stringify({ page_size: 1000, offset: 99_000 }),
  })
).text()
const firstRead = await capacity(0)
const repeatedRead = await capacity(0)
const parallelRead = await capacity(pages, 3)

const read = sim.core.db.prepare(
  `SELECT * FROM molecules WHERE vault_id = ? ORDER BY id LIMIT 1000 OFFSET ?`,
)
let begin = performance.now()
let rows = 0
for (let page = 0; page < pages; page++) rows += read.all(vaultId, page * 1000).length
const sqliteRecordsPerSecond = rows / ((performance.now() - begin) / 1000)
await sim.stop()

const bare = http.createServer((request, response) => {
  request.resume()
  request.on('end', () =>
    response.writeHead(200, { 'content-type': 'application/json' }).end(cannedPage),
  )
})
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve))
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`
begin = performance.now()
for (let page = 0; page < pages; page++)
  await (await fetch(bareUrl, { method: 'POST', body: '{}' })).json()
const bareRecordsPerSecond = (pages * 1000) / ((performance.now() - begin) / 1000)
bare.close()

const extra = { pageSize: 1000, pages, pageBytes: cannedPage.length, sqliteRecordsPerSecond }
const line = (
  name: string,
  value: number,
  requestsPerSecond: number,
  goalRatio: number,
  goal: string,
) =>
  report({
    name,
    value,
    unit: 'records/s',
    reference:
      'a bare Node HTTP server answering the same page from memory (transfer and parse only)',
    referenceValue: bareRecordsPerSecond,
    ratio: value / bareRecordsPerSecond,
    goal,
    met: value / bareRecordsPerSecond >= goalRatio,
    ...extra,
    requestsPerSecond,
  })
line(
  'sim POST /molecules/query page_size 1000, first read',
  firstRead.recordsPerSecond,
  firstRead.requestsPerSecond,
  0.25,
  'building a page costs at most 3x moving it (ratio >= 0.25)',
)
line(
  'sim POST /molecules/query page_size 1000, repeated read',
  repeatedRead.recordsPerSecond,
  repeatedRead.requestsPerSecond,
  0.5,
  'a page read again costs at most as much as moving it (ratio >= 0.5)',
)
report({
  name: 'sim POST /molecules/query page_size 1000, first read, 3 in flight',
  value: parallelRead.recordsPerSecond,
  unit: 'records/s',
  reference: 'the first read with one request in flight',
  referenceValue: firstRead.recordsPerSecond,
  ratio: parallelRead.recordsPerSecond / firstRead.recordsPerSecond,
  goal: 'three requests in flight (the per-user limit) do not starve each other (ratio >= 0.75)',
  met: parallelRead.recordsPerSecond / firstRead.recordsPerSecond >= 0.75,
  ...extra,
  requestsPerSecond: parallelRead.requestsPerSecond,
})
