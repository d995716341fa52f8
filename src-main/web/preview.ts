/**
 * `npm run preview:web`: the real services and the built renderer in any browser, through the
 * harness. Data lives in VAULT_DESK_DATA_DIR (or the per-OS default); the port is any free one
 * unless `--port` or VAULT_DESK_PREVIEW_PORT picks it.
 *
 * The address it prints carries the run's token and is the only way in, so it goes to this
 * process's own output and nowhere else: not to the log, and not to a browser started from here
 * (its command line would show the token to every account on the machine).
 *
 * The demo vault is not started here on purpose: it belongs to the services (which will run the
 * simulator from src-sim when the page asks for it), so that every host offers it the same way.
 */
import path from 'node:path'
import { createDispatcher } from '../ipc/dispatcher.ts'
import { createHandlers } from '../ipc/handlers.ts'
import { createServices } from '../services/index.ts'
import { AppError } from '../shared/app-error.ts'
import { startHarness } from './harness.ts'
import { parsePreviewOptions, previewUsage } from './preview-options.ts'

async function main(): Promise<void> {
  const options = parsePreviewOptions(process.argv.slice(2), process.env)
  if (options.help) {
    console.log(previewUsage)
    return
  }
  const services = createServices({ host: 'web' })
  const harness = await startHarness({
    dispatch: createDispatcher(createHandlers(services), services.log),
    events: services.events,
    rendererDir: path.resolve(import.meta.dirname, '../../out/renderer'),
    port: options.port,
    log: services.log.child({ component: 'harness' }),
  }).catch(async (error: unknown) => {
    await services.close()
    throw error
  })

  console.log('Vault Desk is running. Open this address in your browser (it is for you only):')
  console.log(`  ${harness.url}`)
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
  process.exit(error instanceof AppError && error.code === 'invalid_argument' ? 2 : 1)
})
