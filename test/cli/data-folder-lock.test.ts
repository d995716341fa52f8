import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')
const holderScript = path.resolve(import.meta.dirname, '../services/lock-holder-child.ts')
let dataDir: string
const children: ChildProcess[] = []

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-cli-lock-'))
})
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const env = () => ({ ...process.env, VAULT_DESK_DATA_DIR: dataDir })

function vaultDesk(args: string[]) {
  const run = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: env() })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

/** Another process (standing for the app) holding the data folder until its stdin closes. */
async function holdFolder(): Promise<{ child: ChildProcess; pid: number }> {
  const child = spawn(process.execPath, [holderScript, dataDir, 'the Vault Desk app'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  children.push(child)
  const line = await new Promise<string>((resolve) => {
    let text = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8')
      if (text.includes('\n')) resolve(text.split('\n')[0]!)
    })
  })
  const answer = JSON.parse(line) as { held: boolean; pid: number }
  expect(answer.held).toBe(true)
  return { child, pid: answer.pid }
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)))
}

describe('vault-desk beside the process that holds the data folder', () => {
  it('runs read commands', async () => {
    await holdFolder()
    expect(vaultDesk(['status'])).toMatchObject({ code: 0, stdout: 'No connection is saved.\n' })
    expect(vaultDesk(['outbox', 'list'])).toMatchObject({ code: 0 })
    expect(vaultDesk(['info', '--json']).code).toBe(0)
  })

  it('refuses commands that sync or send with exit code 5, naming the holder', async () => {
    const { pid } = await holdFolder()
    for (const args of [['sync'], ['outbox', 'send'], ['outbox', 'retry', '1']]) {
      const run = vaultDesk(args)
      expect(run.code, args.join(' ')).toBe(5)
      expect(run.stderr).toContain(`Vault Desk app (pid ${pid} on ${os.hostname()}`)
      expect(run.stderr).toContain('--wait')
    }
    const json = vaultDesk(['outbox', 'send', '--json'])
    expect(json.code).toBe(5)
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'data_folder_busy' })
    // Nothing was sent or queued by the refused commands: the outbox was never opened by them.
    expect(vaultDesk(['outbox', 'list', '--all']).stdout).toBe('The outbox is empty.\n')
  })

  it('gives up after --wait-timeout, and rejects a bad one', async () => {
    await holdFolder()
    const run = vaultDesk(['outbox', 'send', '--wait', '--wait-timeout', '1'])
    expect(run.code).toBe(5)
    expect(run.stderr).toContain('waiting up to 1 s')
    expect(run.stderr).toContain('It still did after 1 s.')
    const bad = vaultDesk(['outbox', 'send', '--wait-timeout', 'soon'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--wait-timeout takes a number of seconds')
  })

  it('with --wait, waits for the holder to end and then proceeds', async () => {
    const holder = await holdFolder()
    const waiting = spawn(process.execPath, [bin, 'outbox', 'send', '--wait'], { env: env() })
    children.push(waiting)
    let stdout = ''
    let stderr = ''
    waiting.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    const saidWaiting = new Promise<void>((resolve) =>
      waiting.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8')
        if (stderr.includes('waiting up to')) resolve()
      }),
    )
    await saidWaiting
    expect(stderr).toContain(`pid ${holder.pid}`)
    expect(waiting.exitCode).toBeNull()
    holder.child.stdin!.end()
    expect(await exited(holder.child)).toBe(0)
    expect(await exited(waiting)).toBe(0)
    expect(stdout).toBe('0 sent; 0 still queued, 0 need attention, 0 in conflict, 0 uncertain.\n')
    // It released the folder when it finished.
    expect(fs.existsSync(path.join(dataDir, 'vault-desk.lock'))).toBe(false)
  }, 30_000)

  it('takes over the lock of a holder that was killed', async () => {
    const holder = await holdFolder()
    holder.child.kill('SIGKILL')
    await exited(holder.child)
    expect(fs.existsSync(path.join(dataDir, 'vault-desk.lock'))).toBe(true)
    expect(vaultDesk(['outbox', 'send']).code).toBe(0)
  })

  it('documents exit code 5 and --wait in its help', () => {
    const help = vaultDesk(['--help']).stdout
    expect(help).toContain('5 another Vault Desk process')
    expect(help).toContain('--wait')
  })
})
