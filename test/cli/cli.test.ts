import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')
let dataDir: string

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-cli-'))
})
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }))

/** Runs the real executable, as a person or a script would. */
function vaultDesk(args: string[], env: NodeJS.ProcessEnv = {}) {
  const run = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, VAULT_DESK_DATA_DIR: dataDir, ...env },
  })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

describe('vault-desk', { timeout: 180_000 }, () => {
  it('prints help with every command and the exit codes', () => {
    const { code, stdout } = vaultDesk(['--help'])
    expect(code).toBe(0)
    expect(stdout).toContain('usage: vault-desk <command>')
    expect(stdout).toContain('info')
    expect(stdout).toContain('3 offline or unreachable, 4 authentication')
  })

  it('prints the version, also as JSON', () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(bin, '../../package.json'), 'utf8'))
    expect(vaultDesk(['--version']).stdout.trim()).toBe(pkg.version)
    expect(JSON.parse(vaultDesk(['--version', '--json']).stdout)).toEqual({ version: pkg.version })
  })

  it('answers a usage error with exit code 2 and a message on stderr', () => {
    const unknown = vaultDesk(['frobnicate'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("unknown command 'frobnicate'")
    const badOption = vaultDesk(['info', '--colour'])
    expect(badOption.code).toBe(2)
    expect(badOption.stderr).toContain("'--colour'")
    expect(badOption.stderr).toContain('usage: vault-desk info')
    const none = vaultDesk([])
    expect(none.code).toBe(2)
    expect(none.stdout).toBe('')
  })

  it('prints one JSON document on stdout with --json', () => {
    const { code, stdout } = vaultDesk(['info', '--json'])
    expect(code).toBe(0)
    const info = JSON.parse(stdout)
    expect(info).toMatchObject({ name: 'Vault Desk', host: 'cli', dataDir })
    expect(fs.existsSync(info.logFile)).toBe(true)
  })

  it('takes --data-dir before or after the command, over the environment', () => {
    const chosen = path.join(dataDir, 'chosen')
    for (const args of [
      ['--data-dir', chosen, 'info', '--json'],
      ['info', `--data-dir=${chosen}`, '--json'],
    ]) {
      const { code, stdout } = vaultDesk(args)
      expect(code).toBe(0)
      expect(JSON.parse(stdout).dataDir).toBe(chosen)
    }
  })

  it('never touches the data directory for --help', () => {
    const untouched = path.join(dataDir, 'untouched')
    expect(vaultDesk(['info', '--help'], { VAULT_DESK_DATA_DIR: untouched }).code).toBe(0)
    expect(fs.existsSync(untouched)).toBe(false)
  })

  it('explains an unusable data directory with exit code 1, as JSON too', () => {
    const blocker = path.join(dataDir, 'a-file')
    fs.writeFileSync(blocker, '')
    const { code, stdout, stderr } = vaultDesk(['info', '--json', '--data-dir', blocker])
    expect(code).toBe(1)
    expect(stderr).toContain('vault-desk info:')
    expect(JSON.parse(stdout).error.code).toBeTypeOf('string')
  })
})
