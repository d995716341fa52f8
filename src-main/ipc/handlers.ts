import type { Services } from '../services/index.ts'
import { appHandlers } from './app/handlers.ts'
import { attachmentHandlers } from './attachments/handlers.ts'
import { chemHandlers } from './chem/handlers.ts'
import { connectionHandlers } from './connections/handlers.ts'
import { curvesHandlers } from './curves/handlers.ts'
import { demoHandlers } from './demo/handlers.ts'
import { exportHandlers } from './exports/handlers.ts'
import { intakeHandlers } from './intake/handlers.ts'
import { outboxHandlers } from './outbox/handlers.ts'
import { platesHandlers } from './plates/handlers.ts'
import { recordHandlers } from './records/handlers.ts'
import { registrationHandlers } from './registration/handlers.ts'
import { resultsHandlers } from './results/handlers.ts'
import { searchesHandlers } from './searches/handlers.ts'
import { syncHandlers } from './sync/handlers.ts'
import { vaultHandlers } from './vaults/handlers.ts'
import { watchHandlers } from './watch/handlers.ts'
import type { RequestHandlers } from './dispatcher.ts'

/** Maps every channel of the contract to the service that answers it, domain by domain. */
export function createHandlers(services: Services): RequestHandlers {
  return {
    ...appHandlers(services),
    ...connectionHandlers(services),
    ...demoHandlers(services),
    ...vaultHandlers(services),
    ...recordHandlers(services),
    ...resultsHandlers(services),
    ...curvesHandlers(services),
    ...platesHandlers(services),
    ...syncHandlers(services),
    ...outboxHandlers(services),
    ...registrationHandlers(services),
    ...chemHandlers(services),
    ...exportHandlers(services),
    ...intakeHandlers(services),
    ...searchesHandlers(services),
    ...watchHandlers(services),
    ...attachmentHandlers(services),
  }
}
