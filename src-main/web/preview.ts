/**
 * `npm run preview:web`: the real services and the built renderer in any browser, through the
 * harness. Data lives in VAULT_DESK_DATA_DIR (or the per-OS default); PORT picks the port.
 *
 * The demo vault is not started here on purpose: it belongs to the services (which will run the
 * simulator from src-sim when the page asks for it), so that every host offers it the same way.
 */
import path from 'node:path'
import { createDispatcher } from '../ipc/dispatcher.ts'
import { createHandlers } from '../ipc/handlers.ts'
import { createServices } from '../services/index.ts'
import { startHarness } from './harness.ts'

const defaultPort = 5317

function portFromEnvironment(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return defaultPort
  const port = Number(value)
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`PORT must be a whole number from 1 to 65535, not "${value}".`)
  }
  return port
}

async function main(): Promise<void> {
  const port = portFromEnvironment(process.env.PORT)
  const services = createServices({ host: 'web' })
  const harness = await startHarness({
    dispatch: createDispatcher(createHandlers(services), services.log),
    events: services.events,
    rendererDir: path.resolve(import.meta.dirname, '../../out/renderer'),
    port,
    log: services.log.child({ component: 'harness' }),
  }).catch(async (error: unknown) => {
    await services.close()
    throw error
  })

  console.log(`Vault Desk is running at ${harness.url}`)
  console.log(`Data: ${services.config.dataDir}`)
  console.log('Press Ctrl+C to stop.')

  const stop = async () => {
    await harness.close()
    await services.close()
    process.exit(0)
  }
  process.once('SIGINT', () => void stop())
  process.once('SIGTERM', () => void stop())
}

main().catch((error: unknown) => {
  console.error(`preview:web failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})
