import { ApiError } from '../../api/index.ts'
import { cachedVaults } from '../../services/browse-service.ts'
import type { ConnectionRuntime } from '../../services/connection-runtime.ts'
import type { Command } from '../command.ts'
import { chooseConnection, stringOption } from '../connection-choice.ts'
import { kindDeclarations, type RecordKindName } from '../../../src-common/records/record-kinds.ts'
import { readKindCursor } from '../../sync/kind-cursor.ts'
import { savedSetAside, type SetAsideReport } from '../../sync/set-aside.ts'

interface ConnectionReport {
  id: string
  name: string
  baseUrl: string
  /** Where its token is kept: keychain, session, environment (headless), or null when unknown. */
  tokenPlace: string | null
  online: boolean
  /** Why it is offline, when it is. */
  problem: string | null
  lastSync: string | null
  vaults: {
    id: number
    name: string | null
    counts: Record<string, number>
    lastSync: string | null
    /** Records the last syncs could not read or store, by kind, and why. */
    setAside: SetAsideReport[]
    /** Kinds the server says are not available here (403, 404, administrators only). */
    notAvailable: RecordKindName[]
  }[]
}

/** What `vault-desk status --json` prints. */
export interface StatusReport {
  connections: ConnectionReport[]
  /** Work queued offline and not yet sent. */
  outboxPending: number
}

/** Every kind sync pulls (dose-response series come with their calculations). */
const pulledKinds: RecordKindName[] = [
  ...kindDeclarations.flatMap((kind) => (kind.pull ? [kind.name] : [])),
  'dose_response_series',
]

/** The probe of a status check waits this long for an answer, once. */
const probeTimeoutMs = 5000

export const statusCommand: Command = {
  name: 'status',
  summary:
    'Show connections, their vaults and cached records, last sync and whether each is online.',
  usage: 'vault-desk status [--connection NAME | --base-url URL --token-env VAR] [--json]',
  options: {},
  async run(context) {
    const services = context.services()
    const chosen =
      stringOption(context.values.connection) !== undefined ||
      stringOption(context.values['base-url']) !== undefined
        ? [chooseConnection(context)]
        : services.connections.list().map((connection) => ({
            runtime: services.runtimes.get(connection.id),
            name: connection.name,
            saved: true,
          }))
    const connections: ConnectionReport[] = []
    for (const { runtime, name, saved } of chosen) {
      const record = saved ? services.connections.get(runtime.id) : null
      const token = await runtime.token().catch(() => null)
      const vaults = cachedVaults(runtime.cache).map((vault) => ({
        id: vault.id,
        name: vault.name,
        counts: vault.counts,
        lastSync: vault.lastSyncAt,
        setAside: savedSetAside(runtime.cache, vault.id, pulledKinds),
        notAvailable: pulledKinds.filter(
          (kind) => readKindCursor(runtime.cache.cursor(kind, vault.id)).deniedAt !== undefined,
        ),
      }))
      const reachability =
        token === null ? { online: false, problem: 'no token is known' } : await probe(runtime)
      connections.push({
        id: runtime.id,
        name,
        baseUrl: runtime.baseUrl,
        tokenPlace: token === null ? null : (record?.tokenStorage ?? 'environment'),
        ...reachability,
        lastSync: latest(vaults.map((vault) => vault.lastSync)),
        vaults,
      })
    }
    return {
      document: {
        connections,
        outboxPending: services.status.current().outboxPending,
      } satisfies StatusReport,
      human: (document) => {
        const report = document as StatusReport
        if (report.connections.length === 0) return 'No connection is saved.\n'
        const blocks = report.connections.map((connection) => {
          const state = connection.online ? 'online' : `offline (${connection.problem})`
          const vaultLines = connection.vaults.flatMap((vault) => {
            const total = Object.values(vault.counts).reduce((sum, count) => sum + count, 0)
            return [
              `    ${vault.id}  ${vault.name ?? ''}: ${total} records, last sync ${vault.lastSync ?? 'never'}`,
              ...vault.setAside.map(
                (report) =>
                  `      ${report.kind}: ${report.count} set aside (${report.reasons.join('; ')})`,
              ),
              ...(vault.notAvailable.length > 0
                ? [`      not available here: ${vault.notAvailable.join(', ')}`]
                : []),
            ]
          })
          return [`${connection.name} (${connection.baseUrl}): ${state}`, ...vaultLines].join('\n')
        })
        return `${blocks.join('\n')}\noutbox: ${report.outboxPending} pending\n`
      },
    }
  },
}

/** Online when GET /vaults answers at all (a refused token is an answer: the server is up). */
async function probe(
  runtime: ConnectionRuntime,
): Promise<{ online: boolean; problem: string | null }> {
  try {
    await runtime.client.vaults.list({ timeoutMs: probeTimeoutMs })
    return { online: true, problem: null }
  } catch (error) {
    if (error instanceof ApiError && error.kind !== 'network')
      return { online: true, problem: null }
    return { online: false, problem: error instanceof Error ? error.message : String(error) }
  }
}

function latest(times: (string | null)[]): string | null {
  return times.reduce<string | null>(
    (best, time) => (time !== null && (best === null || time > best) ? time : best),
    null,
  )
}
