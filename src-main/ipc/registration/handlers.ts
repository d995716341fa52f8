import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { RegistrationChannel } from './channels.ts'

export function registrationHandlers(services: Services): DomainHandlers<RegistrationChannel> {
  return {
    'registration.form': ({ connectionId, vaultId }) =>
      services.registration.form(connectionId, vaultId),
    'registration.queue': (request) => services.registration.queue(request),
  }
}
