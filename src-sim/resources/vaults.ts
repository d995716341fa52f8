import type { SimModule } from '../core/module.ts'

/** GET /vaults: every vault the token's user belongs to, API access on or off. */
export const vaultsModule: SimModule = {
  name: 'vaults',
  routes(router) {
    router.get('/vaults', (ctx) =>
      ctx.db
        .prepare(
          `SELECT vaults.id, vaults.name FROM vaults JOIN vault_members ON vault_members.vault_id = vaults.id
           WHERE vault_members.user_id = ? ORDER BY vaults.id`,
        )
        .all(ctx.user.id),
    )
  },
}
