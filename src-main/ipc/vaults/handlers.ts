import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { VaultChannel } from './channels.ts'

export function vaultHandlers(services: Services): DomainHandlers<VaultChannel> {
  return {
    'vaults.list': ({ connectionId }) => services.browse.vaults(connectionId),
  }
}
