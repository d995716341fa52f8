import type { JsonObject } from '../../../../src-common/values.ts'
import { isObject } from '../../../../src-common/values.ts'
import { recordEdit } from './record-edit.ts'
import { sameValue } from './same-values.ts'
import {
  readoutCorrection,
  type ReadoutCorrection,
} from '../../../../src-common/outbox/payloads/readout-rows.ts'

/** A corrected value or outlier flag of a detail row (aggregate rows answer 403). */
export const readoutUpdate = recordEdit<ReadoutCorrection>({
  name: 'readout.update',
  schema: readoutCorrection,
  read: (context, id) => context.client.readoutRows.get(context.vaultId, id, context.options),
  write: (context, id, payload) =>
    context.client.readoutRows.update(
      context.vaultId,
      id,
      { readouts: payload.readouts },
      context.options,
    ),
  holds(payload, record) {
    const readouts = isObject(record.readouts) ? record.readouts : {}
    return Object.entries(payload.readouts).every(([definition, change]) => {
      const cell: JsonObject = isObject(readouts[definition]) ? readouts[definition] : {}
      return (
        (change.value === undefined || sameValue(change.value, cell.value)) &&
        (change.outlier === undefined || change.outlier === (cell.outlier === true))
      )
    })
  },
  overlay: (payload) => ({
    set: {
      readouts: Object.fromEntries(
        Object.entries(payload.readouts).map(([definition, change]) => [
          definition,
          {
            ...(change.value !== undefined ? { value: change.value, modifier: null } : {}),
            ...(change.outlier !== undefined ? { outlier: change.outlier } : {}),
          },
        ]),
      ),
    },
  }),
})
