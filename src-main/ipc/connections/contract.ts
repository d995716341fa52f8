import { z } from 'zod'
import type { ConnectionSummary } from '../../shared/connection.ts'
import type { ConnectionStatus, TokenPlace } from '../../shared/connection-status.ts'
import type { ConnectionChannel } from './channels.ts'

const connectionId = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'not a connection id')
/** The token crosses IPC only inward, in these arguments; no answer ever carries it back. */
const token = z.string().trim().min(1, 'the API token is empty').max(4096)

export const connectionSchemas = {
  'connections.list': z.object({}).strict(),
  'connections.status': z.object({}).strict(),
  'connections.baseUrls': z.object({}).strict(),
  'connections.add': z
    .object({
      name: z.string().trim().min(1, 'the name is empty').max(100),
      baseUrl: z.string().trim().min(1, 'the base URL is empty').max(2000),
      token,
      /**
       * Keep the token in memory for this session only: the choice offered after the keychain
       * answered `keychain_unavailable`.
       */
      sessionOnly: z.boolean().default(false),
    })
    .strict(),
  'connections.updateToken': z
    .object({ connectionId, token, sessionOnly: z.boolean().default(false) })
    .strict(),
  'connections.remove': z
    .object({
      connectionId,
      /** The person confirmed that the cached data of this connection may be deleted too. */
      deleteCache: z.boolean(),
    })
    .strict(),
} satisfies Record<ConnectionChannel, z.ZodType>

/** A connection just added: the vaults its token reaches (from GET /vaults). */
export interface AddedConnection {
  connection: ConnectionSummary
  tokenPlace: TokenPlace
  vaults: { id: number; name: string | null }[]
}

export interface RemovedConnection {
  connectionId: string
  /** Files of its cache that were deleted (none unless `deleteCache`). */
  deletedFiles: string[]
}

export interface ConnectionResults {
  /** Saved connections by name. */
  'connections.list': ConnectionSummary[]
  /**
   * Token place, token refusal and connectivity of every saved connection, and `localCopy` when
   * this build refuses its cache (a newer Vault Desk wrote it): then it is not opened or synced.
   */
  'connections.status': ConnectionStatus[]
  /** Base URLs to offer when adding a connection: the usual hosts, then those already used. */
  'connections.baseUrls': string[]
  /**
   * Validates the URL and token with GET /vaults, keeps the token (keychain, or the session when
   * `sessionOnly`), saves the connection and starts its first sync. Errors: `invalid_argument`
   * (URL), `conflict` (name in use), `authentication` (token refused), `offline` (unreachable),
   * `keychain_unavailable` (its message explains; ask again with `sessionOnly: true`).
   */
  'connections.add': AddedConnection
  /** Checks the new token with GET /vaults, keeps it, and resumes sync. Same errors as add. */
  'connections.updateToken': ConnectionStatus
  /** Stops its sync, forgets its token, removes it, and deletes its cache when confirmed. */
  'connections.remove': RemovedConnection
}
