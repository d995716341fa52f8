/**
 * A pull run in its own process, so that a test can kill it between pages as a crash or a power
 * cut would: `node pull-child.ts BASE_URL CACHE_FILE VAULT_ID` with the token in VAULT_TOKEN.
 * Prints one JSON line per committed page.
 */
import { LimiterRegistry, VaultClient } from '../../src-main/api/index.ts'
import { silentLogger } from '../../src-main/shared/logger.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { pullConnection } from '../../src-main/sync/connection-pull.ts'

const [baseUrl, file, vaultId] = process.argv.slice(2)
const client = new VaultClient({
  baseUrl: baseUrl!,
  token: process.env.VAULT_TOKEN!,
  limiters: new LimiterRegistry(),
})
const { cache } = VaultCache.open(file!)
await pullConnection({
  client,
  cache,
  log: silentLogger,
  signal: new AbortController().signal,
  vaultIds: [Number(vaultId)],
  exportThreshold: Number.POSITIVE_INFINITY,
  observer: {
    progress: (vault, kind, done, total) =>
      process.stdout.write(`${JSON.stringify({ vault, kind, done, total })}\n`),
    changed: () => {},
  },
})
process.stdout.write(`${JSON.stringify({ finished: true })}\n`)
