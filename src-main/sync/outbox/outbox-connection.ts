import type { VaultClient } from '../../api/index.ts'
import type { VaultCache } from '../../store/vault-cache.ts'

/** What the outbox needs of a connection: a client that leaves retries to it, and the cache. */
export interface OutboxConnection {
  readonly client: VaultClient
  readonly cache: VaultCache
}
