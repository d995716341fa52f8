import type { Database } from 'better-sqlite3'
import type { RequestContext } from '../../core/context.ts'
import type { SimCore, VaultAccess } from '../../core/sim-core.ts'
import { formatSeconds } from '../../core/dates.ts'
import { HttpError, invalid, notFound } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import { moveBatch } from '../batches/batch-store.ts'
import { deleteMolecule } from '../molecules/molecule-store.ts'

/**
 * Batch move jobs (vault administrators): move a batch to another molecule of the vault. Jobs
 * wait in one queue per vault and run one at a time on the simulator clock: `requested` for half a
 * second, `queued` until the worker takes it, `processing` for two seconds, then `success` or
 * `failure`. A job that has not started can be canceled (`canceled`); a started or finished one
 * answers 405.
 */

const schema = `
CREATE TABLE IF NOT EXISTS batch_move_jobs (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  -- No foreign keys: a finished job stays as history after its batch or molecule is gone.
  batch_id INTEGER NOT NULL,
  molecule_id INTEGER NOT NULL,
  name TEXT,
  fail_on_molecule_deletion INTEGER NOT NULL,
  requested_by INTEGER NOT NULL REFERENCES users(id),
  status TEXT NOT NULL CHECK (status IN ('requested', 'queued', 'processing', 'success', 'failure', 'canceled')),
  status_message TEXT NOT NULL DEFAULT '',
  created_ms INTEGER NOT NULL,
  modified_ms INTEGER NOT NULL
);
`

const MOVE_TIMING = { queueMs: 500, pickupMs: 500, processingMs: 2000 }

interface JobRow {
  id: number
  vault_id: number
  batch_id: number
  molecule_id: number
  name: string | null
  fail_on_molecule_deletion: number
  requested_by: number
  status: 'requested' | 'queued' | 'processing' | 'success' | 'failure' | 'canceled'
  status_message: string
  created_ms: number
  modified_ms: number
}

const PENDING = ['requested', 'queued']

function jobRecord(db: Database, row: JobRow): Record<string, unknown> {
  const record: Record<string, unknown> = {
    id: row.id,
    class: 'batch move job',
    batch: row.batch_id,
    molecule: row.molecule_id,
    name: row.name,
    fail_on_molecule_deletion: row.fail_on_molecule_deletion === 1,
    requested_by: row.requested_by,
    status: row.status,
    status_message: row.status_message,
    created_at: formatSeconds(Math.floor(row.created_ms / 1000)),
    modified_at: formatSeconds(Math.floor(row.modified_ms / 1000)),
  }
  if (PENDING.includes(row.status)) {
    const ahead = db
      .prepare(
        `SELECT COUNT(*) AS count FROM batch_move_jobs WHERE vault_id = ? AND id < ?
         AND status IN ('requested', 'queued', 'processing')`,
      )
      .get(row.vault_id, row.id) as { count: number }
    record.queued_job_position = ahead.count + 1
  }
  return record
}

/**
 * Runs a vault's queue up to now. Every request is queued after `queueMs`; one worker takes the
 * queued jobs in order, each `pickupMs` after it was queued at the earliest, and needs
 * `processingMs` per job.
 */
