/**
 * A new plate's well list read and resolved against a large cache: a 1536-well list (batches
 * named by id, by molecule_batch_identifier and by name, a third each) over a vault of 250k
 * batches, read by `readWellList`, its references found by `InventoryReferences.batches` and laid
 * over the wells by `planWells`, as the New plate dialog does a moment after each edit and
 * `vault-desk plate create` does once. Against the same wells found by id alone (the primary key),
 * in the same run, on the same database.
 *
 * Goal: p95 under 500 ms, so that a pasted 1536-well list is checked while the person looks.
 *
 * Environment: BENCH_BATCHES (default 250000), BENCH_REPETITIONS (default 20).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { gridLabel } from '../src-common/plates/grid-positions.ts'
import { planWells, readWellList, referencesOf } from '../src-common/plates/well-list.ts'
import { plateFormats } from '../src-common/plates.ts'
import { InventoryReferences } from '../src-main/store/inventory-references.ts'
import { VaultCache } from '../src-main/store/vault-cache.ts'
import { percentile, progress, report } from './report.ts'

const batchCount = Number(process.env.BENCH_BATCHES ?? 250_000)
const repetitions = Number(process.env.BENCH_REPETITIONS ?? 20)
const vaultId = 1
const pageSize = 5000
const lotsPerMolecule = 3

const identifierOf = (id: number) =>
  `VD-${String(Math.ceil(id / lotsPerMolecule)).padStart(7, '0')}-${String(((id - 1) % lotsPerMolecule) + 1).padStart(3, '0')}`

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-bench-plate-wells-'))
try {
  const file = path.join(directory, 'cache.db')
  const { cache } = VaultCache.open(file)
  progress(`writing ${batchCount} batches`)
  for (let start = 1; start <= batchCount; start += pageSize) {
    const page = Array.from({ length: Math.min(pageSize, batchCount - start + 1) }, (_, index) => {
      const id = start + index
      return {
        id,
        // Unique names for a third of the batches, so that a name names one batch as a lot may.
        name:
          id % 3 === 0 ? `Lot ${id}` : String(((id - 1) % lotsPerMolecule) + 1).padStart(3, '0'),
        molecule_batch_identifier: identifierOf(id),
        molecule: { id: Math.ceil(id / lotsPerMolecule) },
      }
    })
    cache.applyPage('batches', vaultId, page)
  }
  cache.close()

  const { rows, columns } = plateFormats[1536]
  const wells = Array.from({ length: rows * columns }, (_, index) => {
    const id = 1 + Math.floor(((index * 7919) % batchCount) / 3) * 3
    const reference =
      index % 3 === 0 ? String(id) : index % 3 === 1 ? identifierOf(id) : `Lot ${id + 2}`
    return `${gridLabel({ row: Math.floor(index / columns) + 1, column: (index % columns) + 1 })},${reference}`
  })
  const text = `well,batch\n${wells.join('\n')}\n`
  const byId = JSON.stringify(
    Array.from({ length: rows * columns }, (_, index) => 1 + ((index * 7919) % batchCount)),
  )

  const db = new Database(file, { readonly: true })
  const references = new InventoryReferences(db)
  const idLookup = db.prepare(
    'SELECT id FROM batches WHERE vault_id = ? AND id IN (SELECT value FROM json_each(?))',
  )
  const measured: number[] = []
  const referenceTimes: number[] = []
  for (let round = 0; round < repetitions; round++) {
    let started = performance.now()
    const reading = readWellList(text, 1536)
    const plan = planWells(reading, references.batches(vaultId, referencesOf(reading)))
    measured.push(performance.now() - started)
    if (plan.problems.length > 0 || plan.wells.length !== rows * columns) {
      throw new Error(`The well list did not resolve: ${plan.problems[0]?.message ?? 'wells lost'}`)
    }
    started = performance.now()
    idLookup.all(vaultId, byId)
    referenceTimes.push(performance.now() - started)
  }
  db.close()
  measured.sort((a, b) => a - b)
  referenceTimes.sort((a, b) => a - b)
  const value = percentile(measured, 0.95)
  const referenceValue = percentile(referenceTimes, 0.95)
  report({
    name: `plate well list: 1536 wells resolved over ${batchCount} batches, p95`,
    value,
    unit: 'ms',
    reference: 'the same wells found by batch id alone (primary key), p95',
    referenceValue,
    ratio: value / referenceValue,
    goal: 'under 500 ms',
    met: value < 500,
  })
} finally {
  fs.rmSync(directory, { recursive: true, force: true })
}
