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
    'searches.propose': ({ connectionId, vaultId, search }) =>
      services.searches.propose(connectionId, vaultId, search),
    'searches.save': ({ connectionId, vaultId, ...request }) =>
      services.searches.save(connectionId, vaultId, request),
    'searches.runOnVault': ({ connectionId, vaultId, ...request }) =>
      services.searches.startVaultRun(connectionId, vaultId, request),
    'searches.cancelVaultRun': ({ runId }) => ({
      cancelled: services.searches.cancelVaultRun(runId),
    }),
  }
}
