/**
 * A second process on a data folder, for request-slots.test.ts. Prints one JSON line when ready.
 * - `burst DATA_DIR BASE_URL TOKEN COUNT shared|alone`: on a line from stdin, sends COUNT requests
 *   at once (no retries) with the data folder's shared limits or limits of its own, prints how
 *   they ended, and exits;
 * - `exports DATA_DIR BASE_URL TOKEN VAULT_ID COUNT shared|alone`: as `burst`, with COUNT
 *   exports of the vault's molecules, each read to its end;
 * - `hold DATA_DIR ORIGIN LEASE_MS [requests|exports]`: takes every request (or running-export)
 *   slot of ORIGIN and keeps them, renewing them, until killed.
 */
import path from 'node:path'
import { LimiterRegistry } from '../../src-main/api/limiter-registry.ts'
import {
  limitersForDataFolder,
  requestSlotsFolderName,
  RequestSlotFolder,
  type SlotUse,
} from '../../src-main/services/request-slots.ts'
import { burst, exportBurst } from './request-burst.ts'

const [mode, dataDir, ...rest] = process.argv.slice(2)

if (mode === 'burst') {
  const [baseUrl, token, count, sharing] = rest
  const limiters = sharing === 'shared' ? limitersForDataFolder(dataDir!) : new LimiterRegistry()
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`)
  process.stdin.once('data', () => {
    void burst({ baseUrl: baseUrl!, token: token!, limiters }, Number(count)).then((outcome) => {
      process.stdout.write(`${JSON.stringify(outcome)}\n`)
      process.exit(0)
    })
  })
} else if (mode === 'exports') {
  const [baseUrl, token, vaultId, count, sharing] = rest
  const limiters = sharing === 'shared' ? limitersForDataFolder(dataDir!) : new LimiterRegistry()
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`)
  process.stdin.once('data', () => {
    void exportBurst(
      { baseUrl: baseUrl!, token: token!, limiters },
      Number(vaultId),
      Number(count),
    ).then((outcome) => {
      process.stdout.write(`${JSON.stringify(outcome)}\n`)
      process.exit(0)
    })
  })
} else if (mode === 'hold') {
  const [origin, leaseMs, use = 'requests'] = rest
  const folder = new RequestSlotFolder(path.join(dataDir!, requestSlotsFolderName), {
    timing: { leaseMs: Number(leaseMs), renewMs: Number(leaseMs) / 5 },
  })
  const slots = folder.slotsFor(origin!, 3, use as SlotUse)
  let held = 0
  while (held < 3 && slots.tryTake()) held++
  process.stdout.write(`${JSON.stringify({ held, pid: process.pid })}\n`)
  process.stdin.resume()
} else {
  process.stderr.write(`unknown mode ${mode}\n`)
  process.exit(2)
}
