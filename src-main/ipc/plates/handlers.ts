import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { PlatesChannel } from './channels.ts'

export function platesHandlers(services: Services): DomainHandlers<PlatesChannel> {
  return {
    'plates.quality': ({ connectionId, vaultId, plateId, ...question }) =>
      services.plates.plate(connectionId, vaultId, plateId, question),
    'plates.ofRun': ({ connectionId, vaultId, runId, ...question }) =>
      services.plates.run(connectionId, vaultId, runId, question),
    'plates.resolveWells': ({ connectionId, vaultId, references }) =>
      services.plates.resolveWells(connectionId, vaultId, references),
    'plates.sampleForm': ({ connectionId, vaultId, locationId }) =>
      services.plates.sampleForm(connectionId, vaultId, locationId),
  }
}
