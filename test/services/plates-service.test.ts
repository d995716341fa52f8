/**
 * The plates service's read-only connection, on a cache filled by the real sync from the
 * simulator's demo vault over real HTTP: one kept per cache for every question (the plate answers
 * kept on it), opened again on the file now at the cache's path when that is another file, or on
 * the new cache when the cache was replaced (the old one closed, as the kernel's open files show:
 * Linux only), and closed with the service.
 */
import fs from 'node:fs'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PlatesService } from '../../src-main/services/plates-service.ts'
import { setAside } from '../../src-main/store/cache-database.ts'
import { PlateQueries } from '../../src-main/store/plate-queries.ts'
import { requirement } from '../support/environment.ts'
import { syncedDemoServices, type SyncedDemo } from './support.ts'

const available = requirement(fs.existsSync('/proc/self/fd'), 'Linux /proc/self/fd')

/** How many of this process's open files are `file` (the path it had when it was opened). */
function descriptorsOn(file: string): number {
  return fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === file
    } catch {
      return false // closed since it was listed
    }
  }).length
}

describe.runIf(available)('the plates service’s read-only connection', () => {
  let demo: SyncedDemo
  /** The cache's file, as the kernel names it. */
  let file: string
  /** A demo plate read in a run, and that run. */
  let question: { plateId: number; runId: number }

  beforeAll(async () => {
    demo = await syncedDemoServices()
    demo.cache.readoutIndex().complete()
    file = fs.realpathSync(demo.cache.file)
    const db = new Database(file, { readonly: true })
    try {
      question = db
        .prepare(
          `SELECT plate_id AS plateId, run_id AS runId FROM readout_rows
            WHERE vault_id = ? AND plate_id IS NOT NULL AND run_id IS NOT NULL
            ORDER BY id LIMIT 1`,
        )
        .get(demo.vaultId) as { plateId: number; runId: number }
    } finally {
      db.close()
    }
  }, 240_000)

  afterAll(async () => {
    await demo?.dispose()
  })

  const plates = () => demo.services.plates
  const plate = () => plates().plate(demo.connectionId, demo.vaultId, question.plateId)
  const plateName = () => plate().plate.name

  it('is one for every question, kept with the plate answers on it', () => {
    const opened = PlatesService.connectionsOpened
    const first = plate()
    expect(first.chosen).not.toBeNull()
    const walked = PlateQueries.layoutsWalked
    expect(plate()).toEqual(first)
    expect(PlateQueries.layoutsWalked, 'the layout kept on the connection').toBe(walked)
    const { connectionId, vaultId } = demo
    expect(plates().run(connectionId, vaultId, question.runId).plates.length).toBeGreaterThan(0)
    expect(plates().sampleForm(connectionId, vaultId).cached.batches).toBeGreaterThan(0)
    plates().resolveWells(connectionId, vaultId, ['no such batch'])
    expect(PlatesService.connectionsOpened).toBe(opened + 1)
  })

  it('is opened again on the file at the cache’s path once that is another file', () => {
    expect(plateName()).not.toBe('Renamed elsewhere')
    // Another process set the cache aside (its log and shared memory with it) and put a changed
    // copy in its place: a new inode at the path, while this process's cache holds the old one.
    const copy = `${file}.replacement`
    const source = new Database(file, { readonly: true })
    source.prepare('VACUUM INTO ?').run(copy)
    source.close()
    const changed = new Database(copy)
    changed
      .prepare('UPDATE plates SET name = ? WHERE vault_id = ? AND id = ?')
      .run('Renamed elsewhere', demo.vaultId, question.plateId)
    changed.close()
    setAside(file, { reason: 'damaged', details: 'set aside by another process' })
    fs.renameSync(copy, file)

    const opened = PlatesService.connectionsOpened
    expect(plateName()).toBe('Renamed elsewhere')
    expect(plateName()).toBe('Renamed elsewhere')
    expect(PlatesService.connectionsOpened).toBe(opened + 1)
  })

  it('is closed with its cache, and opened on the new one once it was made again', async () => {
    expect(descriptorsOn(fs.realpathSync(file))).toBeGreaterThan(0)
    // Closed before the file can go: a removed connection's is deleted next (Windows keeps a file
    // that is open).
    await demo.services.runtimes.close(demo.connectionId)
    expect(descriptorsOn(fs.realpathSync(file))).toBe(0)
    setAside(file, { reason: 'damaged', details: 'set aside by the test' })

    expect(() => plateName()).toThrow(`Plate ${question.plateId} is not in the local copy`)
    const cache = demo.services.runtimes.get(demo.connectionId).cache
    expect(cache.get('plates', demo.vaultId, question.plateId)).toBeNull()
  })

  it('is closed with the service, which then refuses questions', () => {
    expect(() => plateName()).toThrow('is not in the local copy')
    plates().close()
    expect(() => plateName()).toThrow('Plate quality has shut down.')
  })
})
