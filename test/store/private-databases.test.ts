import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openAppDatabase } from '../../src-main/store/app-database.ts'
import { ConnectionCaches } from '../../src-main/store/connection-caches.ts'
import { openOutboxDatabase } from '../../src-main/sync/outbox/outbox-database.ts'

/** Databases are the person's alone: 0600, their WAL and shared-memory files too, whatever the umask. */
let root: string
let umask: number
const opened: Database.Database[] = []
const caches: ConnectionCaches[] = []

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-private-db-'))
  umask = process.umask(0o022)
})
afterEach(async () => {
  process.umask(umask)
  for (const db of opened.splice(0)) db.close()
  for (const set of caches.splice(0)) await set.closeAll()
  fs.rmSync(root, { recursive: true, force: true })
})

const modeOf = (entry: string) => fs.statSync(entry).mode & 0o777

describe.runIf(process.platform !== 'win32')('private databases', () => {
  it.each([
    ['the app database', 'app.db', openAppDatabase],
    ['the outbox', 'outbox.db', openOutboxDatabase],
  ])('creates %s 0600 with its companions, in a new folder 0700', (_name, fileName, open) => {
    const folder = path.join(root, 'data')
    const file = path.join(folder, fileName)
    opened.push(open(file))
    expect(modeOf(folder)).toBe(0o700)
    for (const suffix of ['', '-wal', '-shm']) expect(modeOf(file + suffix), suffix).toBe(0o600)
  })

  it('makes an existing database private and leaves the folder it was given as it is', () => {
    fs.chmodSync(root, 0o755)
    const file = path.join(root, 'app.db')
    opened.push(openAppDatabase(file))
    opened.pop()!.close()
    fs.chmodSync(file, 0o644)
    opened.push(openAppDatabase(file))
    expect(modeOf(file)).toBe(0o600)
    expect(modeOf(`${file}-wal`)).toBe(0o600)
    expect(modeOf(root)).toBe(0o755)
  })

  it('creates the caches folder 0700 and each cache 0600 with its companions', () => {
    const set = new ConnectionCaches(root)
    caches.push(set)
    set.open('lab')
    expect(modeOf(path.join(root, 'caches'))).toBe(0o700)
    for (const suffix of ['', '-wal', '-shm']) {
      expect(modeOf(path.join(root, 'caches', `lab.db${suffix}`)), suffix).toBe(0o600)
    }
  })
})
