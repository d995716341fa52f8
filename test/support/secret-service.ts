/**
 * A private, throwaway Secret Service for tests: its own D-Bus session bus and its own GNOME
 * Keyring with a temporary HOME, so that tests use the real keychain code path without touching
 * the developer's keyring. Set `env` on the process (before keytar is first used: libsecret keeps
 * its first bus connection) or pass it to a child process.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const keyringPassword = 'vault-desk-test-keyring'

/**
 * unlocked: a keyring that accepts tokens; locked: one that exists but is locked, with no unlock
 * prompt possible; absent: a session bus on which no Secret Service runs.
 */
export type KeyringState = 'unlocked' | 'locked' | 'absent'

export interface SecretService {
  /** DBUS_SESSION_BUS_ADDRESS and the HOME/XDG folders of this keyring. */
  readonly env: Record<string, string>
  stop(): Promise<void>
}

export function secretServiceInstalled(): boolean {
  return ['dbus-daemon', 'dbus-send', 'gnome-keyring-daemon'].every(onPath)
}

export async function startSecretService(state: KeyringState = 'unlocked'): Promise<SecretService> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-keyring-'))
  const processes: ChildProcess[] = []
  const stop = async () => {
    for (const child of processes.reverse()) await terminate(child)
    fs.rmSync(root, { recursive: true, force: true })
  }
  try {
    const bus = await startBus(root)
    processes.push(bus.process)
    const env = keyringEnv(root, bus.address)
    if (state !== 'absent') {
      const keyring = await startKeyring(env, true)
      if (state === 'locked') {
        // The first run creates the login keyring; a run without the password leaves it locked.
        await terminate(keyring)
        processes.push(await startKeyring(env, false))
      } else {
        processes.push(keyring)
      }
    }
    return { env, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

function keyringEnv(root: string, busAddress: string): Record<string, string> {
  const folders = {
    HOME: path.join(root, 'home'),
    XDG_DATA_HOME: path.join(root, 'data'),
    XDG_CONFIG_HOME: path.join(root, 'config'),
    XDG_RUNTIME_DIR: path.join(root, 'run'),
  }
  for (const folder of Object.values(folders)) fs.mkdirSync(folder, { mode: 0o700 })
  return { DBUS_SESSION_BUS_ADDRESS: busAddress, ...folders }
}

async function startBus(root: string): Promise<{ process: ChildProcess; address: string }> {
  const config = path.join(root, 'bus.conf')
  fs.writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=${root}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
`,
  )
  // No service directories: nothing is started on demand, so "absent" really has no keyring.
  const bus = spawn('dbus-daemon', [`--config-file=${config}`, '--nofork', '--print-address=1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const address = await new Promise<string>((resolve, reject) => {
    let output = ''
    bus.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const line = output.split('\n')[0]
      if (output.includes('\n') && line) resolve(line.trim())
    })
    bus.once('error', reject)
    bus.once('exit', (code) => reject(new Error(`dbus-daemon exited with ${code}`)))
  })
  return { process: bus, address }
}

async function startKeyring(env: Record<string, string>, unlock: boolean): Promise<ChildProcess> {
  const args = ['--foreground', '--components=secrets', ...(unlock ? ['--unlock'] : [])]
  const keyring = spawn('gnome-keyring-daemon', args, {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['pipe', 'ignore', 'ignore'],
  })
  keyring.stdin!.end(unlock ? keyringPassword : '')
  try {
    await waitUntilReady(keyring, env)
    return keyring
  } catch (error) {
    await terminate(keyring)
    throw error
  }
}

async function waitUntilReady(keyring: ChildProcess, env: Record<string, string>): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!(await secretsNameOwned(env))) {
    if (keyring.exitCode !== null)
      throw new Error(`gnome-keyring-daemon exited with ${keyring.exitCode}`)
    if (Date.now() > deadline) throw new Error('gnome-keyring-daemon did not start within 10 s')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

async function secretsNameOwned(env: Record<string, string>): Promise<boolean> {
  const { stdout } = await run(
    'dbus-send',
    [
      '--session',
      '--print-reply',
      '--dest=org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus.NameHasOwner',
      'string:org.freedesktop.secrets',
    ],
    { env: { ...process.env, ...env } },
  )
  return stdout.includes('boolean true')
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir !== '' && fs.existsSync(path.join(dir, command)))
}
