import {
  readFitConstraints,
  type FitConstraints,
} from '../../../../src-common/analysis/dose-response/constraints.ts'
import { EQUATIONS } from '../../../../src-common/analysis/dose-response/equations.ts'
import {
  constraintsOf,
  seriesConstraintEdit,
  type SeriesConstraintEdit,
} from '../../../../src-common/outbox/payloads/dose-response.ts'
import type { JsonObject } from '../../../../src-common/values.ts'
import type { SendContext } from './operation.ts'
import { recordEdit } from './record-edit.ts'

/**
 * New fit constraints of a dose-response data series: a PUT of its `fit_parameters`, after which
 * the vault refits that curve. The series' path names its protocol and calculation, which the
 * item's payload carries.
 */
export const curveUpdate = recordEdit<SeriesConstraintEdit>({
  name: 'curve.update',
  schema: seriesConstraintEdit,
  read: (context, id) => {
    const { protocol, calculation } = payloadOf(context)
    return context.client.doseResponse.series(
      context.vaultId,
      protocol,
      calculation,
      id,
      context.options,
    ) as Promise<JsonObject>
  },
  write: (context, id, payload) =>
    context.client.doseResponse.updateSeries(
      context.vaultId,
      payload.protocol,
      payload.calculation,
      id,
      { fit_parameters: constraintsOf(payload) as Record<string, never> },
      context.options,
    ) as Promise<JsonObject>,
  holds(payload, record) {
    const theirs = readFitConstraints(payload.equation_type, record.fit_parameters, 'data series')
    return theirs.ok && sameConstraints(theirs.constraints, constraintsOf(payload))
  },
  overlay: (payload) => {
    const constraints = constraintsOf(payload)
    return {
      // A merge patch: every parameter the equation allows is set or removed, and each member a
      // constraint does not have is removed, so the series shows exactly the new constraints.
      // (applyOverlays keeps a patch's nulls where the target had no such member: readers of a
      // pending series drop null members, see curve-queries.ts.)
      set: {
        fit_parameters: Object.fromEntries(
          EQUATIONS[payload.equation_type].constrainable.map((name) => {
            const constraint = constraints[name]
            return [name, constraint ? { value: null, range: null, ...constraint } : null]
          }),
        ),
      },
    }
  },
})

function payloadOf(context: SendContext): SeriesConstraintEdit {
  return seriesConstraintEdit.parse(context.item.payload)
}

function sameConstraints(first: FitConstraints, second: FitConstraints): boolean {
  const names = new Set([...Object.keys(first), ...Object.keys(second)])
  return [...names].every(
    (name) => JSON.stringify(first[name] ?? null) === JSON.stringify(second[name] ?? null),
  )
}
