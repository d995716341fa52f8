import type { SimModule } from '../core/module.ts'
import { jsonReply, redirectReply } from '../core/replies.ts'

/** Export progress, the list of a key's active exports, the download redirect and cancel. */
export const exportsModule: SimModule = {
  name: 'exports',
  routes(router) {
    router.get('/vaults/{vault_id}/export_progress/{export_id}', (ctx) =>
      ctx.sim.exports.progress(ctx.access, ctx.pathId('export_id')),
    )
    router.get('/vaults/{vault_id}/exports', (ctx) =>
      ctx.sim.exports.listForToken(ctx.tokenId, ctx.user.id),
    )
    router.get('/vaults/{vault_id}/exports/{export_id}', (ctx) =>
      redirectReply(ctx.sim.exports.downloadLocation(ctx.access, ctx.pathId('export_id'))),
    )
    router.delete('/vaults/{vault_id}/exports/{export_id}', (ctx) =>
      jsonReply(ctx.sim.exports.cancel(ctx.access, ctx.pathId('export_id'))),
    )
  },
}
