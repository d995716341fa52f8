/**
 * Run by `npm start` before electron-vite: makes sure Electron's binary is on disk. Electron 45
 * downloads it lazily (there is no install step any more), and `electron-vite preview` refuses to
 * start without it ("Electron uninstall"), so on a fresh checkout `npm start` would fail. This
 * checks the binary the way Electron's own installer (`install.js`) decides it is installed, runs
 * that installer when it is not, and says plainly what to do when it cannot download.
 *
 *   node scripts/ensure-electron.ts
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

export type ElectronCheck =
  | { status: 'present'; executable: string }
  | { status: 'fetched'; executable: string }
  | { status: 'failed'; message: string }

export interface EnsureElectronOptions {
  /** The `electron` package's folder (`node_modules/electron`). */
  electronDir: string
  env?: Readonly<Record<string, string | undefined>>
  platform?: NodeJS.Platform
  /** Said before a download starts; the installer itself is quiet when its output is not a TTY. */
  tell?: (line: string) => void
  /** A stalled download must end with a message, not hang `npm start`. */
  installerTimeoutMs?: number
}

const defaultInstallerTimeoutMs = 15 * 60_000
/** The installer's output is kept only to explain a failure; its last part is what matters. */
const keptOutputChars = 64 * 1024

/**
 * Errors that mean the download server could not be reached at all. Electron 45's downloader uses
 * fetch, whose stack says only "TypeError: fetch failed" (the cause, ENOTFOUND say, is not printed).
 */
const unreachable =
  /\b(fetch failed|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENETDOWN|socket hang up|getaddrinfo)\b/i

export async function ensureElectron(options: EnsureElectronOptions): Promise<ElectronCheck> {
  const env = options.env ?? process.env
  const platform = options.platform ?? process.platform
  let electron: { version: string; installer: string }
  try {
    electron = readElectronPackage(options.electronDir)
  } catch (error) {
    return { status: 'failed', message: errorText(error) }
  }

  const explicit = env.ELECTRON_EXEC_PATH
  if (explicit) {
    // electron-vite uses this instead of the package's binary, so the package's does not matter.
    return fs.existsSync(explicit)
      ? { status: 'present', executable: explicit }
      : {
          status: 'failed',
          message: `ELECTRON_EXEC_PATH names ${explicit}, which does not exist. Unset it to use the Electron that npm installs, or point it at an Electron ${electron.version} binary.`,
        }
  }

  const before = binaryState(options.electronDir, electron.version, platform, env)
  if (before.installed) return { status: 'present', executable: before.executable }

  const tell = options.tell ?? ((line: string) => console.error(line))
  tell(
    `Electron ${electron.version} is not installed yet (${before.why}); downloading it once with its own installer (about 100 MB)...`,
  )
  const run = await runInstaller(
    options.electronDir,
    electron.installer,
    env,
    options.installerTimeoutMs ?? defaultInstallerTimeoutMs,
  )
  if (run.outcome !== 'done')
    return { status: 'failed', message: failureMessage(electron.version, run) }

  const after = binaryState(options.electronDir, electron.version, platform, env)
  if (after.installed) return { status: 'fetched', executable: after.executable }
  return {
    status: 'failed',
    message: `Electron's installer finished, but Electron ${electron.version} is still not installed: ${after.why}. Delete node_modules/electron, run \`npm install\`, then \`npm start\` again.`,
  }
}

type BinaryState = { installed: true; executable: string } | { installed: false; why: string }

/** The same test as `isInstalled()` in Electron's `install.js`, saying which part failed. */
function binaryState(
  electronDir: string,
  version: string,
  platform: NodeJS.Platform,
  env: Readonly<Record<string, string | undefined>>,
): BinaryState {
  const target = env.ELECTRON_INSTALL_PLATFORM || env.npm_config_platform || platform
  const platformPath = executableInDist(target)
  if (platformPath === undefined) {
    return { installed: false, why: `Electron has no build for the platform "${target}"` }
  }
  const distVersion = readText(path.join(electronDir, 'dist', 'version'))
  if (distVersion === undefined) return { installed: false, why: 'there is no dist/version' }
  if (distVersion.replace(/^v/, '') !== version) {
    return { installed: false, why: `dist/ holds version ${distVersion.trim()}, not ${version}` }
  }
  const pathText = readText(path.join(electronDir, 'path.txt'))
  if (pathText !== platformPath) {
    return {
      installed: false,
      why:
        pathText === undefined
          ? 'there is no path.txt'
          : `path.txt names "${pathText}", not "${platformPath}"`,
    }
  }
  const distDir = env.ELECTRON_OVERRIDE_DIST_PATH || path.join(electronDir, 'dist')
  const executable = path.join(distDir, platformPath)
  return fs.existsSync(executable)
    ? { installed: true, executable }
    : { installed: false, why: `${executable} is missing` }
}

