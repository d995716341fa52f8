import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { SyncChannel } from './channels.ts'

export function syncHandlers(services: Services): DomainHandlers<SyncChannel> {
  const sync = services.sync
  return {
    'sync.start': ({ connectionId }) => ({ connectionIds: sync.startNow(connectionId) }),
    'sync.cancel': ({ connectionId }) => ({ connectionIds: sync.cancel(connectionId) }),
    'sync.state': () => sync.states(),
    'sync.settings': () => sync.settings(),
    'sync.configure': (settings) => sync.configure(settings),
  }
}
