import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { CurvesChannel } from './channels.ts'

export function curvesHandlers(services: Services): DomainHandlers<CurvesChannel> {
  return {
    'curves.ofProtocol': ({ connectionId, vaultId, protocolId, ...question }) =>
      services.curves.ofProtocol(connectionId, vaultId, { protocol: protocolId, ...question }),
    'curves.ofBatch': ({ connectionId, vaultId, batchId, protocolId }) =>
      services.curves.ofBatch(connectionId, vaultId, batchId, protocolId),
    'curves.ofResults': ({ connectionId, vaultId, ...question }) =>
      services.curves.ofResults(connectionId, vaultId, question),
  }
}
