import type { Collection } from '../../../api/index.ts'
import type { Operation, SendContext, Sent } from './operation.ts'
import { sameValue } from './same-values.ts'
import {
  collectionAddition,
  newCollection,
  type CollectionAddition,
  type NewCollection,
} from '../../../../src-common/outbox/payloads/collections.ts'
import { offlineRefs } from '../../../../src-common/outbox/record-ref.ts'
import { likenessLane } from '../lanes.ts'
import { accountFor } from './new-records.ts'

const sentCollection = (collection: Collection): Sent => ({
  serverId: collection.id,
  record: collection,
  modifiedAt: collection.modified_at ?? null,
})

async function collectionNamed(context: SendContext, name: string): Promise<Collection | null> {
  for await (const collection of context.client.collections.queryAll(
    context.vaultId,
    { include_molecule_ids: true },
    context.options,
  )) {
    if (sameValue(name, collection.name)) return collection
  }
  return null
}

/**
 * A new collection. Names are unique (a create with a used name is refused), so an attempt in
 * doubt is settled by looking the name up.
 */
export const collectionCreate: Operation<NewCollection> = {
  name: 'collection.create',
  schema: newCollection,
  refs: () => [],
  lane: (payload) => likenessLane('collection', payload.name),
  overlay: (payload) => ({
    create: {
      name: payload.name,
      molecules: payload.molecules ?? [],
      class: payload.class ?? 'user collection',
    },
  }),
  async send(context, payload) {
    return sentCollection(
      await context.client.collections.create(context.vaultId, payload, context.options),
    )
  },
  async reconcile(context, payload) {
    const found = await collectionNamed(context, payload.name)
    if (!found) return { outcome: 'absent' }
    // Names are unique: another create of this name in doubt may be it as well.
    const accounting = accountFor(context, [found], null, () => true)
    switch (accounting.kind) {
      case 'none':
        return { outcome: 'absent' } // another item's: sent again, this one is refused (422)
      case 'found':
        return { outcome: 'arrived', sent: sentCollection(found), exclusive: { since: null } }
      default:
        return {
          outcome: 'unknown',
          reason: `other collections named ${payload.name} were in doubt too, and the server has one`,
        }
    }
  },
}

/** Molecules added to a collection: adding again changes nothing, so a doubt is simply resent. */
export const collectionAdd: Operation<CollectionAddition> = {
  name: 'collection.add',
  schema: collectionAddition,
  refs: (payload) => offlineRefs(payload.collection),
  overlay: (payload) => ({ append: { molecules: payload.molecules } }),
  async send(context, payload) {
    return sentCollection(
      await context.client.collections.addMolecules(
        context.vaultId,
        context.resolve(payload.collection),
        payload.molecules,
        context.options,
      ),
    )
  },
  reconcile: async () => ({ outcome: 'absent' }),
}