export function advanceMoveJobs(sim: SimCore, vaultId: number): void {
  const db = sim.db
  const now = sim.clock.nowMillis()
  const update = db.prepare(
    `UPDATE batch_move_jobs SET status = ?, status_message = ?, modified_ms = ? WHERE id = ?`,
  )
  const jobs = db
    .prepare(
      `SELECT * FROM batch_move_jobs WHERE vault_id = ? AND status IN ('requested', 'queued', 'processing') ORDER BY id`,
    )
    .all(vaultId) as JobRow[]
  const queuedAt = (job: JobRow): number => job.created_ms + MOVE_TIMING.queueMs
  for (const job of jobs) {
    if (job.status === 'requested' && now >= queuedAt(job)) {
      job.status = 'queued'
      job.modified_ms = queuedAt(job)
      update.run('queued', '', job.modified_ms, job.id)
    }
  }
  const lastFinish = db
    .prepare(
      `SELECT MAX(modified_ms) AS at FROM batch_move_jobs WHERE vault_id = ? AND status IN ('success', 'failure')`,
    )
    .get(vaultId) as { at: number | null }
  let workerFreeAt = lastFinish.at ?? 0
  for (const job of jobs) {
    if (job.status === 'requested') return
    if (job.status === 'queued') {
      const startAt = Math.max(queuedAt(job) + MOVE_TIMING.pickupMs, workerFreeAt)
      if (now < startAt) return
      job.status = 'processing'
      job.modified_ms = startAt
      update.run('processing', '', startAt, job.id)
    }
    const finishAt = job.modified_ms + MOVE_TIMING.processingMs
    if (now < finishAt) return
    const outcome = executeMove(sim, job, finishAt)
    update.run(outcome.ok ? 'success' : 'failure', outcome.message, finishAt, job.id)
    // Molecule and batch queries cache their results per data version.
    if (outcome.ok) sim.dataVersion++
    workerFreeAt = finishAt
  }
}

/**
 * Moves the batch; answers the job's final status and message. A batch that was its molecule's
 * last either fails the job (fail_on_molecule_deletion) or takes the emptied molecule with it.
 */
function executeMove(sim: SimCore, job: JobRow, at: number): { ok: boolean; message: string } {
  const db = sim.db
  const batch = db
    .prepare(`SELECT id, molecule_id, name FROM batches WHERE id = ?`)
    .get(job.batch_id) as { id: number; molecule_id: number; name: string } | undefined
  if (!batch) return { ok: false, message: `batch ${job.batch_id} no longer exists` }
  if (!db.prepare(`SELECT 1 FROM molecules WHERE id = ?`).get(job.molecule_id)) {
    return { ok: false, message: `molecule ${job.molecule_id} no longer exists` }
  }
  const siblings = db
    .prepare(`SELECT COUNT(*) AS count FROM batches WHERE molecule_id = ?`)
    .get(batch.molecule_id) as {
    count: number
  }
  const leavesEmpty = siblings.count === 1
  if (job.fail_on_molecule_deletion === 1 && leavesEmpty) {
    return {
      ok: false,
      message: `moving batch ${batch.id} would delete molecule ${batch.molecule_id}, its last batch, and fail_on_molecule_deletion is set`,
    }
  }
  const taken = (candidate: string): boolean =>
    db
      .prepare(`SELECT 1 FROM batches WHERE molecule_id = ? AND name = ?`)
      .get(job.molecule_id, candidate) !== undefined
  if (job.name !== null && taken(job.name)) {
    return {
      ok: false,
      message: `molecule ${job.molecule_id} already has a batch named '${job.name}'`,
    }
  }
  // Without a requested name the batch keeps its own, or takes the target's next free number.
  let name = job.name ?? batch.name
  for (let number = 1; taken(name); number += 1) name = String(number).padStart(3, '0')
  db.transaction(() => {
    moveBatch(db, {
      batchId: batch.id,
      moleculeId: job.molecule_id,
      name,
      atSeconds: Math.floor(at / 1000),
    })
    if (leavesEmpty) deleteMolecule(sim, batch.molecule_id)
  })()
  return {
    ok: true,
    message:
      `batch ${batch.id} now belongs to molecule ${job.molecule_id}` +
      (leavesEmpty ? `; molecule ${batch.molecule_id}, left without batches, was deleted` : ''),
  }
}

function visibleJob(access: VaultAccess, id: number): JobRow {
  advanceMoveJobs(access.sim, access.vault.id)
  const row = access.db
    .prepare(`SELECT * FROM batch_move_jobs WHERE id = ? AND vault_id = ?`)
    .get(id, access.vault.id) as JobRow | undefined
  if (!row) throw notFound(`Batch move job ${id}`)
  return row
}

