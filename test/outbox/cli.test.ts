import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { networkSwitch, type NetworkSwitch } from './support/network-switch.ts'

const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')
let sim: VaultSim
let network: NetworkSwitch
let dataDir: string
let vaultId: number
let moleculeId: number

beforeAll(async () => {
  sim = await startVaultSim({ port: 0, seed: 12 })
  network = await networkSwitch(Number(new URL(sim.baseUrl).port))
  vaultId = sim.cast.vaults.main.id
  moleculeId = (sim.core.db.prepare('SELECT MIN(id) AS id FROM molecules').get() as { id: number })
    .id
})
afterAll(async () => {
  await network.close()
  await sim.stop()
})
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-outbox-cli-'))
})
afterEach(async () => {
  await network.on()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the real executable (asynchronously: the simulator answers from this process). */
function vaultDesk(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const { DBUS_SESSION_BUS_ADDRESS: _bus, ...inherited } = process.env
    const child = spawn(
      process.execPath,
      [
        bin,
        ...args,
        '--base-url',
        `http://127.0.0.1:${network.port}/api/v1`,
        '--token-env',
        'VD_TOKEN',
      ],
      {
        env: {
          ...inherited,
          VAULT_DESK_DATA_DIR: dataDir,
          VD_TOKEN: sim.cast.users.writer.tokens[0]!,
          ...env,
        },
      },
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

function file(name: string, contents: string): string {
  const target = path.join(dataDir, 'originals', name)
  fs.mkdirSync(path.dirname(target), { recursive: true })
  fs.writeFileSync(target, contents)
  return target
}

describe('vault-desk upload, import and outbox', { timeout: 180_000 }, () => {
  it('queues only beside the app holding the data folder, which sends it', async () => {
    const holder = spawn(
      process.execPath,
      [
        path.resolve(import.meta.dirname, '../services/lock-holder-child.ts'),
        dataDir,
        'the Vault Desk app',
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    )
    await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()))
    try {
      const spectrum = file('beside-the-app.csv', 'ppm,intensity\n7.26,100\n')
      const upload = await vaultDesk([
        'upload',
        '--vault',
        String(vaultId),
        '--to',
        `molecule:${moleculeId}`,
        spectrum,
        '--json',
      ])
      expect(upload.code, upload.stderr).toBe(0)
      expect(upload.stderr).toContain('queued only: the Vault Desk app')
      expect(JSON.parse(upload.stdout)).toMatchObject({
        sentHere: false,
        items: [
          { state: 'queued', summary: `Attach beside-the-app.csv to molecule ${moleculeId}` },
        ],
      })
    } finally {
      holder.stdin!.end()
      await new Promise((resolve) => holder.once('exit', resolve))
    }
    // The holder gone, whoever sends next sends it.
    const send = await vaultDesk(['outbox', 'send'])
    expect(send.code, send.stderr).toBe(0)
    expect(send.stdout).toMatch(/^1 sent;/)
  })

  it('queues offline and returns at once, then sends what is queued when the server is back', async () => {
    await network.off()
    const spectrum = file('spectrum.csv', 'ppm,intensity\n7.26,100\n')
    const upload = await vaultDesk([
      'upload',
      '--vault',
      String(vaultId),
      '--to',
      `molecule:${moleculeId}`,
      spectrum,
      '--json',
    ])
    expect(upload.code, upload.stderr).toBe(0)
    const queued = JSON.parse(upload.stdout)
    expect(queued).toMatchObject({
      sentHere: true,
      items: [{ state: 'queued', summary: `Attach spectrum.csv to molecule ${moleculeId}` }],
    })
    expect(queued.items[0].lastError).toMatch(/ECONNREFUSED/)
    // The original may now move or change: the outbox keeps its own copy.
    fs.rmSync(spectrum)

    const imported = await vaultDesk([
      'import',
      '--vault',
      String(vaultId),
      file('hits.csv', 'SMILES,Compound\r\nCCOC,CLI hit 1\r\n'),
      '--project',
      'Kinase Inhibitors',
      '--mapping-template',
      'Vendor delivery (CSV)',
    ])
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stdout).toMatch(/Import hits.csv into project Kinase Inhibitors: queued/)

    const listed = await vaultDesk(['outbox', 'list', '--json'])
    expect(JSON.parse(listed.stdout).map((item: { state: string }) => item.state)).toEqual([
      'queued',
      'queued',
    ])

    await network.on()
    const sent = await vaultDesk(['outbox', 'send', '--json'])
    expect(sent.code, sent.stderr).toBe(0)
    expect(JSON.parse(sent.stdout)).toMatchObject({ sent: 2, queued: 0, sentHere: true })
    expect(
      sim.core.db
        .prepare('SELECT resource_id FROM uploaded_files WHERE name = ?')
        .get('spectrum.csv'),
    ).toEqual({ resource_id: moleculeId })
    expect(
      sim.core.db
        .prepare('SELECT COUNT(*) AS count FROM slurps WHERE file_name = ?')
        .get('hits.csv'),
    ).toEqual({
      count: 1,
    })
    const all = await vaultDesk(['outbox', 'list', '--all'])
    expect(all.stdout).toMatch(/#1 {2}sent {2}Attach spectrum.csv/)
  })

  it('sends as usual with VAULT_DESK_TEST_CRASH_AT set: no environment can kill its sender', async () => {
    // Tests crash a sender through the hook their own entry gives it (crash-points.ts); nothing a
    // person's environment holds may kill the app.
    for (const point of ['before-request', 'after-answer']) {
      const name = `reading-${point}.csv`
      const upload = await vaultDesk(
        [
          'upload',
          '--vault',
          String(vaultId),
          '--to',
          `molecule:${moleculeId}`,
          file(name, 'well,value\nA1,1\n'),
          '--json',
        ],
        { VAULT_DESK_TEST_CRASH_AT: point },
      )
      expect(upload, upload.stderr).toMatchObject({ code: 0 })
      expect(JSON.parse(upload.stdout)).toMatchObject({
        sentHere: true,
        items: [{ state: 'sent' }],
      })
      expect(
        sim.core.db
          .prepare('SELECT COUNT(*) AS count FROM uploaded_files WHERE name = ?')
          .get(name),
      ).toEqual({ count: 1 })
    }
  })

  it('reports a refused upload with its server message; the item is kept until discarded', async () => {
    const upload = await vaultDesk([
      'upload',
      '--vault',
      String(vaultId),
      '--to',
      'molecule:999999',
      file('orphan.txt', 'no such molecule'),
    ])
    expect(upload.code).toBe(1)
    expect(upload.stdout).toMatch(
      /#1 Attach orphan.txt to molecule 999999: needs attention: .*not found/i,
    )

    const retried = await vaultDesk(['outbox', 'retry', '1', '--json'])
    expect(retried.code, retried.stdout).toBe(1)
    expect(JSON.parse(retried.stdout).items[0].state).toBe('needs_attention')

    const discarded = await vaultDesk(['outbox', 'discard', '1'])
    expect(discarded.code).toBe(0)
    expect(discarded.stdout).toBe('Discarded #1.\n')
    expect((await vaultDesk(['outbox', 'list'])).stdout).toBe('The outbox is empty.\n')
  })

  it('explains bad input with exit code 2 and queues nothing', async () => {
    const badTarget = await vaultDesk(['upload', '--vault', String(vaultId), '--to', 'well:3', 'x'])
    expect(badTarget.code).toBe(2)
    expect(badTarget.stderr).toContain(
      '--to takes KIND:ID with KIND one of molecule, run, protocol, eln_entry, readout_row',
    )
    const missing = await vaultDesk([
      'upload',
      '--vault',
      String(vaultId),
      '--to',
      `molecule:${moleculeId}`,
      path.join(dataDir, 'nowhere.csv'),
    ])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('nowhere.csv: no such file')
    const badId = await vaultDesk(['outbox', 'retry', 'first'])
    expect(badId.code).toBe(2)
    expect((await vaultDesk(['outbox', 'list'])).stdout).toBe('The outbox is empty.\n')
  })
})
