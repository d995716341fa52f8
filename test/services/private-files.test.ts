import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { LimiterRegistry } from '../../src-main/api/index.ts'
import { createServices, type Services } from '../../src-main/services/index.ts'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { nextEvent } from './support.ts'

/**
 * Other accounts on a shared lab machine must not read the data folder: every folder the services
 * make is 0700 and every file 0600, whatever the umask, and a folder an earlier version left open
 * is closed at start.
 */
const posix = process.platform !== 'win32'

let sim: VaultSim
let root: string
let running: Services | undefined

beforeAll(async () => {
  sim = await startVaultSim({ port: 0, seed: 40 })
})
afterAll(() => sim.stop())
afterEach(async () => {
  await running?.close()
  running = undefined
  if (root) fs.rmSync(root, { recursive: true, force: true })
})

function start(dataDir: string): Services {
  running = createServices({
    host: 'web',
    dataDir,
    background: false,
    client: { limiters: new LimiterRegistry(), retry: { baseDelayMs: 5, maxDelayMs: 50 } },
  })
  return running
}

/** Every entry below `dir` (itself included) whose mode is not 0700 (folders) or 0600 (files). */
function openEntries(dir: string): string[] {
  const entries = [
    dir,
    ...fs.readdirSync(dir, { recursive: true }).map((name) => path.join(dir, String(name))),
  ]
  const open: string[] = []
  for (const entry of entries) {
    let stat: fs.Stats
    try {
      stat = fs.lstatSync(entry)
    } catch {
      continue // Gone between the listing and the look (a WAL checkpointed away).
    }
    if (stat.isSymbolicLink()) continue
    const wanted = stat.isDirectory() ? 0o700 : 0o600
    const mode = stat.mode & 0o777
    if (mode !== wanted) open.push(`${path.relative(dir, entry) || '.'} ${mode.toString(8)}`)
  }
  return open
}

/** A file readable to everyone, as people's files usually are. */
function everyonesFile(name: string, contents: string): string {
  const file = path.join(root, name)
  fs.writeFileSync(file, contents)
  fs.chmodSync(file, 0o644)
  return file
}

describe.runIf(posix)('the data folder is private', () => {
  it('makes every folder 0700 and every file 0600, after a sync, a queued upload and a staged file', async () => {
    // A umask that leaves new files readable to all: the modes must not depend on it.
    const umask = process.umask(0o022)
    try {
      root = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-private-'))
      const dataDir = path.join(root, 'data', 'vault-desk')
      const services = start(dataDir)
      const added = await services.connections.add({
        name: 'Lab',
        baseUrl: sim.baseUrl,
        token: sim.cast.users.admin.tokens[0]!,
        sessionOnly: true,
      })
      const connectionId = added.connection.id
      const synced = nextEvent(
        services,
        'sync.changed',
        (state) => state.connectionId === connectionId && !state.running,
      )
      services.sync.startNow(connectionId)
      expect(await synced).toMatchObject({ lastOutcome: 'completed' })
      const [molecule] = services.browse.list(connectionId, sim.cast.vaults.main.id, 'molecules', {
        limit: 1,
      }).rows
      await services.outbox.queue({
        connectionId,
        vaultId: sim.cast.vaults.main.id,
        operation: 'file.attach',
        file: everyonesFile('spectrum.csv', 'ppm,intensity\n7.26,100\n'),
        target: { kind: 'molecule', ref: { id: molecule!.id as number } },
      })
      await services.outboxDesk.stage('notes.txt', 12)

      const made = fs.readdirSync(dataDir).sort()
      expect(made).toEqual(
        expect.arrayContaining(['app.db', 'caches', 'logs', 'outbox', 'outbox.db']),
      )
      expect(fs.readdirSync(path.join(dataDir, 'outbox', 'attachments'))).toHaveLength(1)
      expect(
        fs.readdirSync(path.join(dataDir, 'caches')).some((name) => name.endsWith('-wal')),
      ).toBe(true)
      expect(openEntries(dataDir)).toEqual([])
      // A folder it had to make above the data folder is private too.
      expect(fs.statSync(path.join(root, 'data')).mode & 0o777).toBe(0o700)
    } finally {
      process.umask(umask)
    }
  }, 60_000)

  it('keeps the demo vault private, its simulator’s files too', async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-private-'))
    const dataDir = path.join(root, 'vault-desk')
    await start(dataDir).demo.open()
    const demo = path.join(dataDir, 'demo-vault')
    expect(fs.readdirSync(demo)).toEqual(expect.arrayContaining(['vault.db', 'vault.db-wal']))
    expect(openEntries(demo)).toEqual([])
  }, 60_000)

  it('closes what an earlier version left open, and nothing of the person’s own beside it', async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-private-'))
    const dataDir = path.join(root, 'vault-desk')
    for (const folder of ['logs', 'caches', 'outbox/attachments', 'demo-vault/vault.db-files']) {
      fs.mkdirSync(path.join(dataDir, folder), { recursive: true, mode: 0o755 })
    }
    const left = {
      'logs/vault-desk.log': '{}\n',
      'logs/vault-desk.log.1': '{}\n',
      'caches/c1.db': '',
      'caches/c1.damaged-2024-01-01T00-00-00-000Z.db': 'x',
      'outbox/attachments/3f1c': 'spectrum',
      'demo-vault/vault.db-files/7': 'file',
      'window-state.json': '{}',
    }
    for (const [name, contents] of Object.entries(left)) {
      fs.writeFileSync(path.join(dataDir, name), contents, { mode: 0o644 })
    }
    for (const folder of ['', 'logs', 'caches', 'outbox', 'outbox/attachments', 'demo-vault']) {
      fs.chmodSync(path.join(dataDir, folder), 0o755)
    }
    // The person's own, in a data folder they chose: left as they are.
    fs.writeFileSync(path.join(dataDir, 'README.txt'), 'mine', { mode: 0o644 })
    fs.writeFileSync(path.join(dataDir, 'backup.sh'), '#!/bin/sh\n', { mode: 0o755 })
    fs.chmodSync(path.join(dataDir, 'README.txt'), 0o644)
    fs.chmodSync(path.join(dataDir, 'backup.sh'), 0o755)
    const elsewhere = everyonesFile('elsewhere.txt', 'not in the data folder')
    fs.symlinkSync(elsewhere, path.join(dataDir, 'outbox', 'attachments', 'link'))

    start(dataDir)

    expect(openEntries(dataDir).sort()).toEqual(['README.txt 644', 'backup.sh 755'])
    expect(fs.statSync(elsewhere).mode & 0o777).toBe(0o644)
  })
})
