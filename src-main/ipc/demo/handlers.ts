import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { DemoChannel } from './channels.ts'

export function demoHandlers(services: Services): DomainHandlers<DemoChannel> {
  return {
    'demo.open': () => services.demo.open(),
  }
}
