import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { AppChannel } from './channels.ts'

export function appHandlers(services: Services): DomainHandlers<AppChannel> {
  return {
    'app.info': () => services.info(),
    'app.status': () => services.status.current(),
  }
}
