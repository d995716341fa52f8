import { AppError, type ErrorCode } from '../../shared/app-error.ts'
import type { SyncRunResult } from '../../services/sync-service.ts'
import type { FlushResult } from '../../sync/outbox/outbox.ts'
import { cachedVaults } from '../../services/browse-service.ts'
import type { Command } from '../command.ts'
import { chooseConnection } from '../connection-choice.ts'
import { exitCodes } from '../exit-codes.ts'
import { vaultIdOption } from '../vault-option.ts'

/** What `vault-desk sync --json` prints. */
export interface SyncSummary {
  vaults: {
    id: number
    name: string | null
    counts: Record<string, number>
    lastSync: string | null
  }[]
  requests: number
  durationMs: number
  /** What the outbox sent of this connection's queue after the pull, and what is left. */
  outbox: FlushResult
}

function exitErrorCode(result: SyncRunResult): ErrorCode {
  if (result.outcome === 'offline') return 'offline'
  if (result.outcome === 'needs_token') return 'authentication'
  if (result.outcome === 'cancelled') return 'cancelled'
  return result.error?.code ?? 'internal'
}

/** Progress lines of one kind are written at most this often (each kind gets its first). */
const progressEveryMs = 500

export const syncCommand: Command = {
  name: 'sync',
  summary:
    'Pull what changed on the server into the local cache (everything, the first time), then send what the outbox holds for it.',
  usage:
    'vault-desk sync [--connection NAME | --base-url URL --token-env VAR] [--vault ID] [--json]',
  options: { vault: { type: 'string' } },
  syncsOrSends: () => true,
  async run(context) {
    const vaultId = vaultIdOption(context.values.vault)
    const services = context.services()
    const { runtime, name } = chooseConnection(context)
    let lastLine = { kind: '', at: 0 }
    const off = services.events.on('sync.progress', (progress) => {
      if (progress.connectionId !== runtime.id) return
      const kind = `${progress.vaultId} ${progress.kind}`
      if (kind === lastLine.kind && Date.now() - lastLine.at < progressEveryMs) return
      lastLine = { kind, at: Date.now() }
      const total = progress.total === null ? '' : `/${progress.total}`
      context.io.stderr(`vault ${progress.vaultId} ${progress.kind}: ${progress.done}${total}\n`)
    })
    context.io.stderr(`Syncing ${name}…\n`)
    const result = await services.sync
      .run(runtime, vaultId === undefined ? {} : { vaultIds: [vaultId] })
      .finally(off)
    if (
      result.outcome !== 'completed' &&
      (result.outcome !== 'failed' || result.vaults.length === 0)
    ) {
      // Nothing more can be pulled: the error decides the exit code (offline 3, token or keychain 4).
      throw new AppError(
        exitErrorCode(result),
        result.error?.message ?? `The sync ended: ${result.outcome}.`,
      )
    }
    if (vaultId !== undefined && !result.vaults.some((vault) => vault.vaultId === vaultId)) {
      throw new AppError('not_found', `The token of ${name} reaches no vault ${vaultId}.`)
    }
    // Then what waits in the outbox for this connection, unless the running app sends it.
    services.outbox.start()
    const outbox = await services.outbox.flush(runtime.id)
    const pulled = new Set(result.vaults.map((vault) => vault.vaultId))
    const summary: SyncSummary = {
      vaults: cachedVaults(runtime.cache)
        .filter((vault) => pulled.has(vault.id))
        .map((vault) => ({
          id: vault.id,
          name: vault.name,
          counts: vault.counts,
          lastSync: vault.lastSyncAt,
        })),
      requests: result.requests,
      durationMs: result.durationMs,
      outbox,
    }
    for (const vault of result.vaults) {
      if (vault.unreachable)
        context.io.stderr(`vault ${vault.vaultId} skipped: ${vault.unreachable}\n`)
    }
    if (result.error) context.io.stderr(`${result.error.message}\n`)
    const stopped = outbox.needsAttention + outbox.conflict + outbox.uncertain
    if (stopped > 0) {
      context.io.stderr(
        `${stopped} outbox ${stopped === 1 ? 'item waits' : 'items wait'} for you: see 'vault-desk outbox list'.\n`,
      )
    }
    return {
      document: summary,
      exitCode: result.outcome === 'completed' ? exitCodes.ok : exitCodes.failure,
      human: (document) => {
        const { vaults, requests, durationMs, outbox: sent } = document as SyncSummary
        const lines = vaults.map((vault) => {
          const total = Object.values(vault.counts).reduce((sum, count) => sum + count, 0)
          return `  ${vault.id}  ${vault.name ?? ''}: ${total} records, last sync ${vault.lastSync ?? 'never'}`
        })
        const outboxLine = sent.sentHere
          ? `Outbox: ${sent.sent} sent; ${sent.queued} still queued, ${sent.needsAttention} need attention, ${sent.conflict} in conflict, ${sent.uncertain} uncertain.`
          : 'Outbox: Vault Desk is running and sends it.'
        return `${lines.join('\n')}\n${requests} requests in ${(durationMs / 1000).toFixed(1)} s\n${outboxLine}\n`
      },
    }
  },
}
