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
 */
import readline from 'node:readline'
import { AppError } from '../../../src-main/shared/app-error.ts'
import { EventBus } from '../../../src-main/shared/events.ts'
import { silentLogger } from '../../../src-main/shared/logger.ts'
import { Outbox } from '../../../src-main/sync/outbox/outbox.ts'

const [mode, dataDir, pageCheck] = process.argv.slice(2)
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
  const outbox = open(pageCheck === 'worker' ? 'worker' : 'inline')
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
} else {
  process.stderr.write(`unknown mode ${mode}\n`)
  process.exit(2)
}
