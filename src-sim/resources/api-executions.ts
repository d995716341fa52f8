import { formatSeconds } from '../core/dates.ts'
import type { SimModule } from '../core/module.ts'

const thirtyDays = 30 * 86_400

/**
 * GET /api_executions: the API time of the current key, as one entry keyed by the key's name.
 * The server records every authenticated request's duration (core/api-server.ts).
 */
export const apiExecutionsModule: SimModule = {
  name: 'api_executions',
  routes(router) {
    router.get('/vaults/{vault_id}/api_executions', async (ctx) => {
      const params = await ctx.input()
      const beforeGiven = params.date('before')
      const before = beforeGiven ?? ctx.sim.clock.nowSeconds()
      const after = params.date('after') ?? before - thirtyDays
      params.rejectUnknown()
      const seconds = ctx.db
        .prepare(
          `SELECT COALESCE(SUM(seconds), 0) FROM api_executions WHERE token_id = ? AND at >= ? AND at <= ?`,
        )
        .pluck()
        .get(ctx.tokenId, after, before) as number
      const tokenName = ctx.db
        .prepare(`SELECT name FROM api_tokens WHERE id = ?`)
        .pluck()
        .get(ctx.tokenId) as string
      return {
        [tokenName]: {
          after: formatSeconds(after),
          ...(beforeGiven === undefined ? {} : { before: formatSeconds(before) }),
          seconds: Math.round(seconds * 1000) / 1000,
        },
      }
    })
  },
}
