import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { ConnectionChannel } from './channels.ts'

export function connectionHandlers(services: Services): DomainHandlers<ConnectionChannel> {
  return {
    'connections.list': () => services.connections.list(),
  }
}
