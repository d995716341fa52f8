/**
 * What the outbox's durability costs (issue 26):
 * - opening an outbox with a long history: the check of every page at start (`openOutbox`, which
 *   finds a damaged file before it stops the app) beside opening the same file without it;
 * - what that check costs the app's main thread now that it runs in a worker (`pageCheck:
 *   'worker'`): the longest the event loop stood still from the outbox's construction until it
 *   was `ready()`, beside the whole open with the check on the main thread (the CLI's way);
 * - whether that check can be bounded: `quick_check(1)` (at most one problem reported) beside the
 *   full `quick_check`. N bounds the problems reported, not the pages read, so the ratio stays
 *   near 1 and only moving the check off the main thread shortens the start (issue 26);
 * - queueing a file: the copy made durable and recorded (SHA-256 read back, file and folder
 *   fsynced: `AttachmentFolder.copy`) beside a plain copy of the same file.
 *
 * Environment: BENCH_OUTBOX_ITEMS (default 50,000 sent items), BENCH_COPY_MIB (default 256).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { AppError } from '../src-main/shared/app-error.ts'
import { EventBus } from '../src-main/shared/events.ts'
import { silentLogger } from '../src-main/shared/logger.ts'
import { AttachmentFolder } from '../src-main/sync/outbox/attachment-folder.ts'
import { Outbox } from '../src-main/sync/outbox/outbox.ts'
import { openOutboxDatabase } from '../src-main/sync/outbox/outbox-database.ts'
import { openOutbox } from '../src-main/sync/outbox/outbox-recovery.ts'
import { progress, report } from './report.ts'

const items = Number(process.env.BENCH_OUTBOX_ITEMS ?? 50_000)
const copyMib = Number(process.env.BENCH_COPY_MIB ?? 256)
const runs = 5

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

function timed(work: () => void): number {
  const started = performance.now()
  work()
  return performance.now() - started
}

async function timedAsync(work: () => Promise<void>): Promise<number> {
  const started = performance.now()
  await work()
  return performance.now() - started
}

function openedOutbox(dataDir: string, pageCheck: 'worker' | 'inline'): Outbox {
  return new Outbox({
    dataDir,
    connection: () => {
      throw new AppError('not_found', 'This outbox is only opened, never sent.')
    },
    connectionName: () => 'Lab vault',
    events: new EventBus(),
    log: silentLogger,
    pageCheck,
  })
}

interface Stall {
  /** The longest the event loop stood still (ms) from opening the outbox until it was ready. */
  longest: number
  /** Of which the constructor itself (ms): opening the file and starting the worker. */
  constructing: number
  /** The longest stall over as long a wait with nothing to do (ms): the machine's own. */
  idle: number
}

async function stallWhileChecking(dataDir: string): Promise<Stall> {
  const delay = monitorEventLoopDelay({ resolution: 1 })
  delay.enable()
  // The histogram sees a stall only once a timer is late: the constructor's own time is taken
  // apart, and the larger of the two kept.
  const started = performance.now()
  const outbox = openedOutbox(dataDir, 'worker')
  const constructing = performance.now() - started
  await outbox.ready()
  const checking = performance.now() - started
  delay.disable()
  await outbox.close()
  const idle = monitorEventLoopDelay({ resolution: 1 })
  idle.enable()
  await new Promise((resolve) => setTimeout(resolve, checking))
  idle.disable()
  return {
    longest: Math.max(constructing, delay.max / 1e6),
    constructing,
    idle: idle.max / 1e6,
  }
}

