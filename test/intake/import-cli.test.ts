import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'

const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')
let sim: VaultSim
let dataDir: string
let vaultId: number
let knownName: string

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

beforeAll(async () => {
  sim = await startVaultSim({ port: 0, seed: 12 })
  vaultId = sim.cast.vaults.main.id
  knownName = (
    sim.core.db
      .prepare('SELECT name FROM molecules WHERE vault_id = ? ORDER BY id LIMIT 1')
      .get(vaultId) as { name: string }
  ).name
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-import-check-'))
  const sync = await vaultDesk(['sync', '--vault', String(vaultId)])
  expect(sync.code, sync.stderr).toBe(0)
}, 120_000)

afterAll(async () => {
  await sim.stop()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

/** Runs the real executable (asynchronously: the simulator answers from this process). */
function vaultDesk(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const { DBUS_SESSION_BUS_ADDRESS: _bus, ...inherited } = process.env
    const child = spawn(
      process.execPath,
      [bin, ...args, '--base-url', sim.baseUrl, '--token-env', 'VD_TOKEN'],
      {
        env: {
          ...inherited,
          VAULT_DESK_DATA_DIR: dataDir,
          VD_TOKEN: sim.cast.users.writer.tokens[0]!,
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

const importArgs = (target: string, ...more: string[]) => [
  'import',
  '--vault',
  String(vaultId),
  target,
  '--mapping-template',
  'Vendor delivery (CSV)',
  ...more,
]

const queuedCount = async (): Promise<number> => {
  const listed = await vaultDesk(['outbox', 'list', '--all', '--json'])
  return (JSON.parse(listed.stdout) as unknown[]).length
}

// Each test runs the executable several times: a loaded machine takes seconds for each.
describe('vault-desk import checks the file first', { timeout: 180_000 }, () => {
  const faulty = () =>
    file(
      'delivery.csv',
      `Catalog ID;Compound;Received\nEN-1;${knownName};2026-11-01\nEN-2;Nobody at all;2026-11-02\n`,
    )

  it('--check prints the report, queues nothing and exits 1 on errors', async () => {
    const checked = await vaultDesk([...importArgs(faulty(), '--check'), '--json'])
    expect(checked.code, checked.stderr).toBe(1)
    const document = JSON.parse(checked.stdout)
    expect(document.queued).toBe(false)
    // The template's columns came from the vault: sync caches only its summary.
    expect(document.check).toMatchObject({ delimiter: ';', rows: 2, errors: 2, warnings: 0 })
    expect(
      document.check.problems.map(
        (p: { kind: string; row: number | null }) => `${p.kind}@${p.row}`,
      ),
    ).toEqual(['missing-column@null', 'unknown-reference@2'])

    const human = await vaultDesk(importArgs(faulty(), '--check'))
    expect(human.code).toBe(1)
    expect(human.stdout).toMatch(
      /delivery\.csv \(CSV, 2 rows, utf-8, delimiter ";"\): 2 errors, 0 warnings/,
    )
    expect(human.stdout).toMatch(
      /row 2, column "Compound": No cached molecule named "Nobody at all"/,
    )
    expect(await queuedCount()).toBe(0)
  })

  it('refuses to queue a file with errors unless --queue-anyway', async () => {
    const refused = await vaultDesk(importArgs(faulty(), '--project', 'Kinase Inhibitors'))
    expect(refused.code).toBe(1)
    expect(refused.stdout).toMatch(
      /Not queued: fix the errors, or queue the file as it is with --queue-anyway/,
    )
    expect(await queuedCount()).toBe(0)

    const anyway = await vaultDesk([
      ...importArgs(faulty(), '--project', 'Kinase Inhibitors', '--queue-anyway'),
      '--json',
    ])
    expect(anyway.code, anyway.stderr).toBe(0)
    expect(JSON.parse(anyway.stdout)).toMatchObject({ queued: true, check: { errors: 2 } })
    expect(await queuedCount()).toBe(1)
  })

  it('queues a clean file, and checks a clean file with exit 0', async () => {
    const clean = file(
      'clean.csv',
      `Catalog ID,Compound,Received,Appearance\nEN-3,${knownName},2026-11-03,white powder\n`,
    )
    const checked = await vaultDesk(importArgs(clean, '--check'))
    expect(checked.code, checked.stderr).toBe(0)
    expect(checked.stdout).toMatch(/0 errors, 0 warnings\nThe file can be imported\./)
    const before = await queuedCount()
    const queued = await vaultDesk(importArgs(clean, '--project', 'Kinase Inhibitors'))
    expect(queued.code, queued.stderr).toBe(0)
    expect(await queuedCount()).toBe(before + 1)
  })

  it("--check has the app's chemistry workers parse the file's structures", async () => {
    const withStructures = file(
      'structures.csv',
      `SMILES,Catalog ID,Compound,Received\nCCO,EN-4,${knownName},2026-11-04\nC(C)(C)(C)(C)C,EN-5,${knownName},2026-11-05\n`,
    )
    const checked = await vaultDesk([...importArgs(withStructures, '--check'), '--json'])
    expect(checked.code, checked.stderr).toBe(1)
    const { problems } = JSON.parse(checked.stdout).check as {
      problems: { kind: string; row: number; column: string; message: string }[]
    }
    expect(problems.filter((problem) => problem.kind === 'structure')).toEqual([
      expect.objectContaining({ row: 2, column: 'SMILES' }),
    ])
    expect(problems.find((problem) => problem.kind === 'structure')!.message).toMatch(
      /^The structure does not parse: Invalid SMILES: .*valence/i,
    )
  })

  it('refuses --check without a template, and --check with --queue-anyway', async () => {
    const clean = file('plain.csv', 'a\n1\n')
    expect((await vaultDesk(['import', '--vault', String(vaultId), clean, '--check'])).code).toBe(2)
    expect((await vaultDesk(importArgs(clean, '--check', '--queue-anyway'))).code).toBe(2)
  })
})
