/**
 * Another process on the data folder of shared-outbox.test.ts (a CLI command beside the app),
 * with an outbox that is only written, never sent. Prints one JSON line when ready, then obeys
 * lines from stdin:
 * - `queue DATA_DIR`: opens the outbox (its pages checked on this thread, as the CLI does); on
 *   `go`, queues collections one after another until `stop N`, then N more; prints the names it
 *   queued (and the errors of any refused), closes and exits;
 * - `open DATA_DIR worker|inline`: on `go`, opens the outbox with its page check where told,
 *   waits until it is ready, queues one collection, prints the repair it reports and every name
 *   it lists; on `close`, closes and exits.
 * - `hold DATA_DIR [writes]`: takes the claim of a repair of the outbox, as a process repairing
 *   it holds it (with `writes`, SQLite's write lock on outbox.db too, as the repair holds it from
 *   the copy until the repaired file is in place); on `release` (or after 60 s, so that a frozen reader is not waited for
 *   forever), lets it go, prints `{released: true}` and exits.
 */
import path from 'node:path'
import readline from 'node:readline'
import Database from 'better-sqlite3'
import { AppError } from '../../../src-main/shared/app-error.ts'
import { EventBus } from '../../../src-main/shared/events.ts'
import { silentLogger } from '../../../src-main/shared/logger.ts'
import { Outbox } from '../../../src-main/sync/outbox/outbox.ts'
import { rebuildClaimFile } from '../../../src-main/sync/outbox/outbox-file.ts'
import { tryTakeLockFile } from '../../../src-main/shared/data-folder-lock.ts'

const [mode, dataDir, modeOption] = process.argv.slice(2)
const target = { connectionId: 'lab', vaultId: Number(process.env.SHARED_OUTBOX_VAULT ?? 1) }

const lines = readline.createInterface({ input: process.stdin })
const waiting: ((line: string) => void)[] = []
const unread: string[] = []
lines.on('line', (line) => {
  const reader = waiting.shift()
  if (reader) reader(line)
  else unread.push(line)
})
const nextLine = () =>
  new Promise<string>((resolve) => {
    const line = unread.shift()
    if (line !== undefined) resolve(line)
    else waiting.push(resolve)
  })
const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)

function open(check: 'worker' | 'inline'): Outbox {
  return new Outbox({
    dataDir: dataDir!,
    connection: () => {
      throw new AppError('not_found', 'This outbox is only written, never sent.')
    },
    connectionName: () => 'Lab vault',
    events: new EventBus(),
    log: silentLogger,
    pageCheck: check,
  })
}

const queue = (outbox: Outbox, name: string) =>
  outbox.queue({ ...target, operation: 'collection.create', payload: { name } })

if (mode === 'queue') {
  const outbox = open('inline')
  await outbox.ready()
  print({ ready: true })
  await nextLine()
  const queued: string[] = []
  const refused: string[] = []
  let stopAfter = null as number | null
  void nextLine().then((line) => (stopAfter = Number(line.split(' ')[1])))
  for (let index = 0; stopAfter === null || stopAfter-- > 0; index++) {
    const name = `Queued by the other process ${String(index).padStart(4, '0')}`
    // A queue that waits for nothing runs in microtasks: stdin is read between two.
    await new Promise((resolve) => setImmediate(resolve))
    try {
      await queue(outbox, name)
      queued.push(name)
    } catch (error) {
      refused.push((error as Error).message)
    }
  }
  await outbox.close()
  print({ queued, refused })
  process.exit(0)
} else if (mode === 'open') {
  print({ ready: true })
  await nextLine()
  const outbox = open(modeOption === 'worker' ? 'worker' : 'inline')
  await outbox.ready()
  const name = `Queued after the repair by ${process.pid}`
  await queue(outbox, name)
  print({
    recovery: outbox.recovery,
    queued: name,
    names: outbox.list().map((item) => item.payload.name),
  })
  await nextLine()
  await outbox.close()
  process.exit(0)
} else if (mode === 'hold') {
  const attempt = tryTakeLockFile(
    rebuildClaimFile(path.join(dataDir!, 'outbox.db')),
    'a repair of the outbox',
  )
  if (!attempt.held) throw new Error('The repair claim is held already.')
  let writes: Database.Database | null = null
  if (modeOption === 'writes') {
    writes = new Database(path.join(dataDir!, 'outbox.db'), { fileMustExist: true })
    writes.exec('BEGIN IMMEDIATE')
  }
  print({ ready: true })
  const timeout = setTimeout(() => lines.emit('line', 'release'), 60_000)
  await nextLine()
  clearTimeout(timeout)
  writes?.exec('ROLLBACK')
  writes?.close()
  attempt.lock.release()
  print({ released: true })
  process.exit(0)
} else {
  process.stderr.write(`unknown mode ${mode}\n`)
  process.exit(2)
}
