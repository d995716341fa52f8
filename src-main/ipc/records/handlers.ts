import type { Services } from '../../services/index.ts'
import { AppError } from '../../shared/app-error.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { RecordChannel } from './channels.ts'

export function recordHandlers(services: Services): DomainHandlers<RecordChannel> {
  const browse = services.browse
  return {
    'records.kinds': () => browse.kinds(),
    'records.list': ({ connectionId, vaultId, kind, results, ...rest }) => {
      const options = { ...rest, ...resultsIds(services, connectionId, vaultId, kind, results) }
      return options.structure || Object.keys(options.properties ?? {}).length > 0
        ? browse.listStructure(connectionId, vaultId, kind, options)
        : browse.list(connectionId, vaultId, kind, options)
    },
    'records.distinct': ({ connectionId, vaultId, kind, column, results, ...options }) =>
      browse.distinct(connectionId, vaultId, kind, column, {
        ...options,
        ...resultsIds(services, connectionId, vaultId, kind, results),
      }),
    'records.get': ({ connectionId, vaultId, kind, id }) =>
      browse.get(connectionId, vaultId, kind, id),
    'records.search': ({ connectionId, text, ...options }) =>
      browse.search(connectionId, text, options),
  }
}

/** The ids of the molecules or batches meeting results criteria, as a list's `ids`. */
function resultsIds(
  services: Services,
  connectionId: string,
  vaultId: number,
  kind: string,
  results: readonly string[] | undefined,
): { ids?: readonly number[] } {
  if (results === undefined || results.length === 0) return {}
  if (kind !== 'molecules' && kind !== 'batches') {
    throw new AppError(
      'invalid_argument',
      `Searches by results find molecules and batches, not ${kind}.`,
    )
  }
  const level = kind === 'molecules' ? 'molecule' : 'batch'
  return { ids: services.results.matching(connectionId, vaultId, results, level) }
}
