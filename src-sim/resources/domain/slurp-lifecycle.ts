import type { SimCore } from '../../core/sim-core.ts'
import type { SlurpOptions } from './slurp-options.ts'
import { commitSlurp, planSlurp, type SlurpPlan } from './slurp-processing.ts'
import { ACTIVE_STATES, type SlurpRow } from './slurp-store.ts'

/**
 * Moves slurps along the simulator clock, the way the export engine moves exports: a slurp shows
 * `mapping` for a second, `processing` for two (then its file is planned), `processed` for half a
 * second (or until someone reviews it, which the API cannot do), and `committing` for two before
 * its data is written and it shows `committed`. Tests move the clock instead of waiting.
 */
const SLURP_TIMING = {
  mappingMs: 1000,
  processingMs: 2000,
  processedMs: 500,
  committingMs: 2000,
}

/** Advances the active slurps that match (a user's, a vault's, or one slurp). */
export function advanceSlurps(
  sim: SimCore,
  filter: { userId?: number; vaultId?: number; slurpId?: number },
): void {
  const rows = sim.db
    .prepare(
      `SELECT * FROM slurps WHERE state IN (SELECT value FROM json_each(?))
       AND (? IS NULL OR user_id = ?) AND (? IS NULL OR vault_id = ?) AND (? IS NULL OR id = ?) ORDER BY id`,
    )
    .all(
      JSON.stringify(ACTIVE_STATES),
      filter.userId ?? null,
      filter.userId ?? null,
      filter.vaultId ?? null,
      filter.vaultId ?? null,
      filter.slurpId ?? null,
      filter.slurpId ?? null,
    ) as SlurpRow[]
  for (const row of rows) advanceOne(sim, row)
}

function advanceOne(sim: SimCore, row: SlurpRow): void {
  const now = sim.clock.nowMillis()
  const setState = (
    state: SlurpRow['state'],
    at: number,
    changes: { plan?: string; summary?: string } = {},
  ): void => {
    sim.db
      .prepare(
        `UPDATE slurps SET state = ?, state_ms = ?, plan = COALESCE(?, plan), summary = COALESCE(?, summary) WHERE id = ?`,
      )
      .run(state, at, changes.plan ?? null, changes.summary ?? null, row.id)
    row = { ...row, state, state_ms: at, plan: changes.plan ?? row.plan }
  }
  for (;;) {
    const options = JSON.parse(row.options) as SlurpOptions
    const access = sim.accessFor(row.user_id, row.token_id, row.vault_id)
    if (row.state === 'mapping' && now >= row.state_ms + SLURP_TIMING.mappingMs) {
      setState('processing', row.state_ms + SLURP_TIMING.mappingMs)
    } else if (row.state === 'processing' && now >= row.state_ms + SLURP_TIMING.processingMs) {
      const at = row.state_ms + SLURP_TIMING.processingMs
      if (!access) {
        recordLostAccess(sim, row.id)
        setState('rejected', at)
        continue
      }
      const plan = planSlurp(access, sim.chem, row, options)
      const insert = sim.db.prepare(
        `INSERT INTO slurp_events (slurp_id, kind, record, message, resolution) VALUES (?, ?, ?, ?, ?)`,
      )
      for (const event of plan.events)
        insert.run(row.id, event.kind, event.record, event.message, event.resolution)
      const skipped = new Set(
        plan.events
          .filter((event) => event.kind === 'error' && event.record > 0)
          .map((event) => event.record),
      ).size
      const summary = JSON.stringify({
        records: plan.records.length + skipped,
        records_skipped: skipped,
      })
      const next =
        plan.outcome === 'invalid'
          ? 'invalid'
          : plan.outcome === 'rejected'
            ? 'rejected'
            : 'processed'
      setState(next, at, { plan: JSON.stringify({ ...plan, skipped }), summary })
    } else if (row.state === 'processed' && now >= row.state_ms + SLURP_TIMING.processedMs) {
      const plan = JSON.parse(row.plan ?? '{}') as SlurpPlan
      if (plan.outcome !== 'commit') return
      setState('committing', row.state_ms + SLURP_TIMING.processedMs)
    } else if (row.state === 'committing' && now >= row.state_ms + SLURP_TIMING.committingMs) {
      const at = row.state_ms + SLURP_TIMING.committingMs
      if (!access) {
        recordLostAccess(sim, row.id)
        setState('rejected', at)
        continue
      }
      const plan = JSON.parse(row.plan!) as SlurpPlan & { skipped: number }
      const summary = commitSlurp(access, row, options, plan, plan.skipped)
      setState('committed', at, { summary: JSON.stringify(summary) })
      // Molecule and batch queries cache their results per data version.
      sim.dataVersion++
    } else {
      return
    }
  }
}

function recordLostAccess(sim: SimCore, slurpId: number): void {
  sim.db
    .prepare(
      `INSERT INTO slurp_events (slurp_id, kind, record, message, resolution) VALUES (?, 'error', 0, ?, NULL)`,
    )
    .run(slurpId, 'the importing user no longer has access to the vault')
}
