import type { Database } from 'better-sqlite3'
import type { VaultAccess } from '../../core/sim-core.ts'
import { invalid } from '../../core/http-error.ts'
import type { FieldValue } from '../fields.ts'

export interface NewBatch {
  moleculeId: number
  /** Without a name the batch takes its molecule's next free three-digit number. */
  name?: string | undefined
  projectIds: readonly number[]
  /** Batch field values, checked by the caller (checkFieldValues). */
  fields: Record<string, FieldValue>
  saltName?: string | null | undefined
  solventName?: string | null | undefined
  stoichiometry?: { core: number; salt: number; solvent: number } | undefined
}

function nameTaken(db: Database, moleculeId: number, name: string): boolean {
  return (
    db.prepare(`SELECT 1 FROM batches WHERE molecule_id = ? AND name = ?`).get(moleculeId, name) !==
    undefined
  )
}

function nextBatchName(db: Database, moleculeId: number): string {
  const siblings = db
    .prepare(`SELECT COUNT(*) FROM batches WHERE molecule_id = ?`)
    .pluck()
    .get(moleculeId) as number
  let number = siblings + 1
  while (nameTaken(db, moleculeId, String(number).padStart(3, '0'))) number += 1
  return String(number).padStart(3, '0')
}

/**
 * Inserts a batch owned by the user, puts it and its molecule in the batch's projects and marks
 * the molecule modified; answers the batch id. A given name already used by a batch of the
 * molecule answers 422.
 */
export function insertBatch(access: VaultAccess, batch: NewBatch): number {
  const db = access.db
  const name = batch.name ?? nextBatchName(db, batch.moleculeId)
  if (nameTaken(db, batch.moleculeId, name))
    throw invalid('name', `'${name}' is already the name of a batch of this molecule`)
  const now = access.sim.clock.nowSeconds()
  const saltName = batch.saltName ?? null
  const solventName = batch.solventName ?? null
  const batchId = Number(
    db
      .prepare(
        `INSERT INTO batches (vault_id, molecule_id, name, owner_id, salt_name, solvent_of_crystallization_name, core_count,
           salt_count, solvent_of_crystallization_count, fields, created_at, modified_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        access.vault.id,
        batch.moleculeId,
        name,
        access.user.id,
        saltName,
        solventName,
        batch.stoichiometry?.core ?? 1,
        batch.stoichiometry?.salt ?? (saltName ? 1 : 0),
        batch.stoichiometry?.solvent ?? (solventName ? 1 : 0),
        JSON.stringify(batch.fields),
        now,
        now,
      ).lastInsertRowid,
  )
  const addBatchProject = db.prepare(
    `INSERT INTO batch_projects (batch_id, project_id) VALUES (?, ?)`,
  )
  const addMoleculeProject = db.prepare(
    `INSERT OR IGNORE INTO molecule_projects (molecule_id, project_id) VALUES (?, ?)`,
  )
  for (const projectId of batch.projectIds) {
    addBatchProject.run(batchId, projectId)
    addMoleculeProject.run(batch.moleculeId, projectId)
  }
  db.prepare(`UPDATE molecules SET modified_at = ? WHERE id = ?`).run(now, batch.moleculeId)
  return batchId
}

/**
 * Moves a batch to another molecule under a name that molecule does not use yet (checked by the
 * caller). The target joins the batch's projects, so that whoever reads the batch still reads
 * its molecule, and both molecules are marked modified at `atSeconds`.
 */
export function moveBatch(
  db: Database,
  move: { batchId: number; moleculeId: number; name: string; atSeconds: number },
): void {
  const origin = db
    .prepare(`SELECT molecule_id FROM batches WHERE id = ?`)
    .pluck()
    .get(move.batchId) as number
  db.prepare(`UPDATE batches SET molecule_id = ?, name = ?, modified_at = ? WHERE id = ?`).run(
    move.moleculeId,
    move.name,
    move.atSeconds,
    move.batchId,
  )
  db.prepare(
    `INSERT OR IGNORE INTO molecule_projects (molecule_id, project_id)
     SELECT ?, project_id FROM batch_projects WHERE batch_id = ?`,
  ).run(move.moleculeId, move.batchId)
  db.prepare(`UPDATE molecules SET modified_at = ? WHERE id IN (?, ?)`).run(
    move.atSeconds,
    origin,
    move.moleculeId,
  )
}
