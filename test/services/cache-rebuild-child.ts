/**
 * A CLI-like process on a data folder, for notices.test.ts: opens the headless connection of
 * BASE_URL (its cache, whose header the test overwrote, is set aside and rebuilt), prints the
 * notices it then lists as one JSON line, and exits.
 */
import { createServices } from '../../src-main/services/index.ts'

const [dataDir, baseUrl, token] = process.argv.slice(2)
const services = createServices({ host: 'cli', dataDir: dataDir!, chemWorkers: 1 })
services.runtimes.headless(baseUrl!, token!)
process.stdout.write(`${JSON.stringify(services.notices.list())}\n`)
await services.close()
process.exit(0)
