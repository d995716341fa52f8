import type { ConnectionSummary } from '../../../../src-main/shared/connection.ts'
import type { VaultDeskBridge } from '../bridge.ts'

/** The saved connections, read again whenever main says they changed. */
export class ConnectionsState {
  list = $state<ConnectionSummary[]>([])
  /** False until the first answer, so that "no connections" is not claimed before it is known. */
  loaded = $state(false)
  readonly #bridge: VaultDeskBridge
  readonly #reportError: (message: string) => void
  #latestRequest = 0

  constructor(bridge: VaultDeskBridge, reportError: (message: string) => void) {
    this.#bridge = bridge
    this.#reportError = reportError
  }

  start(): () => void {
    const stop = this.#bridge.on('connections.changed', () => void this.refresh())
    void this.refresh()
    return stop
  }

  /** Answers can arrive out of order; only the answer to the latest request is kept. */
  async refresh(): Promise<void> {
    const request = ++this.#latestRequest
    const result = await this.#bridge.invoke('connections.list', {})
    if (request !== this.#latestRequest) return
    if (!result.ok) {
      this.#reportError(`Could not read the connections: ${result.error.message}`)
      return
    }
    this.list = result.value
    this.loaded = true
  }
}
