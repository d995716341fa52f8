import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { ConnectionChannel } from './channels.ts'

export function connectionHandlers(services: Services): DomainHandlers<ConnectionChannel> {
  const connections = services.connections
  return {
    'connections.list': () => connections.list(),
    'connections.status': () => connections.statuses(),
    'connections.baseUrls': () => connections.baseUrls(),
    'connections.add': (args) => connections.add(args),
    'connections.updateToken': (args) => connections.updateToken(args),
    'connections.remove': (args) => connections.remove(args.connectionId, args),
  }
}
