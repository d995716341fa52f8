import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { maxErrorTextLength } from '../../src-main/shared/error-text.ts'
import {
  loopbackServer,
  type LoopbackHandler,
  type LoopbackServer,
} from '../api/support/loopback-server.ts'

const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')
const token = 'tok-cli-echo-3b8d41'
let dataDir: string
const servers: LoopbackServer[] = []

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-cli-'))
})
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
  fs.rmSync(dataDir, { recursive: true, force: true })
})

async function serve(handler: LoopbackHandler): Promise<LoopbackServer> {
  const server = await loopbackServer(handler)
  servers.push(server)
  return server
}

/** Runs the real executable against `server` with the token in its environment. */
function vaultDesk(
  args: string[],
  server: LoopbackServer,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [bin, ...args, '--base-url', server.url, '--token-env', 'VD_TOKEN'],
      { env: { ...process.env, VAULT_DESK_DATA_DIR: dataDir, VD_TOKEN: token } },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdin.end()
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('vault-desk and a server that echoes the token at length', () => {
  it('prints the title of an HTML error page, without the token', async () => {
    const server = await serve((request, response) => {
      const echoed = String(request.headers['x-svc-token'])
      response.writeHead(400, { 'Content-Type': 'text/html' })
      response.end(
        `<!doctype html><title>Rejected ${echoed}</title><body>${`<p>${echoed}</p>`.repeat(20_000)}`,
      )
    })
    const run = await vaultDesk(['sync', '--json'], server)
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('Rejected [redacted]')
    expect(run.stderr).not.toContain(token)
    expect(run.stderr).not.toContain('<p>')
    expect(JSON.parse(run.stdout).error.message).toContain('Rejected [redacted]')
    expect(run.stdout).not.toContain(token)
  })

  it('prints at most 2,000 characters of a long text error, without the token', async () => {
    const server = await serve((request, response) => {
      response.writeHead(400, { 'Content-Type': 'text/plain' })
      response.end(`no access for ${String(request.headers['x-svc-token'])}\n`.repeat(10_000))
    })
    const run = await vaultDesk(['sync', '--json'], server)
    expect(run.code).toBe(1)
    expect(run.stderr).not.toContain(token)
    expect(run.stdout).not.toContain(token)
    const message: string = JSON.parse(run.stdout).error.message
    expect(message.length).toBeLessThanOrEqual(maxErrorTextLength)
    expect(message).toContain('no access for [redacted]')
    expect(run.stderr.length).toBeLessThan(maxErrorTextLength + 200)
  })
})
