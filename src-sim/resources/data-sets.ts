import type { SimModule } from '../core/module.ts'

/** GET /data_sets: the vault's public data sets; 404 "when unauthorized or not found" (spec). */
export const dataSetsModule: SimModule = {
  name: 'data_sets',
  routes(router) {
    router.get(
      '/vaults/{vault_id}/data_sets',
      (ctx) =>
        ctx.db
          .prepare(`SELECT id, name FROM data_sets WHERE vault_id = ? ORDER BY id`)
          .all(ctx.access.vault.id),
      { vaultRefusal: 404 },
    )
  },
}
