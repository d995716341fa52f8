/**
 * An outbox.db damaged as a disk that lost a write leaves it: real items queued through a real
 * outbox, then one page of the items table's rows overwritten with random bytes.
 */
import crypto from 'node:crypto'
import path from 'node:path'
import fs from 'node:fs'
import Database from 'better-sqlite3'
import { AppError } from '../../../src-main/shared/app-error.ts'
import { EventBus } from '../../../src-main/shared/events.ts'
import { silentLogger } from '../../../src-main/shared/logger.ts'
import { Outbox } from '../../../src-main/sync/outbox/outbox.ts'

/** The pages of the items table's b-tree that hold rows (its leaves), by page number. */
export function leafPagesOfItems(file: string): number[] {
  const db = new Database(file, { readonly: true })
  try {
    return (
      db
        .prepare(
          "SELECT pageno FROM dbstat WHERE name = 'items' AND pagetype = 'leaf' ORDER BY pageno",
        )
        .all() as { pageno: number }[]
    ).map((row) => row.pageno)
  } finally {
    db.close()
  }
}

/** Overwrites one page of the file with random bytes, as a failed write would leave it. */
export function damagePage(file: string, page: number): void {
  const db = new Database(file, { readonly: true })
  const size = db.pragma('page_size', { simple: true }) as number
  db.close()
  const handle = fs.openSync(file, 'r+')
  try {
    fs.writeSync(handle, crypto.randomBytes(size), 0, size, (page - 1) * size)
  } finally {
    fs.closeSync(handle)
  }
}

/** Names long enough that `count` of them fill several pages of rows. */
export function collectionNames(count: number): string[] {
  return Array.from(
    { length: count },
    (_, index) => `Damaged outbox collection ${String(index).padStart(3, '0')} ${'·'.repeat(40)}`,
  )
}

/** Queues a `collection.create` per name in `<dataDir>/outbox.db` (never sent). */
export async function writeOutbox(
  dataDir: string,
  names: readonly string[],
  target: { connectionId: string; vaultId: number },
): Promise<void> {
  const outbox = new Outbox({
    dataDir,
    connection: () => {
      throw new AppError('not_found', 'This outbox is only written, never sent.')
    },
    connectionName: () => 'Lab vault',
    events: new EventBus(),
    log: silentLogger,
  })
  for (const name of names) {
    await outbox.queue({ ...target, operation: 'collection.create', payload: { name } })
  }
  await outbox.close()
}

/** Damages the middle leaf of the items of the outbox file; returns the file's SHA-256 after. */
export function damageMiddleLeaf(file: string): string {
  const leaves = leafPagesOfItems(file)
  if (leaves.length < 3) throw new Error(`Only ${leaves.length} leaves of items: queue more.`)
  damagePage(file, leaves[Math.floor(leaves.length / 2)]!)
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')
}

/**
 * Queues a `collection.create` per name in `<dataDir>/outbox.db` (never sent), then damages the
 * middle leaf of its items. Returns the file's SHA-256 as damaged.
 */
export async function writeDamagedOutbox(
  dataDir: string,
  names: readonly string[],
  target: { connectionId: string; vaultId: number },
): Promise<string> {
  await writeOutbox(dataDir, names, target)
  return damageMiddleLeaf(path.join(dataDir, 'outbox.db'))
}
