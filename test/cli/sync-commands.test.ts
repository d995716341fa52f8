import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { requirement } from '../support/environment.ts'
import {
  secretServiceInstalled,
  startSecretService,
  type SecretService,
} from '../support/secret-service.ts'

const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')
let sim: VaultSim
let dataDir: string
let token: string
let main: number

beforeAll(async () => {
  sim = await startDemoSnapshotSim({
    port: 0,
    exportTiming: { startDelayMs: 5, durationMs: 20 },
  })
  token = sim.cast.users.admin.tokens[0]!
  main = sim.cast.vaults.main.id
})
afterAll(() => sim.stop())
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-cli-'))
})
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }))

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the real executable (asynchronously: the simulator answers from this process). */
function vaultDesk(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; stdin?: string } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const { DBUS_SESSION_BUS_ADDRESS: _bus, ...inherited } = process.env
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...inherited, VAULT_DESK_DATA_DIR: dataDir, ...options.env },
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdin.end(options.stdin ?? '')
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}

const headless = () => ['--base-url', sim.baseUrl, '--token-env', 'VD_TOKEN']
const withToken = () => ({ env: { VD_TOKEN: token } })

describe('vault-desk sync, status and find, headless (nothing saved)', { timeout: 180_000 }, () => {
  it('syncs with progress on stderr and one summary document on stdout', async () => {
    const run = await vaultDesk(['sync', ...headless(), '--json'], withToken())
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toMatch(/molecules: \d+/)
    const summary = JSON.parse(run.stdout)
    expect(Object.keys(summary).sort()).toEqual(['durationMs', 'outbox', 'requests', 'vaults'])
    expect(summary.outbox).toEqual({
      sent: 0,
      queued: 0,
      needsAttention: 0,
      conflict: 0,
      uncertain: 0,
      sentHere: true,
    })
    expect(summary.requests).toBeGreaterThan(20)
    const demo = summary.vaults.find((vault: { id: number }) => vault.id === main)
    expect(demo).toMatchObject({
      name: 'Vault Desk Demo',
      counts: { molecules: 2000, protocols: 4 },
    })
    expect(Date.parse(demo.lastSync)).not.toBeNaN()
    expect(run.stdout + run.stderr).not.toContain(token)

    const found = await vaultDesk(
      ['find', ...headless(), '--vault', String(main), '--limit', '3', '--json'],
      withToken(),
    )
    expect(found.code, found.stderr).toBe(0)
    const result = JSON.parse(found.stdout)
    expect(result).toMatchObject({ kind: 'molecules', count: 2000 })
    expect(result.records).toHaveLength(3)
    expect(result.records[0]).toHaveProperty('smiles')

    const protocols = await vaultDesk(
      ['find', ...headless(), '--vault', String(main), 'protocols', '--json'],
      withToken(),
    )
    expect(JSON.parse(protocols.stdout)).toMatchObject({ kind: 'protocols', count: 4 })
    const byText = await vaultDesk(
      ['find', ...headless(), '--vault', String(main), '--text', result.records[0].name, '--json'],
      withToken(),
    )
    expect(JSON.parse(byText.stdout).records.map((record: { id: number }) => record.id)).toContain(
      result.records[0].id,
    )
    const formula = result.records[0].formula as string
    const byField = await vaultDesk(
      ['find', ...headless(), '--vault', String(main), '--field', `formula=${formula}`, '--json'],
      withToken(),
    )
    const matches = JSON.parse(byField.stdout).records as { formula: string }[]
    expect(matches.length).toBeGreaterThan(0)
    expect(matches.every((record) => record.formula === formula)).toBe(true)

    const status = await vaultDesk(['status', ...headless(), '--json'], withToken())
    expect(status.code, status.stderr).toBe(0)
    const report = JSON.parse(status.stdout)
    expect(report.outboxPending).toBe(0)
    expect(report.connections).toEqual([
      expect.objectContaining({
        online: true,
        tokenPlace: 'environment',
        lastSync: expect.any(String),
      }),
    ])
    expect(
      report.connections[0].vaults.find((vault: { id: number }) => vault.id === main).counts
        .molecules,
    ).toBe(2000)
  })

  it('finds offline what it synced, and says offline with exit code 3 when the server is gone', async () => {
    expect(
      (await vaultDesk(['sync', ...headless(), '--vault', String(main)], withToken())).code,
    ).toBe(0)
    sim.faults.set({ dropRate: 1 })
    try {
      const sync = await vaultDesk(['sync', ...headless(), '--json'], withToken())
      expect(sync.code).toBe(3)
      expect(JSON.parse(sync.stdout).error.code).toBe('offline')
      const status = await vaultDesk(['status', ...headless(), '--json'], withToken())
      expect(JSON.parse(status.stdout).connections[0]).toMatchObject({ online: false })
      const found = await vaultDesk(
        ['find', ...headless(), '--vault', String(main), '--json'],
        withToken(),
      )
      expect(found.code).toBe(0)
      expect(JSON.parse(found.stdout).count).toBe(2000)
    } finally {
      sim.faults.clear()
    }
    const unreachable = await vaultDesk(
      ['sync', '--base-url', 'http://127.0.0.1:9/api/v1', '--token-env', 'VD_TOKEN'],
      withToken(),
    )
    expect(unreachable.code).toBe(3)
  })

  it('sends what the outbox holds after the pull, and says what waits for the person', async () => {
    const moleculeId = (
      sim.core.db.prepare('SELECT MIN(id) AS id FROM molecules WHERE vault_id = ?').get(main) as {
        id: number
      }
    ).id
    const spectrum = path.join(dataDir, 'sync-spectrum.csv')
    fs.writeFileSync(spectrum, 'ppm,intensity\n7.26,100\n')
    const orphan = path.join(dataDir, 'sync-orphan.txt')
    fs.writeFileSync(orphan, 'no such molecule')
    const upload = (file: string, target: string) =>
      vaultDesk(
        ['upload', ...headless(), '--vault', String(main), '--to', target, file, '--json'],
        withToken(),
      )
    // A refused upload waits for the person; sending what is queued never resends it.
    const refused = await upload(orphan, 'molecule:999999')
    expect(refused.code).toBe(1)
    // The server fails uploads for a while: the item stays queued, for the next sync.
    sim.faults.set({ serverErrorRate: 1, match: /^POST .*\/files/ })
    let queued: Run
    try {
      queued = await upload(spectrum, `molecule:${moleculeId}`)
    } finally {
      sim.faults.clear()
    }
    expect(queued.code, queued.stderr).toBe(0)
    expect(JSON.parse(queued.stdout).items).toEqual([
      expect.objectContaining({
        state: 'queued',
        lastError: 'Injected server error',
      }),
    ])
    const filesNamed = (name: string) =>
      sim.core.db
        .prepare('SELECT resource_class, resource_id FROM uploaded_files WHERE name = ?')
        .all(name)
    expect(filesNamed('sync-spectrum.csv')).toEqual([])

    const sync = await vaultDesk(
      ['sync', ...headless(), '--vault', String(main), '--json'],
      withToken(),
    )
    expect(sync.code, sync.stderr).toBe(0)
    expect(JSON.parse(sync.stdout).outbox).toEqual({
      sent: 1,
      queued: 0,
      needsAttention: 1,
      conflict: 0,
      uncertain: 0,
      sentHere: true,
    })
    expect(sync.stderr).toContain("1 outbox item waits for you: see 'vault-desk outbox list'.")
    expect(filesNamed('sync-spectrum.csv')).toEqual([
      { resource_class: 'molecule', resource_id: moleculeId },
    ])

    // Nothing is sent twice; the human summary says what the outbox did.
    const again = await vaultDesk(['sync', ...headless(), '--vault', String(main)], withToken())
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain(
      'Outbox: 0 sent; 0 still queued, 1 need attention, 0 in conflict, 0 uncertain.',
    )
    expect(filesNamed('sync-spectrum.csv')).toHaveLength(1)
  })

  it('answers a refused token with exit code 4 and usage mistakes with exit code 2', async () => {
    const refused = await vaultDesk(['sync', ...headless()], { env: { VD_TOKEN: 'not-a-token' } })
    expect(refused.code).toBe(4)
    expect(refused.stderr).toMatch(/token/i)
    expect((await vaultDesk(['find', ...headless()], withToken())).code).toBe(2)
    expect((await vaultDesk(['sync', '--base-url', sim.baseUrl], withToken())).code).toBe(2)
    expect((await vaultDesk(['sync', ...headless()], { env: {} })).code).toBe(2)
    const kind = await vaultDesk(
      ['find', ...headless(), '--vault', String(main), 'potions'],
      withToken(),
    )
    expect(kind.code).toBe(2)
    expect(kind.stderr).toContain('Unknown record kind "potions"')
    // A token is never taken from the command line.
    expect(
      (await vaultDesk(['connect', '--name', 'X', '--base-url', sim.baseUrl, '--token', token]))
        .code,
    ).toBe(2)
  })
})

