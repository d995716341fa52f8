import fs from 'node:fs'
import path from 'node:path'
import { AppError } from '../shared/app-error.ts'

/** A database file and the WAL and shared-memory files SQLite keeps beside it. */
const companions = ['', '-wal', '-shm'] as const

/** `<dataDir>/caches/<connectionId>.db`: the cache of one connection, and nothing else. */
export function cacheFile(dataDir: string, connectionId: string): string {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(connectionId)) {
    throw new AppError('invalid_argument', `Not a connection id: ${JSON.stringify(connectionId)}.`)
  }
  return path.join(dataDir, 'caches', `${connectionId}.db`)
}

/**
 * Renames a damaged cache and its companions to `<name>.damaged-<timestamp>.db` (kept for a
 * bug report, never opened again) and returns the new name of the database file.
 */
export function moveCacheAside(file: string, at: Date): string {
  const stamp = at.toISOString().replace(/[:.]/g, '-')
  const aside = file.replace(/\.db$/, `.damaged-${stamp}.db`)
  for (const suffix of companions) {
    if (fs.existsSync(file + suffix)) fs.renameSync(file + suffix, aside + suffix)
  }
  return aside
}

/** Deletes a cache file, its companions and any damaged copies moved aside; returns their paths. */
export function deleteCacheFiles(file: string): string[] {
  const base = path.basename(file, '.db')
  const dir = path.dirname(file)
  if (!fs.existsSync(dir)) return []
  const damagedCopy = new RegExp(`^${escapeRegExp(base)}\\.damaged-[0-9TZ-]+\\.db(-wal|-shm)?$`)
  const ownFiles = new Set(companions.map((suffix) => `${base}.db${suffix}`))
  const deleted: string[] = []
  for (const name of fs.readdirSync(dir)) {
    if (!ownFiles.has(name) && !damagedCopy.test(name)) continue
    fs.rmSync(path.join(dir, name), { force: true })
    deleted.push(path.join(dir, name))
  }
  return deleted
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
