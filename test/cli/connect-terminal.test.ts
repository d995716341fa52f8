import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { requirement } from '../support/environment.ts'

/**
 * `vault-desk connect` on a real pseudo-terminal (util-linux `script` runs it on one): a token
 * typed there must not be echoed back, into the terminal and its scrollback.
 */
const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')
const canUsePty =
  process.platform === 'linux' &&
  requirement(
    spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout?.includes('util-linux') ===
      true,
    'script from util-linux (a pseudo-terminal)',
  )

let dataDir: string
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-tty-'))
})
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }))

const quoted = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`

describe.runIf(canUsePty)('vault-desk connect at a terminal', () => {
  it('asks for the token and does not show it as it is typed', async () => {
    const token = 'tok-typed-at-a-terminal-6f0b'
    // Port 9 (discard) on loopback: nothing listens, so connect fails after reading the token.
    const command = [process.execPath, bin, 'connect', '--name', 'Lab']
      .concat(['--base-url', 'http://127.0.0.1:9/api/v1'])
      .map(quoted)
      .join(' ')
    const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
      env: { ...process.env, VAULT_DESK_DATA_DIR: dataDir },
    })
    let screen = ''
    const type = (keys: string) => {
      if (!child.stdin.writableEnded) child.stdin.end(keys)
    }
    // A build that never asks is typed to after a while (Ctrl-D ends its read), so that the test
    // fails on what it shows rather than by running out of time.
    const noPrompt = setTimeout(() => type(`${token}\r\u0004`), 10_000)
    child.stdout.on('data', (chunk: Buffer) => {
      screen += chunk.toString()
      // Typed only once the prompt is up: before it, the terminal would still echo.
      if (screen.includes('not shown as you type')) {
        clearTimeout(noPrompt)
        type(`${token}\r`)
      }
    })
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject)
      child.once('close', resolve)
    })
    expect(screen).not.toContain(token.slice(0, 8))
    expect(screen).toContain('API token (not shown as you type): ')
    // The token was read: connect went on to the server.
    expect(screen).toContain('Cannot reach http://127.0.0.1:9/api/v1')
    expect(code).toBe(3)
  })
})
