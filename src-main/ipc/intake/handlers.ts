import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { IntakeChannel } from './channels.ts'

export function intakeHandlers(services: Services): DomainHandlers<IntakeChannel> {
  return {
    'intake.check': ({ connectionId, vaultId, path, protocolId, mappingTemplate }) =>
      services.importChecker.check({
        connectionId,
        vaultId,
        filePath: path,
        protocolId,
        mappingTemplate,
      }),
  }
}
