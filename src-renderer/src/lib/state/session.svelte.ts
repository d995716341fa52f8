import type { AppInfo } from '../../../../src-main/shared/app-info.ts'
import type { VaultDeskBridge } from '../bridge.ts'
import { AppStatusState } from './app-status.svelte.ts'
import { ConnectionsState } from './connections.svelte.ts'
import { Router } from './router.svelte.ts'
import { Toasts } from './toasts.svelte.ts'

/** Everything the frame shows, built once per window around the host's bridge. */
export class Session {
  readonly toasts = new Toasts()
  readonly router = new Router()
  readonly status: AppStatusState
  readonly connections: ConnectionsState
  /** Null until main has said which version and host this is. */
  appInfo = $state<AppInfo | null>(null)
  readonly #bridge: VaultDeskBridge

  constructor(bridge: VaultDeskBridge) {
    this.#bridge = bridge
    const reportError = (message: string) => this.toasts.error(message)
    this.status = new AppStatusState(bridge, reportError)
    this.connections = new ConnectionsState(bridge, reportError)
  }

  start(target: Window): () => void {
    const stops = [this.status.start(), this.connections.start(), this.router.start(target)]
    void this.#bridge.invoke('app.info', {}).then((result) => {
      if (result.ok) this.appInfo = result.value
      else this.toasts.error(`Could not read the app's version: ${result.error.message}`)
    })
    return () => stops.forEach((stop) => stop())
  }
}
