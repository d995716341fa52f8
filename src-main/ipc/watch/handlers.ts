import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { WatchChannel } from './channels.ts'

export function watchHandlers(services: Services): DomainHandlers<WatchChannel> {
  return {
    'watch.list': () => services.watch.list(),
    'watch.add': ({ connectionId, vaultId, folder, settings, enabled }) =>
      services.watch.add({ connectionId, vaultId, folder }, settings, enabled ?? true),
    'watch.update': ({ id, folder, settings, enabled }) =>
      services.watch.update(id, {
        ...(folder !== undefined ? { folder } : {}),
        ...(settings !== undefined ? { settings } : {}),
        ...(enabled !== undefined ? { enabled } : {}),
      }),
    'watch.remove': ({ id }) => services.watch.remove(id),
    'watch.files': ({ folderId, held, limit }) =>
      services.watch.takenFiles({
        ...(folderId !== undefined ? { folderId } : {}),
        ...(held !== undefined ? { held } : {}),
        ...(limit !== undefined ? { limit } : {}),
      }),
    'watch.decide': ({ takenFileId, decision }) => services.watch.decide(takenFileId, decision),
  }
}
