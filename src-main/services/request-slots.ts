/**
 * The service allows 3 requests in flight and 3 running exports per user, and the app, the
 * browser preview and CLI commands on one data folder are the same user: they share the limits
 * through `request-slots/` beside the data folder's lock. Each request in flight holds one slot
 * file (`<origin>-<n>.lock`, n below the limit), each running export one of its own
 * (`exports-<origin>-<n>.lock`, held until its file is read: export-runner.ts), made and judged
 * as the data folder's lock is (data-folder-lock.ts): taken atomically, naming its holder, taken
 * over at once when that process died. The holder renews its files every second; one not renewed
 * for a few seconds (a frozen process, an unreadable file) is taken over too, so that no slot
 * blocks the others for longer than that.
 *
 * When the folder cannot be used (read-only, full), requests go on limited within the process
 * alone, and the problem is told once.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { LimiterRegistry } from '../api/limiter-registry.ts'
import type { SharedSlots, Slot } from '../api/limiter.ts'
import { createPrivateFolder } from '../shared/private-files.ts'
import { renewLockFile, tryTakeLockFile, type DataFolderLock } from '../shared/data-folder-lock.ts'

export const requestSlotsFolderName = 'request-slots'

export interface RequestSlotTiming {
  /** A slot file not renewed for this long is free (default 5 s). */
  leaseMs: number
  /** How often held slots are renewed (default 1 s). */
  renewMs: number
  /** How often a process waiting for a slot looks again besides watching the folder (250 ms). */
  pollMs: number
}

const defaultTiming: RequestSlotTiming = { leaseMs: 5_000, renewMs: 1_000, pollMs: 250 }

/** What a set of slots limits: requests in flight, or running exports. */
export type SlotUse = 'requests' | 'exports'

/** One data folder's slot files, for every origin this process sends to. */
export class RequestSlotFolder {
  readonly folder: string
  readonly #timing: RequestSlotTiming
  readonly #onProblem: (error: unknown) => void
  /** The slot files this process holds, by path. */
  readonly #held = new Map<string, DataFolderLock>()
  #renewal: ReturnType<typeof setInterval> | undefined
  #folderMade = false
  #told = false
  #exitHook: (() => void) | undefined

  constructor(
    folder: string,
    options: { timing?: Partial<RequestSlotTiming>; onProblem?: (error: unknown) => void } = {},
  ) {
    this.folder = folder
    this.#timing = { ...defaultTiming, ...options.timing }
    this.#onProblem = options.onProblem ?? (() => {})
  }

  /** The slots of one origin: `capacity` files, shared by every process of the data folder. */
  slotsFor(origin: string, capacity: number, use: SlotUse = 'requests'): SharedSlots {
    const digest = createHash('sha256').update(origin).digest('hex').slice(0, 16)
    const stem = use === 'requests' ? digest : `${use}-${digest}`
    const files = Array.from({ length: capacity }, (_, index) =>
      path.join(this.folder, `${stem}-${index}.lock`),
    )
    return {
      tryTake: () => this.#tryTake(files, `${use} to ${origin}`),
      watch: (wake) => this.#watch(wake),
    }
  }

  /** How many slot files are held by this process now (for tests and diagnostics). */
  get held(): number {
    return this.#held.size
  }

  #tryTake(files: readonly string[], holder: string): Slot | null {
    try {
      if (!this.#folderMade) {
        createPrivateFolder(this.folder)
        this.#folderMade = true
      }
      for (const file of files) {
        if (this.#held.has(file)) continue
        const attempt = tryTakeLockFile(file, holder, {
          leaseMs: this.#timing.leaseMs,
          releaseOnExit: false,
        })
        if (attempt.held) return this.#hold(attempt.lock)
      }
      return null
    } catch (error) {
      // Made again next time, should it have been removed meanwhile.
      this.#folderMade = false
      // The limit then holds within this process only: better than no requests at all.
      if (!this.#told) {
        this.#told = true
        this.#onProblem(error)
      }
      return { release: () => {} }
    }
  }

  #hold(lock: DataFolderLock): Slot {
    this.#held.set(lock.file, lock)
    this.#renewal ??= setInterval(() => this.#renew(), this.#timing.renewMs)
    // Requests in flight keep the process alive by themselves; the renewal must not.
    this.#renewal.unref?.()
    if (!this.#exitHook) {
      this.#exitHook = () => {
        for (const held of this.#held.values()) held.release()
      }
      process.on('exit', this.#exitHook)
    }
    return {
      release: () => {
        if (this.#held.get(lock.file) !== lock) return
        this.#held.delete(lock.file)
        lock.release()
        if (this.#held.size === 0) {
          clearInterval(this.#renewal)
          this.#renewal = undefined
        }
      },
    }
  }

  #renew(): void {
    // A file gone was judged stale and taken over (this process froze): the request still runs,
    // and its release leaves the new holder's file alone.
    for (const file of this.#held.keys()) renewLockFile(file)
  }

  #watch(wake: () => void): () => void {
    let watcher: fs.FSWatcher | undefined
    try {
      createPrivateFolder(this.folder)
      watcher = fs.watch(this.folder, { persistent: false }, () => wake())
      watcher.on('error', () => watcher?.close())
    } catch {
      // No file events here (a network folder, no watches left): the polling below suffices.
    }
    // Also for what no event tells: a holder that died or stopped renewing.
    const poll = setInterval(wake, this.#timing.pollMs)
    return () => {
      clearInterval(poll)
      watcher?.close()
    }
  }
}

const registries = new Map<string, LimiterRegistry>()

/**
 * The limits of every client of this process that works for `dataDir`, shared with the other
 * processes on it. One registry per data folder and process.
 */
export function limitersForDataFolder(
  dataDir: string,
  onProblem?: (error: unknown) => void,
): LimiterRegistry {
  const key = path.resolve(dataDir)
  let registry = registries.get(key)
  if (!registry) {
    const folder = new RequestSlotFolder(path.join(key, requestSlotsFolderName), {
      ...(onProblem ? { onProblem } : {}),
    })
    registry = new LimiterRegistry({
      sharedRequestSlots: (origin, capacity) => folder.slotsFor(origin, capacity),
      sharedExportSlots: (origin, capacity) => folder.slotsFor(origin, capacity, 'exports'),
    })
    registries.set(key, registry)
  }
  return registry
}
