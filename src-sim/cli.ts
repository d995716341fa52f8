/**
 * `npm run vault-sim -- --port 8787 [--download-port N] [--db FILE] [--seed demo|empty|N]
 *   [--faults JSON]` (--faults takes the FaultSettings of src-sim/core/faults.ts, e.g.
 * '{"latencyMs": 200, "serverErrorRate": 0.05}').
 * Starts the simulator on 127.0.0.1, prints one JSON line on stdout when ready
 * ({baseUrl, downloadBaseUrl, users, vaults}) and logs requests on stderr.
 */
import { parseArgs } from 'node:util'
import { startVaultSim } from './index.ts'
import type { SeedOption } from './core/seed.ts'
import type { FaultSettings } from './core/faults.ts'

function fail(message: string): never {
  process.stderr.write(`vault-sim: ${message}\n`)
  process.stderr.write(
    'usage: vault-sim --port PORT [--download-port PORT] [--db FILE] [--seed demo|empty|N] [--faults JSON]\n',
  )
  process.exit(2)
}

function readPort(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    fail(`--${name} must be a port number (0-65535), got '${value}'`)
  return port
}

function readFaults(value: string | undefined): FaultSettings {
  if (value === undefined) return {}
  let settings: unknown
  try {
    settings = JSON.parse(value)
  } catch (error) {
    return fail(`--faults must be a JSON object: ${(error as Error).message}`)
  }
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings))
    return fail('--faults must be a JSON object')
  return settings as FaultSettings
}

function readSeed(value: string | undefined): SeedOption {
  if (value === undefined || value === 'empty' || value === 'demo') return value ?? 'empty'
  if (/^\d+$/.test(value)) return Number(value)
  return fail(`--seed must be demo, empty or a number of molecules, got '${value}'`)
}

let parsed
try {
  parsed = parseArgs({
    options: {
      port: { type: 'string' },
      'download-port': { type: 'string' },
      db: { type: 'string' },
      seed: { type: 'string' },
      faults: { type: 'string' },
    },
    strict: true,
  })
} catch (error) {
  fail((error as Error).message)
}

const { values } = parsed
try {
  const sim = await startVaultSim({
    port: readPort(values.port, 'port', 8787),
    downloadPort: readPort(values['download-port'], 'download-port', 0),
    ...(values.db === undefined ? {} : { db: values.db }),
    seed: readSeed(values.seed),
    faults: readFaults(values.faults),
    log: (line) => process.stderr.write(`${line}\n`),
  })
  process.stdout.write(
    `${JSON.stringify({
      baseUrl: sim.baseUrl,
      downloadBaseUrl: sim.downloadBaseUrl,
      users: sim.users.map(({ name, token, tokens, email, role, vaults }) => ({
        name,
        email,
        token,
        tokens,
        role,
        vaults,
      })),
      vaults: sim.vaults,
    })}\n`,
  )
  const shutdown = () => {
    void sim.stop().then(() => process.exit(0))
  }
  process.on('SIGINT', shutdown)
  process.on('SIGTERM', shutdown)
} catch (error) {
  fail((error as Error).message)
}
