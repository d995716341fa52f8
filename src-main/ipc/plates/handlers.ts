import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { PlatesChannel } from './channels.ts'

export function platesHandlers(services: Services): DomainHandlers<PlatesChannel> {
  return {
    'plates.quality': async ({ connectionId, vaultId, plateId, ...question }) => {
      // A plate's page asks for its record and its wells together: the record's answer, ready
      // first, goes out before this longer read holds the thread (a host may hand both requests
      // over in one turn), so that the page mounts while the wells are read.
      await new Promise((resolve) => setImmediate(resolve))
      return services.plates.plate(connectionId, vaultId, plateId, question)
    },
    'plates.ofRun': ({ connectionId, vaultId, runId, ...question }) =>
      services.plates.run(connectionId, vaultId, runId, question),
    'plates.resolveWells': ({ connectionId, vaultId, references }) =>
      services.plates.resolveWells(connectionId, vaultId, references),
    'plates.sampleForm': ({ connectionId, vaultId, locationId }) =>
      services.plates.sampleForm(connectionId, vaultId, locationId),
  }
}
