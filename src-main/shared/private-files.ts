import fs from 'node:fs'
import path from 'node:path'

/**
 * Everything in the data folder (caches of the vault, queued work and copies of files, logs) is
 * the person's alone: folders 0700 and files 0600 on POSIX, given where each is created whatever
 * the process's umask, because other accounts on a shared lab machine must not read it. What an
 * earlier version left open is closed at start (`makeTreePrivate`, from config.ts). Windows keeps
 * a profile's local application data to its owner by its ACLs and ignores these modes, so there
 * these functions change nothing.
 *
 * The mode of a folder that exists is never changed here except by `makeTreePrivate`: a database
 * or a log may be opened in any folder (a test's temporary one, /tmp), which is not the app's.
 */
export const privateFolderMode = 0o700
export const privateFileMode = 0o600

const posix = process.platform !== 'win32'

/** Creates `folder`, and any missing parent, private; one that exists keeps its mode. */
export function createPrivateFolder(folder: string): void {
  fs.mkdirSync(folder, { recursive: true, mode: privateFolderMode })
}

/** As `createPrivateFolder`, off the main thread's way. */
export async function createPrivateFolderAsync(folder: string): Promise<void> {
  await fs.promises.mkdir(folder, { recursive: true, mode: privateFolderMode })
}

/**
 * Creates `file` empty and private unless it exists, and makes it private if it was not. SQLite
 * gives the WAL and shared-memory files the mode of their database, so a database created this
 * way first keeps its companions private too.
 */
export function createPrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', privateFileMode))
  if (posix) fs.chmodSync(file, privateFileMode)
}

/**
 * Makes private those of `files` that exist (a database's companions, rotated logs, copies), as
 * far as it can: a file another account owns, or one on a read-only disk, stays as it is (the
 * start reports such files: config.ts), since the work that opened it must go on.
 */
export function makeFilesPrivate(files: readonly string[]): void {
  if (!posix) return
  for (const file of files) {
    try {
      fs.chmodSync(file, privateFileMode)
    } catch {
      // Missing, or not ours to change: see above.
    }
  }
}

/** As `makeFilesPrivate`, off the main thread's way. */
export async function makeFilesPrivateAsync(files: readonly string[]): Promise<void> {
  if (!posix) return
  await Promise.all(files.map((file) => fs.promises.chmod(file, privateFileMode).catch(() => {})))
}

/**
 * Makes `entry` (a file, or a folder and everything below it) private. Only for what the app
 * made: an earlier version left folders 0755 and files 0644. Symbolic links are neither followed
 * nor changed (one could point anywhere). Answers how many entries it changed.
 */
export function makeTreePrivate(entry: string): number {
  if (!posix) return 0
  let stat: fs.Stats
  try {
    stat = fs.lstatSync(entry)
  } catch {
    return 0 // Gone meanwhile (a sweep, another process): nothing to close.
  }
  if (stat.isSymbolicLink()) return 0
  let changed = 0
  const wanted = stat.isDirectory() ? privateFolderMode : privateFileMode
  if ((stat.mode & 0o777) !== wanted) {
    fs.chmodSync(entry, wanted)
    changed++
  }
  if (stat.isDirectory()) {
    for (const name of fs.readdirSync(entry)) changed += makeTreePrivate(path.join(entry, name))
  }
  return changed
}
