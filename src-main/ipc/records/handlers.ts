import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { RecordChannel } from './channels.ts'

export function recordHandlers(services: Services): DomainHandlers<RecordChannel> {
  const browse = services.browse
  return {
    'records.kinds': () => browse.kinds(),
    'records.list': ({ connectionId, vaultId, kind, ...options }) =>
      options.structure || Object.keys(options.properties ?? {}).length > 0
        ? browse.listStructure(connectionId, vaultId, kind, options)
        : browse.list(connectionId, vaultId, kind, options),
    'records.distinct': ({ connectionId, vaultId, kind, column, ...options }) =>
      browse.distinct(connectionId, vaultId, kind, column, options),
    'records.get': ({ connectionId, vaultId, kind, id }) =>
      browse.get(connectionId, vaultId, kind, id),
    'records.search': ({ connectionId, text, ...options }) =>
      browse.search(connectionId, text, options),
  }
}