const canUseKeychain =
  process.platform === 'linux' && requirement(secretServiceInstalled(), 'D-Bus with GNOME Keyring')

describe.runIf(canUseKeychain)('vault-desk connect, then --connection NAME', () => {
  let secrets: SecretService
  beforeAll(async () => {
    secrets = await startSecretService('unlocked')
  })
  afterAll(() => secrets?.stop())

  it('saves a connection with the token from stdin, and syncs, reports and finds by its name', async () => {
    const env = { ...secrets.env }
    const connect = await vaultDesk(
      ['connect', '--name', 'Lab', '--base-url', sim.baseUrl, '--json'],
      {
        env,
        stdin: `${token}\n`,
      },
    )
    expect(connect.code, connect.stderr).toBe(0)
    expect(JSON.parse(connect.stdout)).toMatchObject({
      connection: { name: 'Lab' },
      tokenPlace: 'keychain',
    })
    const sync = await vaultDesk(
      ['sync', '--connection', 'Lab', '--vault', String(main), '--json'],
      { env },
    )
    expect(sync.code, sync.stderr).toBe(0)
    expect(JSON.parse(sync.stdout).vaults).toEqual([expect.objectContaining({ id: main })])
    const status = await vaultDesk(['status', '--json'], { env })
    expect(JSON.parse(status.stdout).connections).toEqual([
      expect.objectContaining({ name: 'Lab', tokenPlace: 'keychain', online: true }),
    ])
    // With one saved connection, --connection may be left out.
    const found = await vaultDesk(['find', '--vault', String(main), 'batches', '--json'], { env })
    expect(JSON.parse(found.stdout).count).toBeGreaterThan(2000)
  })

  it('explains a missing keychain and points to --token-env (exit code 4)', async () => {
    const run = await vaultDesk(['connect', '--name', 'Lab', '--base-url', sim.baseUrl], {
      env: { HOME: dataDir },
      stdin: token,
    })
    expect(run.code).toBe(4)
    expect(run.stderr).toMatch(/keychain/)
    expect(run.stderr).toContain('--token-env')
    expect(run.stderr).not.toContain(token)
  })
})
