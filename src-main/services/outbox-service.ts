import { VaultClient } from '../api/index.ts'
import { AppError } from '../shared/app-error.ts'
import type { EventBus } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import type { Redactor } from '../shared/redactor.ts'
import { Outbox, type OutboxOptions } from '../sync/outbox/outbox.ts'
import type { OutboxConnection } from '../sync/outbox/outbox-connection.ts'
import type { ConnectionRuntime, ClientTuning } from './connection-runtime.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'
import type { StatusService } from './status-service.ts'

/** Outbox settings the composition root may tune (tests retry and poll faster). */
export type OutboxTuning = Pick<
  OutboxOptions,
  'concurrency' | 'retry' | 'pollMs' | 'importPollMs' | 'progressIntervalMs'
>

export interface OutboxServiceOptions {
  dataDir: string
  runtimes: ConnectionRuntimes
  events: EventBus
  status: StatusService
  log: Logger
  redactor: Redactor
  client: ClientTuning
  tuning: OutboxTuning
  /** Hosts that stay up check the outbox's pages in a worker (`OutboxOptions.pageCheck`). */
  pageCheck: NonNullable<OutboxOptions['pageCheck']>
  /** Where the CLI says that it waits for another process's repair of the outbox. */
  onRepairWait?: OutboxOptions['onRepairWait']
}

/**
 * Builds the outbox over the connections' runtimes. Each connection gets a client of the
 * outbox's own that never retries (the outbox decides, and an append sent twice would append
 * twice), sharing the runtime's token, limits (one registry per process), cache and connectivity.
 */
export function createOutbox(options: OutboxServiceOptions): Outbox {
  const { runtimes, events, status, log } = options
  const connections = new WeakMap<ConnectionRuntime, OutboxConnection>()
  const runtimeOf = (connectionId: string): ConnectionRuntime =>
    runtimes.opened().find((runtime) => runtime.id === connectionId) ?? runtimes.get(connectionId)
  const outbox = new Outbox({
    dataDir: options.dataDir,
    connection(connectionId) {
      const runtime = runtimeOf(connectionId)
      let connection = connections.get(runtime)
      if (!connection) {
        const client = new VaultClient({
          ...options.client,
          retry: { ...options.client.retry, attempts: 1 },
          baseUrl: runtime.baseUrl,
          token: async () => {
            const token = await runtime.token()
            if (token === null) {
              throw new AppError('authentication', `No API token is known for "${runtime.name}".`)
            }
            return token
          },
          logger: log.child({ connectionId }),
          redactor: options.redactor,
        })
        client.onCall((call) => runtime.monitor.observe(call))
        // The connection's status (and so the window's "enter a new token" banner) follows the
        // runtime's own client: let it see the refusal too, with one look at the vaults.
        client.onNeedsNewToken(() => {
          if (!runtime.client.needsNewToken) {
            runtime.client.vaults.list({ priority: 'background' }).catch(() => {})
          }
        })
        connection = {
          client,
          get cache() {
            return runtime.cache
          },
        }
        connections.set(runtime, connection)
      }
      return connection
    },
    connectionName: (connectionId) => {
      try {
        return runtimeOf(connectionId).name
      } catch {
        return connectionId
      }
    },
    events,
    log,
    onPendingCount: (count) => status.update({ outboxPending: count }),
    pageCheck: options.pageCheck,
    ...(options.onRepairWait ? { onRepairWait: options.onRepairWait } : {}),
    ...options.tuning,
  })
  // A new token (or any change of the connection) lets a queue paused by a refused token move.
  events.on('connections.changed', ({ connectionIds }) => {
    for (const connectionId of connectionIds) outbox.resume(connectionId)
  })
  return outbox
}