function executableInDist(platform: string): string | undefined {
  switch (platform) {
    case 'mas':
    case 'darwin':
      return 'Electron.app/Contents/MacOS/Electron'
    case 'freebsd':
    case 'openbsd':
    case 'linux':
      return 'electron'
    case 'win32':
      return 'electron.exe'
    default:
      return undefined
  }
}

function readElectronPackage(electronDir: string): { version: string; installer: string } {
  const file = path.join(electronDir, 'package.json')
  let parsed: unknown
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (error) {
    throw new Error(
      `Cannot read the electron package at ${file} (${errorText(error)}). Run \`npm install\` first.`,
      { cause: error },
    )
  }
  const { version, bin } = (parsed ?? {}) as { version?: unknown; bin?: unknown }
  if (typeof version !== 'string' || version === '') {
    throw new Error(`${file} has no version. Run \`npm install\` again.`)
  }
  const installer = (bin as Record<string, unknown> | undefined)?.['install-electron']
  return { version, installer: typeof installer === 'string' ? installer : 'install.js' }
}

type InstallerRun =
  | { outcome: 'done' }
  | { outcome: 'failed'; exitCode: number | null; output: string }
  | { outcome: 'timed-out'; timeoutMs: number }
  | { outcome: 'not-started'; error: string }

function runInstaller(
  electronDir: string,
  installer: string,
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs: number,
): Promise<InstallerRun> {
  return new Promise((resolve) => {
    let output = ''
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-keptOutputChars)
    }
    const child = spawn(process.execPath, [path.join(electronDir, installer)], {
      cwd: electronDir,
      env: { ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill()
    }, timeoutMs)
    child.once('error', (error) => {
      clearTimeout(timer)
      resolve({ outcome: 'not-started', error: error.message })
    })
    child.once('close', (exitCode) => {
      clearTimeout(timer)
      if (timedOut) resolve({ outcome: 'timed-out', timeoutMs })
      else if (exitCode === 0) resolve({ outcome: 'done' })
      else resolve({ outcome: 'failed', exitCode, output })
    })
  })
}

function failureMessage(version: string, run: Exclude<InstallerRun, { outcome: 'done' }>): string {
  const instead =
    `Or point ELECTRON_EXEC_PATH at an Electron ${version} binary you already have ` +
    '(`npm run preview:web` runs the app in a browser without Electron).'
  switch (run.outcome) {
    case 'not-started':
      return `Cannot start Electron's installer: ${run.error}.`
    case 'timed-out':
      return [
        `Electron ${version} is not installed, and its download did not finish within ${describeDuration(run.timeoutMs)}.`,
        'Check the network (behind a proxy, set HTTPS_PROXY) and run `npm start` again.',
        instead,
      ].join('\n')
    case 'failed': {
      const cause = firstErrorLine(run.output)
      if (unreachable.test(run.output)) {
        return [
          `Electron ${version} is not installed, and it cannot be downloaded: the network, or the server to download it from, cannot be reached (${cause}).`,
          '`npm start` needs it once per checkout, from GitHub (or ELECTRON_MIRROR). Connect to the network (behind a proxy, set HTTPS_PROXY) and run `npm start` again.',
          instead,
        ].join('\n')
      }
      return [
        `Electron ${version} is not installed, and its installer failed (exit code ${String(run.exitCode)}): ${cause}.`,
        'Delete node_modules/electron, run `npm install`, then `npm start` again.',
        instead,
      ].join('\n')
    }
  }
}

/** The installer prints an error's stack: its first line says what went wrong. */
function firstErrorLine(output: string): string {
  const lines = output.split(/\r?\n/).map((line) => line.trim())
  const error = lines.find((line) => /(Error|error)\b.*:/.test(line) && !line.startsWith('at '))
  const line = error ?? lines.filter((text) => text !== '').at(-1) ?? 'it printed nothing'
  return line.length > 300 ? `${line.slice(0, 300)}…` : line
}

function describeDuration(ms: number): string {
  const [count, unit] =
    ms >= 60_000 ? [Math.round(ms / 60_000), 'minute'] : [Math.ceil(ms / 1000), 'second']
  return `${count} ${unit}${count === 1 ? '' : 's'}`
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function electronPackageDir(): string | undefined {
  try {
    return path.dirname(createRequire(import.meta.url).resolve('electron/package.json'))
  } catch {
    return undefined
  }
}

if (import.meta.main) {
  const electronDir = electronPackageDir()
  if (electronDir === undefined) {
    console.error('npm start: the electron package is not installed. Run `npm install` first.')
    process.exit(1)
  }
  const check = await ensureElectron({ electronDir })
  if (check.status === 'failed') {
    console.error(`npm start: ${check.message}`)
    process.exit(1)
  }
  if (check.status === 'fetched') console.error(`Electron is installed: ${check.executable}`)
}
