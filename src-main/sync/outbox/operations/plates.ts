import type { PlateWellWrite, PlateWrite } from '../../../api/index.ts'
import type { JsonObject } from '../../../../src-common/values.ts'
import { idsOf, newRecordOf } from './new-records.ts'
import { likenessLane } from '../lanes.ts'
import type { Operation, SendContext } from './operation.ts'
import { recordEdit } from './record-edit.ts'
import { sameProjects, sameValue } from './same-values.ts'
import {
  newPlate,
  plateCorrection,
  type NewPlate,
  type PlateCorrection,
} from '../../../../src-common/outbox/payloads/plates.ts'

type PlateMembers = Omit<NewPlate, 'name' | 'projects'> &
  Pick<Partial<NewPlate>, 'name' | 'projects'>

/** The write body: wells by label, or by row and column. */
function plateWrite<T extends PlateMembers>(plate: T): Omit<T, 'wells'> & PlateWrite {
  const { wells, ...members } = plate
  if (!wells) return members
  const written: PlateWellWrite[] = wells.map(({ pos, row, col, ...contents }) =>
    pos !== undefined ? { pos, ...contents } : { row: row!, col: col!, ...contents },
  )
  return { ...members, wells: written }
}

const plateView = (plate: NewPlate | PlateCorrection['changes']): JsonObject => {
  const { projects, ...plain } = plate
  return {
    ...plain,
    ...(projects
      ? { projects: projects.map((p) => (typeof p === 'number' ? { id: p } : { name: p })) }
      : {}),
  }
}

/**
 * A new plate. Plate names need not be unique, so the plates of that name are noted before the
 * first attempt: one more afterwards is the one sent.
 */
export const plateCreate: Operation<NewPlate> = {
  name: 'plate.create',
  schema: newPlate,
  refs: () => [],
  lane: (payload) => likenessLane('plate', payload.name),
  overlay: (payload) => ({ create: plateView(payload) }),
  snapshot: async (context, payload) => ({ ids: idsOf(await platesNamed(context, payload.name)) }),
  async send(context, payload) {
    const plate = await context.client.plates.create(
      context.vaultId,
      plateWrite(payload),
      context.options,
    )
    return { serverId: plate.id, record: plate, modifiedAt: plate.modified_at ?? null }
  },
  reconcile: (context, payload) => newRecordOf(context, () => platesNamed(context, payload.name)),
}

/** Every page of the plates of one name (names filter only through the POST query form). */
async function platesNamed(context: SendContext, name: string): Promise<unknown[]> {
  const plates: unknown[] = []
  for await (const plate of context.client.plates.queryAll(
    context.vaultId,
    { names: [name] },
    context.options,
  )) {
    plates.push(plate)
  }
  return plates
}

/** Plate changes; wells, when given, replace every well. */
export const plateUpdate = recordEdit<PlateCorrection>({
  name: 'plate.update',
  schema: plateCorrection,
  read: (context, id) => context.client.plates.get(context.vaultId, id, context.options),
  write: (context, id, payload) =>
    context.client.plates.update(context.vaultId, id, plateWrite(payload.changes), context.options),
  holds({ changes }, record) {
    const { projects, wells, ...plain } = changes
    return (
      Object.entries(plain).every(([member, value]) => sameValue(value, record[member])) &&
      (projects === undefined || sameProjects(projects, record.projects)) &&
      (wells === undefined || (Array.isArray(record.wells) && record.wells.length === wells.length))
    )
  },
  overlay: ({ changes }) => ({ set: plateView(changes) }),
})
