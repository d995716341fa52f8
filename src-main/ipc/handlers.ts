import type { Services } from '../services/index.ts'
import { appHandlers } from './app/handlers.ts'
import { connectionHandlers } from './connections/handlers.ts'
import type { RequestHandlers } from './dispatcher.ts'

/** Maps every channel of the contract to the service that answers it, domain by domain. */
export function createHandlers(services: Services): RequestHandlers {
  return {
    ...appHandlers(services),
    ...connectionHandlers(services),
  }
}
