/**
 * A process that tries to take a data folder's lock, prints what happened as one JSON line, and
 * (when it holds the lock) keeps it until its stdin closes, then releases it and exits.
 */
import { tryTakeDataFolderLock } from '../../src-main/shared/data-folder-lock.ts'

const [dataDir, holder] = process.argv.slice(2)
const attempt = tryTakeDataFolderLock(dataDir!, holder ?? 'a test holder')
process.stdout.write(
  `${JSON.stringify(attempt.held ? { held: true, pid: process.pid } : { held: false, holder: attempt.holder })}\n`,
)
if (attempt.held) {
  process.stdin.on('end', () => {
    attempt.lock.release()
    process.exit(0)
  })
  process.stdin.resume()
}
