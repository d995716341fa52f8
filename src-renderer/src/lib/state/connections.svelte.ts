import type {
  AddedConnection,
  ConnectionStatus,
  ConnectionSummary,
  RemovedConnection,
  Result,
  VaultDeskBridge,
} from '../bridge.ts'

/** A connection whose token the person has to give (again), and why. */
export interface TokenRequest {
  connection: ConnectionSummary
  /**
   * `refused`: the vault no longer accepts it; `forgotten`: it was kept for one session only;
   * `replace`: the person chose to change it.
   */
  reason: 'refused' | 'forgotten' | 'replace'
  /** The vault's refusal, when there was one. */
  message: string | null
}

/**
 * The saved connections and, for each, where its token is kept and whether the vault answers.
 * Read again whenever main says they changed; connectivity and token refusals update in place.
 */
export class ConnectionsState {
  list = $state<ConnectionSummary[]>([])
  statuses = $state<Record<string, ConnectionStatus>>({})
  /** False until the first answer, so that "no connections" is not claimed before it is known. */
  loaded = $state(false)
  /** The refusal messages main sent with `connections.needsToken`, by connection. */
  #refusals = $state<Record<string, string>>({})
  readonly #bridge: VaultDeskBridge
  readonly #reportError: (message: string) => void
  // Followers are called, never rendered: a plain Set is right here.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #listeners = new Set<() => void>()
  #latestRequest = 0

  constructor(bridge: VaultDeskBridge, reportError: (message: string) => void) {
    this.#bridge = bridge
    this.#reportError = reportError
  }

  start(): () => void {
    const stops = [
      this.#bridge.on('connections.changed', () => void this.refresh()),
      this.#bridge.on('connectivity.changed', ({ connectionId, online, lastContactAt }) => {
        const status = this.statuses[connectionId]
        if (status) this.statuses[connectionId] = { ...status, online, lastContactAt }
      }),
      this.#bridge.on('connections.needsToken', ({ connectionId, message }) => {
        this.#refusals[connectionId] = message
        const status = this.statuses[connectionId]
        if (status) this.statuses[connectionId] = { ...status, needsNewToken: true }
        void this.refresh()
      }),
    ]
    void this.refresh()
    return () => stops.forEach((stop) => stop())
  }

  /** Called after every successful read of the list, so that others can follow it. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  byId(connectionId: string | null): ConnectionSummary | null {
    return this.list.find((connection) => connection.id === connectionId) ?? null
  }

  /** Connections that cannot sync until the person gives a token again. */
  get tokenRequests(): TokenRequest[] {
    return this.list.flatMap((connection) => {
      const status = this.statuses[connection.id]
      if (!status || (!status.needsNewToken && status.tokenPlace !== null)) return []
      // A token would not help: this version cannot open the connection's local copy.
      if (status.localCopy) return []
      return [
        status.needsNewToken
          ? { connection, reason: 'refused', message: this.#refusals[connection.id] ?? null }
          : { connection, reason: 'forgotten', message: null },
      ]
    })
  }

  /** Answers can arrive out of order; only the answer to the latest request is kept. */
  async refresh(): Promise<void> {
    const request = ++this.#latestRequest
    const [list, statuses] = await Promise.all([
      this.#bridge.invoke('connections.list', {}),
      this.#bridge.invoke('connections.status', {}),
    ])
    if (request !== this.#latestRequest) return
    if (!list.ok) {
      this.#reportError(`Could not read the connections: ${list.error.message}`)
      return
    }
    if (!statuses.ok)
      this.#reportError(`Could not read the connections' state: ${statuses.error.message}`)
    else {
      this.statuses = Object.fromEntries(
        statuses.value.map((status) => [status.connectionId, status]),
      )
      for (const status of statuses.value) {
        if (!status.needsNewToken) delete this.#refusals[status.connectionId]
      }
    }
    this.list = list.value
    this.loaded = true
    for (const listener of this.#listeners) listener()
  }

  async baseUrls(): Promise<string[]> {
    const result = await this.#bridge.invoke('connections.baseUrls', {})
    return result.ok ? result.value : []
  }

  async add(
    args: { name: string; baseUrl: string; token: string },
    sessionOnly: boolean,
  ): Promise<Result<AddedConnection>> {
    return this.#changing(this.#bridge.invoke('connections.add', { ...args, sessionOnly }))
  }

  async updateToken(
    connectionId: string,
    token: string,
    sessionOnly: boolean,
  ): Promise<Result<ConnectionStatus>> {
    return this.#changing(
      this.#bridge.invoke('connections.updateToken', { connectionId, token, sessionOnly }),
    )
  }

  async remove(connectionId: string, deleteCache: boolean): Promise<Result<RemovedConnection>> {
    return this.#changing(this.#bridge.invoke('connections.remove', { connectionId, deleteCache }))
  }

  async openDemo(): Promise<Result<AddedConnection>> {
    return this.#changing(this.#bridge.invoke('demo.open', {}))
  }

  /** Reads the list again after a change succeeded, without waiting for main's event. */
  async #changing<T>(request: Promise<Result<T>>): Promise<Result<T>> {
    const result = await request
    if (result.ok) await this.refresh()
    return result
  }
}
