import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { AttachmentFolder } from '../../src-main/sync/outbox/attachment-folder.ts'
import {
  connectionId,
  settled,
  tempFile,
  useOutboxHarness,
  waitUntil,
} from './support/outbox-harness.ts'

/**
 * The copy of a queued file is what gets uploaded: it is recorded (size, SHA-256, the original's
 * path) when it is made, and a copy that no longer matches (cut short by a power cut, changed on
 * disk) is never sent: the item waits for the person, who is pointed to the original.
 */

const harness = useOutboxHarness()
const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true })
})

interface CopyRow {
  attachment_path: string
  attachment_size: number
  attachment_sha256: string | null
  attachment_source: string | null
}

function copyOf(dataDir: string, itemId: number): CopyRow {
  const db = new Database(path.join(dataDir, 'outbox.db'), { readonly: true })
  try {
    return db
      .prepare(
        `SELECT attachment_path, attachment_size, attachment_sha256, attachment_source
           FROM items WHERE id = ?`,
      )
      .get(itemId) as CopyRow
  } finally {
    db.close()
  }
}

const sha256 = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('hex')

const uploadsNamed = (name: string) =>
  harness.sim.core.db
    .prepare('SELECT COUNT(*) FROM uploaded_files WHERE name = ?')
    .pluck()
    .get(name)

async function queuedUpload(name: string, bytes: Buffer) {
  const original = tempFile(name, bytes)
  const under = harness.open()
  const [item] = await under.outbox.queue({
    connectionId,
    vaultId: harness.vaultId,
    operation: 'file.attach',
    file: original,
    target: { kind: 'molecule', ref: { id: harness.moleculeIds(1)[0]! } },
  })
  return { ...under, item: item!, original }
}

describe('the copy of a queued file', () => {
  it('is recorded when queued: its size, its SHA-256 and the original it was made from', async () => {
    const bytes = crypto.randomBytes(70_000)
    const { item, dataDir, original } = await queuedUpload('recorded.bin', bytes)
    const copy = copyOf(dataDir, item.id)
    expect(copy).toMatchObject({
      attachment_size: bytes.length,
      attachment_sha256: sha256(bytes),
      attachment_source: original,
    })
    expect(sha256(fs.readFileSync(copy.attachment_path))).toBe(sha256(bytes))
  })

  it('cut short after it was queued is refused, never sent, and names the original', async () => {
    const bytes = crypto.randomBytes(65_536)
    const { outbox, item, dataDir, original } = await queuedUpload('cut-short.bin', bytes)
    const copy = copyOf(dataDir, item.id)
    // What a power cut before the copy reached the disk leaves: a file cut short.
    fs.truncateSync(copy.attachment_path, 32_768)
    harness.sim.resetStats()

    outbox.start()
    await settled(outbox)

    const refused = outbox.item(item.id)
    expect(refused.state).toBe('needs_attention')
    expect(refused.lastError).toBe(
      `The copy of cut-short.bin kept for sending has 32768 of its 65536 bytes; queue ${original} again.`,
    )
    expect(uploadsNamed('cut-short.bin')).toBe(0)
    expect(
      Object.keys(harness.sim.stats.byOperation).filter((operation) => /files/.test(operation)),
    ).toEqual([])
  })

  it('changed in place (same size) or gone is refused too', async () => {
    const changed = await queuedUpload('changed.bin', crypto.randomBytes(4096))
    const changedCopy = copyOf(changed.dataDir, changed.item.id)
    fs.writeFileSync(changedCopy.attachment_path, crypto.randomBytes(4096))
    const gone = await queuedUpload('gone.bin', crypto.randomBytes(4096))
    fs.rmSync(copyOf(gone.dataDir, gone.item.id).attachment_path)

    for (const { outbox } of [changed, gone]) {
      outbox.start()
      await settled(outbox)
    }
    expect(changed.outbox.item(changed.item.id)).toMatchObject({
      state: 'needs_attention',
      lastError: `The copy of changed.bin kept for sending no longer matches the file queued; queue ${changed.original} again.`,
    })
    expect(gone.outbox.item(gone.item.id)).toMatchObject({
      state: 'needs_attention',
      lastError: `The copy of gone.bin kept for sending is missing; queue ${gone.original} again.`,
    })
    expect(uploadsNamed('changed.bin')).toBe(0)
    expect(uploadsNamed('gone.bin')).toBe(0)
  })

  it('that matches is sent, and deleted once its item is sent', async () => {
    const bytes = crypto.randomBytes(10_000)
    const { outbox, item, dataDir } = await queuedUpload('intact.bin', bytes)
    const copy = copyOf(dataDir, item.id)
    outbox.start()
    await settled(outbox)
    expect(outbox.item(item.id).state).toBe('sent')
    expect(uploadsNamed('intact.bin')).toBe(1)
    await waitUntil('the copy is deleted', () => !fs.existsSync(copy.attachment_path))
  })

  it('is kept while the end of its item may not be on disk', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-copies-'))
    folders.push(dir)
    const attachments = new AttachmentFolder(path.join(dir, 'attachments'))
    const original = path.join(dir, 'plate.csv')
    fs.writeFileSync(original, 'well,value\nA01,1\n')
    const kept = await attachments.copy(original)
    const removed = await attachments.copy(original)
    expect(fs.statSync(kept.path).mode & 0o777).toBe(0o600)

    attachments.removeOnceDurable(kept, Promise.reject(new Error('the sync failed')))
    attachments.removeOnceDurable(removed, Promise.resolve())
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(fs.existsSync(kept.path)).toBe(true)
    expect(fs.existsSync(removed.path)).toBe(false)
  })
})
