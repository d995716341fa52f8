import type { SavedSearch } from '../../../api/index.ts'
import {
  newSavedSearch,
  type NewSavedSearch,
} from '../../../../src-common/outbox/payloads/saved-searches.ts'
import { likenessLane } from '../lanes.ts'
import { accountFor } from './new-records.ts'
import type { Operation, SendContext, Sent } from './operation.ts'
import { sameValue } from './same-values.ts'

/** The saved search's own id is its session's (`saved_search_session_id`), as the cache keeps it. */
function sentSearch(search: SavedSearch): Sent {
  return {
    serverId: search.id ?? search.saved_search_session_id ?? null,
    record: search,
    modifiedAt: search.modified_at ?? null,
  }
}

async function searchNamed(context: SendContext, name: string): Promise<SavedSearch | null> {
  const searches = await context.client.searches.list(context.vaultId, context.options)
  return searches.find((search) => sameValue(name, search.name)) ?? null
}

/**
 * A new saved search. Names are unique in a vault (a create with a used name is refused), so an
 * attempt in doubt is settled by looking the name up: it is never sent twice.
 */
export const searchCreate: Operation<NewSavedSearch> = {
  name: 'search.create',
  schema: newSavedSearch,
  refs: () => [],
  lane: (payload) => likenessLane('saved-search', payload.name),
  overlay: (payload) => ({
    create: {
      name: payload.name,
      projects: payload.projects.map((id) => ({ id })),
      search_criteria: payload.search_criteria,
    },
  }),
  async send(context, payload) {
    return sentSearch(
      await context.client.searches.create(context.vaultId, payload, context.options),
    )
  },
  async reconcile(context, payload) {
    const found = await searchNamed(context, payload.name)
    const id = found ? (found.id ?? found.saved_search_session_id ?? null) : null
    if (!found || id === null) return { outcome: 'absent' }
    // Names are unique: another create of this name in doubt may be it as well.
    const accounting = accountFor(context, [{ id, found }], null, () => true)
    switch (accounting.kind) {
      case 'none':
        return { outcome: 'absent' } // another item's: sent again, this one is refused (422)
      case 'found':
        return { outcome: 'arrived', sent: sentSearch(found), exclusive: { since: null } }
      default:
        return {
          outcome: 'unknown',
          reason: `other saved searches named ${payload.name} were in doubt too, and the vault has one`,
        }
    }
  },
}
