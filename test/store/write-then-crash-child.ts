/**
 * A cache writer stopped midway, as a crash or a power cut would stop it: `node
 * write-then-crash-child.ts CACHE_FILE PAGES` commits PAGES pages of a thousand molecules through
 * the writer, says "committed", and is killed before anything checkpoints the WAL.
 */
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { moleculeRecords } from './fixtures/molecule-records.ts'

const [file, pages] = process.argv.slice(2)
const { cache } = VaultCache.open(file!)
for (let page = 0; page < Number(pages); page++) {
  await cache.writer.applyPage('molecules', 1, moleculeRecords(1000, 1 + page * 1000))
}
process.stdout.write('committed\n')
process.kill(process.pid, 'SIGKILL')