async function createJob(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const params = await ctx.input()
  const batchId = params.integer('batch', { min: 1, required: true }) as number
  const moleculeId = params.integer('molecule', { min: 1, required: true }) as number
  const failOnMoleculeDeletion = params.boolean('fail_on_molecule_deletion', true)
  const name = params.string('name')?.trim()
  params.ignore(
    'id',
    'class',
    'status',
    'status_message',
    'queued_job_position',
    'requested_by',
    'created_at',
    'modified_at',
  )
  params.rejectUnknown()
  const batch = ctx.db
    .prepare(`SELECT id, molecule_id FROM batches WHERE id = ? AND vault_id = ?`)
    .get(batchId, access.vault.id) as { id: number; molecule_id: number } | undefined
  if (!batch) throw invalid('batch', `${batchId} is not a batch of this vault`)
  if (
    !ctx.db
      .prepare(`SELECT 1 FROM molecules WHERE id = ? AND vault_id = ?`)
      .get(moleculeId, access.vault.id)
  ) {
    throw invalid('molecule', `${moleculeId} is not a molecule of this vault`)
  }
  if (batch.molecule_id === moleculeId)
    throw invalid('molecule', `batch ${batchId} already belongs to molecule ${moleculeId}`)
  if (name !== undefined && access.vault.registrationSystem) {
    throw invalid('name', 'can only be given in vaults without a registration system')
  }
  const now = ctx.sim.clock.nowMillis()
  const id = Number(
    ctx.db
      .prepare(
        `INSERT INTO batch_move_jobs (vault_id, batch_id, molecule_id, name, fail_on_molecule_deletion, requested_by, status, created_ms, modified_ms)
         VALUES (?, ?, ?, ?, ?, ?, 'requested', ?, ?)`,
      )
      .run(
        access.vault.id,
        batchId,
        moleculeId,
        name ?? null,
        failOnMoleculeDeletion ? 1 : 0,
        ctx.user.id,
        now,
        now,
      ).lastInsertRowid,
  )
  return jobRecord(ctx.db, visibleJob(access, id))
}

function cancelJob(ctx: RequestContext): unknown {
  const row = visibleJob(ctx.access, ctx.pathId('job_id'))
  if (!PENDING.includes(row.status)) {
    throw new HttpError(
      405,
      `Batch move job ${row.id} has ${row.status === 'processing' ? 'started' : 'finished'} and cannot be canceled`,
      {
        body: jobRecord(ctx.db, row),
      },
    )
  }
  ctx.db
    .prepare(
      `UPDATE batch_move_jobs SET status = 'canceled', status_message = ?, modified_ms = ? WHERE id = ?`,
    )
    .run(
      `canceled by ${ctx.user.firstName} ${ctx.user.lastName}`,
      ctx.sim.clock.nowMillis(),
      row.id,
    )
  return jobRecord(ctx.db, visibleJob(ctx.access, row.id))
}

export const batchMoveJobsModule: SimModule = {
  name: 'batch move jobs',
  schema,
  routes(router) {
    router.get(
      '/vaults/{vault_id}/batch_move_jobs',
      (ctx) => {
        advanceMoveJobs(ctx.sim, ctx.access.vault.id)
        const rows = ctx.db
          .prepare(`SELECT * FROM batch_move_jobs WHERE vault_id = ? ORDER BY id`)
          .all(ctx.access.vault.id) as JobRow[]
        return rows.map((row) => jobRecord(ctx.db, row))
      },
      { admin: true },
    )
    router.post('/vaults/{vault_id}/batch_move_jobs', createJob, { admin: true })
    router.get(
      '/vaults/{vault_id}/batch_move_jobs/{job_id}',
      (ctx) => jobRecord(ctx.db, visibleJob(ctx.access, ctx.pathId('job_id'))),
      { admin: true },
    )
    router.delete('/vaults/{vault_id}/batch_move_jobs/{job_id}', cancelJob, { admin: true })
  },
  dependentData: {
    batch: (db, batchId) => {
      const { count } = db
        .prepare(
          `SELECT COUNT(*) AS count FROM batch_move_jobs WHERE batch_id = ? AND status IN ('requested', 'queued', 'processing')`,
        )
        .get(batchId) as { count: number }
      return count > 0 ? `${count} pending batch move jobs` : undefined
    },
  },
}
