import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { SearchesChannel } from './channels.ts'

export function searchesHandlers(services: Services): DomainHandlers<SearchesChannel> {
  return {
    'searches.list': ({ connectionId, vaultId }) => services.searches.list(connectionId, vaultId),
    'searches.run': ({ connectionId, vaultId, search, translatablePart }) =>
      services.searches.run(connectionId, vaultId, {
        search,
        ...(translatablePart !== undefined ? { translatablePart } : {}),
      }),
  }
}