function outboxWithHistory(file: string): void {
  const db = openOutboxDatabase(file)
  const insert = db.prepare(
    `INSERT INTO items (connection_id, vault_id, operation, payload, record_kind, order_key,
       overlay, state, next_attempt_at, server_id, result, created_at, updated_at)
     VALUES ('lab', 1, 'collection.create', ?, 'collections', ?, '{}', 'sent', 0, ?, ?, 0, 0)`,
  )
  db.transaction(() => {
    for (let index = 0; index < items; index++) {
      const name = `Collection ${index}`
      insert.run(
        JSON.stringify({ name }),
        `lab/1/collections/${index}`,
        index,
        JSON.stringify({ id: index, name, owner: { id: 3, name: 'A. Chemist' }, kind: 'list' }),
      )
    }
  })()
  db.close()
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-bench-durability-'))
  try {
    const file = path.join(dir, 'outbox.db')
    progress(`writing an outbox of ${items} sent items`)
    outboxWithHistory(file)
    const mib = fs.statSync(file).size / 1024 ** 2
    const checked: number[] = []
    const plain: number[] = []
    for (let run = 0; run < runs; run++) {
      checked.push(timed(() => openOutbox(file).db.close()))
      plain.push(timed(() => openOutboxDatabase(file).close()))
    }
    report({
      name: `outbox open with its page check (${items} items, ${mib.toFixed(1)} MiB)`,
      value: Number(median(checked).toFixed(1)),
      unit: 'ms',
      reference: 'the same open without the check (ms)',
      referenceValue: Number(median(plain).toFixed(1)),
      ratio: Number((median(checked) / median(plain)).toFixed(1)),
    })

    const stalls: Stall[] = []
    const inline: number[] = []
    for (let run = 0; run < runs; run++) {
      stalls.push(await stallWhileChecking(dir))
      inline.push(await timedAsync(() => openedOutbox(dir, 'inline').close()))
    }
    const longest = median(stalls.map((stall) => stall.longest))
    report({
      name: `outbox open, longest main-thread stall with the page check in a worker (${items} items, ${mib.toFixed(1)} MiB)`,
      value: Number(longest.toFixed(1)),
      unit: 'ms',
      reference: 'the open with the page check on the main thread (ms)',
      referenceValue: Number(median(inline).toFixed(1)),
      ratio: Number((longest / median(inline)).toFixed(3)),
      constructingMs: Number(median(stalls.map((stall) => stall.constructing)).toFixed(1)),
      idleStallMs: Number(median(stalls.map((stall) => stall.idle)).toFixed(1)),
    })

    const bounded: number[] = []
    const full: number[] = []
    const db = openOutboxDatabase(file)
    try {
      for (let run = 0; run < runs; run++) {
        bounded.push(timed(() => db.pragma('quick_check(1)')))
        full.push(timed(() => db.pragma('quick_check')))
      }
    } finally {
      db.close()
    }
    report({
      name: `outbox page check bounded to one problem (${items} items)`,
      value: Number(median(bounded).toFixed(1)),
      unit: 'ms',
      reference: 'the full quick_check on the same connection (ms)',
      referenceValue: Number(median(full).toFixed(1)),
      ratio: Number((median(bounded) / median(full)).toFixed(2)),
    })

    const original = path.join(dir, 'original.bin')
    progress(`writing a ${copyMib} MiB file`)
    const chunk = Buffer.alloc(1024 ** 2, 7)
    const handle = fs.openSync(original, 'w')
    for (let written = 0; written < copyMib; written++) fs.writeSync(handle, chunk)
    fs.closeSync(handle)
    const attachments = new AttachmentFolder(path.join(dir, 'attachments'))
    const durable: number[] = []
    const copied: number[] = []
    for (let run = 0; run < 3; run++) {
      durable.push(
        await timedAsync(async () => {
          const copy = await attachments.copy(original)
          fs.rmSync(copy.path)
        }),
      )
      copied.push(
        await timedAsync(async () => {
          const copy = path.join(dir, 'plain-copy.bin')
          await fs.promises.copyFile(original, copy, fs.constants.COPYFILE_FICLONE)
          fs.rmSync(copy)
        }),
      )
    }
    report({
      name: `outbox queued file copy made durable and recorded (${copyMib} MiB)`,
      value: Number(median(durable).toFixed(0)),
      unit: 'ms',
      reference: 'a plain copy of the same file (ms)',
      referenceValue: Number(median(copied).toFixed(0)),
      ratio: Number((median(durable) / median(copied)).toFixed(1)),
    })
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

await main()
