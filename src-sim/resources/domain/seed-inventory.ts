import type { SeedContext } from '../../core/module.ts'
import { plateFormat, wellLabel } from '../../pure/well-positions.ts'

/**
 * The demo inventory: a freezer with a rack of two 9 x 9 boxes and a cabinet, samples of the
 * main vault's batches with their credits and debits (microsecond timestamps), and a 96-well
 * source plate whose wells hold some of the samples (those samples cannot be deleted).
 */
export function seedInventory(seed: SeedContext): void {
  const { db, cast, random, now } = seed
  const vaultId = cast.vaults.main.id
  const location = db.prepare(
    `INSERT INTO inventory_locations (vault_id, parent_id, name, num_rows, num_columns, position_limit, created_at, modified_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const at = now - 365 * 86_400
  const add = (parent: number | null, name: string, grid?: number): number =>
    Number(
      location.run(
        vaultId,
        parent,
        name,
        grid ?? null,
        grid ?? null,
        grid ? grid * grid : null,
        at,
        at,
      ).lastInsertRowid,
    )
  const freezer = add(null, 'Freezer A (-20 °C)')
  const rack = add(freezer, 'Rack 1')
  const boxes = [add(rack, 'Box 1', 9), add(rack, 'Box 2', 9)]
  const cabinet = add(null, 'Room temperature cabinet')
  const shelf = add(cabinet, 'Shelf 1')

  const insertSample = db.prepare(
    `INSERT INTO inventory_samples (vault_id, batch_id, units, location_id, position, fields, owner_id, created_at, modified_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const insertEvent = db.prepare(
    `INSERT INTO inventory_events (sample_id, event_type, amount, note, user_id, created_at, modified_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  )
  const candidates = seed.batches.filter(
    (batch) =>
      batch.vaultId === vaultId &&
      (batch.projectIds.includes(cast.projects.kinase.id) ||
        batch.projectIds.includes(cast.projects.gpcr.id)),
  )
  const grid = { size: 81, rows: 9, columns: 9 }
  const samples: { id: number; batchId: number }[] = []
  candidates.slice(0, 60).forEach((batch, index) => {
    const box = boxes[Math.floor(index / 30) % boxes.length]!
    const position = wellLabel(
      { row: Math.floor((index % 30) / 9) + 1, col: (index % 9) + 1 },
      grid,
    )
    const solid = random.chance(0.4)
    const createdMicros =
      (now - random.integer(20, 300) * 86_400) * 1_000_000 + random.integer(0, 999_999)
    const sampleId = Number(
      insertSample.run(
        vaultId,
        batch.id,
        solid ? 'mg' : 'µL',
        solid ? shelf : box,
        solid ? null : position,
        JSON.stringify(solid ? { Form: 'powder' } : { Solvent: 'DMSO', Concentration: '10 mM' }),
        cast.users.writer.id,
        createdMicros,
        createdMicros,
      ).lastInsertRowid,
    )
    const initial = solid ? random.integer(5, 50) : random.integer(100, 500)
    insertEvent.run(
      sampleId,
      'Credit',
      initial,
      'initial amount',
      cast.users.writer.id,
      createdMicros,
      createdMicros,
    )
    let remaining = initial
    let moment = createdMicros
    for (let use = random.integer(0, 3); use > 0; use -= 1) {
      const amount = Number((remaining * (0.05 + random.next() * 0.2)).toFixed(2))
      moment += random.integer(1, 30) * 86_400_000_000 + random.integer(0, 999_999)
      insertEvent.run(
        sampleId,
        'Debit',
        amount,
        random.pick(['assay plate', 'solubility', 'QC']),
        cast.users.writer.id,
        moment,
        moment,
      )
      remaining -= amount
    }
    db.prepare(`UPDATE inventory_samples SET modified_at = ? WHERE id = ?`).run(moment, sampleId)
    samples.push({ id: sampleId, batchId: batch.id })
  })

  const format = plateFormat(96)!
  const plateAt = now - 30 * 86_400
  const plateId = Number(
    db
      .prepare(
        `INSERT INTO plates (vault_id, name, location, concentration, volume, size, owner_id, created_at, modified_at)
         VALUES (?, 'Compound source plate 1', 'Freezer A (-20 °C)', 10, 50, 96, ?, ?, ?)`,
      )
      .run(vaultId, cast.users.writer.id, plateAt, plateAt).lastInsertRowid,
  )
  db.prepare(`INSERT INTO plate_projects (plate_id, project_id) VALUES (?, ?), (?, ?)`).run(
    plateId,
    cast.projects.kinase.id,
    plateId,
    cast.projects.gpcr.id,
  )
  const insertWell = db.prepare(
    `INSERT INTO plate_wells (plate_id, row, col, batch_id, sample_id) VALUES (?, ?, ?, ?, ?)`,
  )
  samples.slice(0, 24).forEach((sample, index) => {
    insertWell.run(
      plateId,
      (index % format.rows) + 1,
      Math.floor(index / format.rows) + 1,
      sample.batchId,
      sample.id,
    )
  })
}
