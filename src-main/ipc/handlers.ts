import type { Services } from '../services/index.ts'
import type { RequestHandlers } from './dispatcher.ts'

/** Maps every channel of the contract to the service that answers it. */
export function createHandlers(services: Services): RequestHandlers {
  return {
    'app.info': () => services.info(),
    'app.status': () => services.status.current(),
    'connections.list': () => services.connections.list(),
  }
}
