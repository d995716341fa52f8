import type { AppStatus } from '../bridge.ts'
import type { VaultDeskBridge } from '../bridge.ts'

/**
 * The top bar's status (online, syncing, last sync, outbox count), as main pushes it. `current`
 * is null until main has answered once, so the UI never shows a guess as a fact.
 */
export class AppStatusState {
  current = $state<AppStatus | null>(null)
  readonly #bridge: VaultDeskBridge
  readonly #reportError: (message: string) => void

  constructor(bridge: VaultDeskBridge, reportError: (message: string) => void) {
    this.#bridge = bridge
    this.#reportError = reportError
  }

  /** Listens first and then asks, so that no change is missed; a pushed change beats the answer. */
  start(): () => void {
    let pushed = false
    const stop = this.#bridge.on('status.changed', (status) => {
      pushed = true
      this.current = status
    })
    void this.#bridge.invoke('app.status', {}).then((result) => {
      if (!result.ok) this.#reportError(`Could not read the sync status: ${result.error.message}`)
      else if (!pushed) this.current = result.value
    })
    return stop
  }
}
