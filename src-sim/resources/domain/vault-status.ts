import type { SimModule } from '../../core/module.ts'
import { formatSeconds } from '../../core/dates.ts'
import { projectRefs, userName } from './access-rules.ts'
import { advanceMoveJobs } from './batch-move-jobs.ts'
import { protocolProjectIds } from './protocols.ts'
import { advanceSlurps } from './slurp-lifecycle.ts'
import { ACTIVE_STATES, MAX_RUNNING_SLURPS } from './slurp-store.ts'

/**
 * GET /status (vault administrators): imports under way, protocols recalculating after a change
 * to their dose-response settings, and whether background processing is available.
 */
export const vaultStatusModule: SimModule = {
  name: 'vault status',
  routes(router) {
    router.get(
      '/vaults/{vault_id}/status',
      async (ctx) => {
        ;(await ctx.input()).rejectUnknown()
        const vaultId = ctx.access.vault.id
        const nowMs = ctx.sim.clock.nowMillis()
        advanceSlurps(ctx.sim, { vaultId })
        advanceSlurps(ctx.sim, { userId: ctx.user.id })
        advanceMoveJobs(ctx.sim, vaultId)
        const active = JSON.stringify(ACTIVE_STATES)
        const slurps = ctx.db
          .prepare(
            `SELECT id, state, user_id, project_id, state_ms FROM slurps
             WHERE vault_id = ? AND state IN (SELECT value FROM json_each(?)) ORDER BY id`,
          )
          .all(vaultId, active) as {
          id: number
          state: string
          user_id: number
          project_id: number
          state_ms: number
        }[]
        const accountSlurps = ctx.db
          .prepare(
            `SELECT COUNT(*) AS count FROM slurps WHERE user_id = ? AND state IN (SELECT value FROM json_each(?))`,
          )
          .get(ctx.user.id, active) as { count: number }
        const movingJob = ctx.db
          .prepare(`SELECT 1 FROM batch_move_jobs WHERE vault_id = ? AND status = 'processing'`)
          .get(vaultId)
        const recalculating = ctx.db
          .prepare(
            `SELECT DISTINCT protocols.id, protocols.name FROM protocols
             JOIN dose_response_calculations ON dose_response_calculations.protocol_id = protocols.id
             WHERE protocols.vault_id = ? AND dose_response_calculations.recalculating_until_ms > ? ORDER BY protocols.id`,
          )
          .all(vaultId, nowMs) as { id: number; name: string }[]
        return {
          max_executing_account_slurps: MAX_RUNNING_SLURPS,
          num_executing_account_slurps: accountSlurps.count,
          any_locking_chemistry_slurps: slurps.some((slurp) => slurp.state === 'committing'),
          any_executing_batch_move_job: movingJob !== undefined,
          slurps: slurps.map((slurp) => ({
            id: slurp.id,
            state: slurp.state,
            owner: userName(ctx.db, slurp.user_id),
            project: projectRefs(ctx.db, [slurp.project_id])[0] ?? null,
            modified_at: formatSeconds(Math.floor(slurp.state_ms / 1000)),
          })),
          recalculating_protocols: recalculating.map((protocol) => ({
            id: protocol.id,
            name: protocol.name,
            projects: projectRefs(ctx.db, protocolProjectIds(ctx.db, protocol.id)),
          })),
          application_status: { processors_available: true, calculators_available: true },
        }
      },
      { admin: true },
    )
  },
}
