import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { ResultsChannel } from './channels.ts'

export function resultsHandlers(services: Services): DomainHandlers<ResultsChannel> {
  return {
    'results.catalogue': ({ connectionId, vaultId }) =>
      services.results.catalogue(connectionId, vaultId),
    'results.table': ({ connectionId, vaultId, ...question }) =>
      services.results.table(connectionId, vaultId, question),
    'results.points': ({ connectionId, vaultId, ...question }) =>
      services.results.points(connectionId, vaultId, question),
    'results.summary': ({ connectionId, vaultId, level, id }) =>
      services.results.summary(connectionId, vaultId, level, id),
  }
}
