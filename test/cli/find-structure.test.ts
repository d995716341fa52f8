/**
 * `vault-desk find` with structure searches: the real executable, a headless connection to the
 * simulator over loopback, the index built by the first search (progress on stderr).
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'

const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')
let sim: VaultSim
let dataDir: string
let token: string
let main: number

/** Written for this test. */
const molecules: [string, string][] = [
  ['Phenol', 'Oc1ccccc1'],
  ['Paracetamol', 'CC(=O)Nc1ccc(O)cc1'],
  ['Salicylic acid', 'OC(=O)c1ccccc1O'],
  ['Benzoic acid', 'OC(=O)c1ccccc1'],
  ['Pyridine', 'c1ccncc1'],
  ['Cyclohexanol', 'OC1CCCCC1'],
  ['Ethanol', 'CCO'],
]

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function vaultDesk(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const { DBUS_SESSION_BUS_ADDRESS: _bus, ...inherited } = process.env
    const child = spawn(
      process.execPath,
      [bin, ...args, '--base-url', sim.baseUrl, '--token-env', 'VD_TOKEN'],
      { env: { ...inherited, VAULT_DESK_DATA_DIR: dataDir, VD_TOKEN: token } },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdin.end('')
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}

beforeAll(async () => {
  sim = await startVaultSim({ port: 0, seed: 'empty' })
  token = sim.cast.users.admin.tokens[0]!
  main = sim.cast.vaults.main.id
  for (const [name, smiles] of molecules) {
    const response = await fetch(`${sim.baseUrl}/vaults/${main}/molecules`, {
      method: 'POST',
      headers: { 'X-SVC-Token': token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name, smiles, projects: [sim.cast.projects.kinase.id] }),
    })
    expect(response.status).toBe(200)
  }
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-cli-find-'))
  const synced = await vaultDesk(['sync', '--vault', String(main)])
  expect(synced.code, synced.stderr).toBe(0)
}, 60_000)

afterAll(async () => {
  await sim?.stop()
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
})

describe('vault-desk find with structures', { timeout: 180_000 }, () => {
  it('builds the index on first need, then finds substructures with the usual output', async () => {
    const run = await vaultDesk(['find', '--vault', String(main), '--substructure', 'c1ccccc1O'])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toContain(`Indexing the structures of vault ${main}`)
    expect(run.stderr).toContain(`structures indexed: ${molecules.length}/${molecules.length}`)
    expect(run.stdout).toMatch(/^3 molecules\n/)
    for (const name of ['Phenol', 'Paracetamol', 'Salicylic acid'])
      expect(run.stdout).toContain(name)

    const json = await vaultDesk([
      'find',
      '--vault',
      String(main),
      '--substructure',
      '[CX3](=O)[OX2H1]',
      '--text',
      'acid',
      '--json',
    ])
    expect(json.code, json.stderr).toBe(0)
    expect(json.stderr).toBe('')
    const found = JSON.parse(json.stdout)
    expect(found).toMatchObject({ kind: 'molecules', count: 2, skippedUnparseable: 0 })
    expect(found.records.map((record: { name: string }) => record.name).sort()).toEqual([
      'Benzoic acid',
      'Salicylic acid',
    ])
    expect(found.records[0]).toHaveProperty('smiles')
  })

  it('ranks similar molecules with a similarity per record, by top k or threshold', async () => {
    const top = await vaultDesk([
      'find',
      '--vault',
      String(main),
      '--similar',
      'Oc1ccccc1',
      '--top',
      '2',
      '--json',
    ])
    expect(top.code, top.stderr).toBe(0)
    const ranked = JSON.parse(top.stdout)
    expect(ranked.count).toBe(2)
    expect(ranked.records[0]).toMatchObject({ name: 'Phenol', similarity: 1 })
    expect(ranked.records[1].similarity).toBeLessThan(1)

    const human = await vaultDesk([
      'find',
      '--vault',
      String(main),
      '--similar',
      'OC(=O)c1ccccc1',
      '--threshold',
      '0.5',
    ])
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).toMatch(/Benzoic acid {2}1\.000/)
    expect(human.stdout).not.toContain('Ethanol')
  })

  it('answers a bad query or bad flags with exit code 2 and what is wrong', async () => {
    const bad = await vaultDesk([
      'find',
      '--vault',
      String(main),
      '--substructure',
      'C1CC(',
      '--json',
    ])
    expect(bad.code).toBe(2)
    expect(JSON.parse(bad.stdout).error).toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/SMILES|SMARTS/),
    })
    const both = await vaultDesk([
      'find',
      '--vault',
      String(main),
      '--substructure',
      'CC',
      '--similar',
      'CC',
    ])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('--substructure and --similar')
    const loose = await vaultDesk(['find', '--vault', String(main), '--threshold', '0.4'])
    expect(loose.code).toBe(2)
    expect(loose.stderr).toContain('--similar')
    const range = await vaultDesk([
      'find',
      '--vault',
      String(main),
      '--similar',
      'CCO',
      '--top',
      '0',
    ])
    expect(range.code).toBe(2)
    expect(range.stderr).toContain('--top')
  })
})
