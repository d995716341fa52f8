import type { RequestContext } from '../../core/context.ts'
import { Params } from '../../core/params.ts'

/**
 * Starts an export after reading its parameters once as the export will, so that a mistake is a
 * 422 now rather than a failed export later. `extra` carries what the path gave (a protocol id).
 */
export function startCheckedExport(
  ctx: RequestContext,
  kind: string,
  params: Params,
  format: string | undefined,
  check: (copy: Params) => unknown,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const copy = (): Params =>
    new Params({ ...params.toJSON(), ...extra }, params.origin, params.timeZone)
  check(copy())
  return ctx.sim.exports.start(ctx.access, kind, copy(), format)
}
