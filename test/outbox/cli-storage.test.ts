import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { VaultClient } from '../../src-main/api/client.ts'
import { EventBus } from '../../src-main/shared/events.ts'
import { silentLogger } from '../../src-main/shared/logger.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { Outbox } from '../../src-main/sync/outbox/outbox.ts'

/**
 * `vault-desk outbox send` on a disk that fills up: the process may not grow any file past a
 * limit (RLIMIT_FSIZE, as `ulimit -f` sets it), set above what the other databases need and far
 * below what sending the queue writes to the outbox. The command must end within seconds with a
 * clear message and exit code 1 (failure, see README.md), and every item must still be queued.
 */

const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')
/** Nothing answers there: each attempt fails at once, and is written as failed (or not). */
const baseUrl = 'http://127.0.0.1:9/api/v1'
const dataDirs: string[] = []
afterEach(() => {
  for (const dir of dataDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function vaultDesk(dataDir: string, args: string[], fileSizeLimitKiB?: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const command = [
      process.execPath,
      bin,
      ...args,
      '--base-url',
      baseUrl,
      '--token-env',
      'VD_TOKEN',
    ]
    const quoted = command.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ')
    const { DBUS_SESSION_BUS_ADDRESS: _bus, ...inherited } = process.env
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        fileSizeLimitKiB === undefined
          ? `exec ${quoted}`
          : `ulimit -f ${fileSizeLimitKiB * 2} && exec ${quoted}`,
      ],
      { env: { ...inherited, VAULT_DESK_DATA_DIR: dataDir, VD_TOKEN: 'a-token' } },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdin.end()
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}

const queuedIn = (dataDir: string): number => {
  const db = new Database(path.join(dataDir, 'outbox.db'), { readonly: true })
  try {
    return db.prepare("SELECT COUNT(*) FROM items WHERE state = 'queued'").pluck().get() as number
  } finally {
    db.close()
  }
}

describe('vault-desk outbox send on a full disk', () => {
  it('ends within seconds with a clear message and exit code 1, and loses nothing', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-full-disk-'))
    dataDirs.push(dataDir)
    const original = path.join(dataDir, 'plate.csv')
    fs.writeFileSync(original, 'well,value\nA01,1\n')

    // One item queued by the command itself names its connection; more are queued beside it.
    const first = await vaultDesk(dataDir, [
      'upload',
      '--vault',
      '1',
      '--to',
      'molecule:5',
      original,
    ])
    expect(first, first.stderr).toMatchObject({ code: 0 })
    const connectionId = (
      new Database(path.join(dataDir, 'outbox.db'), { readonly: true })
        .prepare('SELECT connection_id FROM items')
        .get() as { connection_id: string }
    ).connection_id
    const { cache } = VaultCache.open(path.join(dataDir, 'caches', 'queueing.db'))
    const outbox = new Outbox({
      dataDir,
      connection: () => ({ client: new VaultClient({ baseUrl, token: 'a-token' }), cache }),
      connectionName: () => 'Headless',
      events: new EventBus(),
      log: silentLogger,
    })
    for (let index = 0; index < 60; index++) {
      await outbox.queue({
        connectionId,
        vaultId: 1,
        operation: 'collection.create',
        payload: { name: `Queued before the disk filled ${index}` },
      })
    }
    await outbox.close()
    await cache.close()
    fs.rmSync(path.join(dataDir, 'caches', 'queueing.db'), { force: true })
    expect(queuedIn(dataDir)).toBe(61)

    // Room for what the other databases write, not for what sending 61 items writes.
    const appDatabase = fs.statSync(path.join(dataDir, 'app.db')).size
    const limitKiB = Math.ceil(appDatabase / 4096) * 4 + 8
    const started = Date.now()
    const send = await vaultDesk(dataDir, ['outbox', 'send'], limitKiB)
    const seconds = (Date.now() - started) / 1000

    expect(send.code, send.stderr).toBe(1)
    expect(send.stderr).toMatch(
      /^vault-desk outbox: The outbox cannot save changes to .*outbox\.db: the disk (is full|reported an error)/m,
    )
    expect(send.stderr).toMatch(/Nothing queued is lost/)
    expect(send.stderr).not.toMatch(/\n\s+at /) // no stack trace
    // Reported here, not asserted: the machine may be slow; a loop would never end at all.
    console.info(`outbox send on a full disk ended in ${seconds.toFixed(1)} s`)
    expect(queuedIn(dataDir)).toBe(61)
  }, 120_000)
})
