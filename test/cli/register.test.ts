/**
 * `vault-desk register`: the real executable, a headless connection to the simulator over a
 * loopback relay that can be switched off, the novelty check against the cached vault before
 * anything is queued.
 */
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { networkSwitch, type NetworkSwitch } from '../outbox/support/network-switch.ts'

const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')
let sim: VaultSim
let network: NetworkSwitch
let dataDir: string
let token: string
let main: number
let ai: number
const ids = new Map<string, number>()

/** Written for this test. */
const molecules: [string, string][] = [
  ['Paracetamol', 'CC(=O)Nc1ccc(O)cc1'],
  ['L-Alanine', 'C[C@H](N)C(=O)O'],
  ['Benzoic acid', 'OC(=O)c1ccccc1'],
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
      [
        bin,
        ...args,
        '--base-url',
        `http://127.0.0.1:${network.port}/api/v1`,
        '--token-env',
        'VD_TOKEN',
      ],
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

const kinase = () => String(sim.cast.projects.kinase.id)

beforeAll(async () => {
  sim = await startVaultSim({ port: 0, seed: 'empty' })
  network = await networkSwitch(Number(new URL(sim.baseUrl).port))
  token = sim.cast.users.admin.tokens[0]!
  main = sim.cast.vaults.main.id
  ai = sim.cast.vaults.ai.id
  for (const [name, smiles] of molecules) {
    const response = await fetch(`${sim.baseUrl}/vaults/${main}/molecules`, {
      method: 'POST',
      headers: { 'X-SVC-Token': token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name, smiles, projects: [sim.cast.projects.kinase.id] }),
    })
    expect(response.status).toBe(200)
    ids.set(name, ((await response.json()) as { id: number }).id)
  }
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-cli-register-'))
  const synced = await vaultDesk(['sync'])
  expect(synced.code, synced.stderr).toBe(0)
}, 120_000)

afterAll(async () => {
  await network?.close()
  await sim?.stop()
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
})

const serverRows = <T>(sql: string, ...args: unknown[]) =>
  sim.core.db.prepare(sql).all(...args) as T[]

// Each test runs the executable a few times: seconds each on a busy machine.
describe('vault-desk register', { timeout: 240_000 }, () => {
  it('refuses a structure the vault has, listing the matches with their relation', async () => {
    const salt = await vaultDesk([
      'register',
      '--vault',
      String(main),
      '--smiles',
      'CC(=O)Nc1ccc(O)cc1.Cl',
      '--name',
      'Paracetamol HCl',
      '--project',
      kinase(),
      '--json',
    ])
    expect(salt.code, salt.stderr).toBe(1)
    const refused = JSON.parse(salt.stdout)
    expect(refused.outcome).toBe('duplicates')
    expect(refused.novelty.matches).toContainEqual(
      expect.objectContaining({ relation: 'same-parent', id: ids.get('Paracetamol') }),
    )

    const stereo = await vaultDesk([
      'register',
      '--vault',
      String(main),
      '--smiles',
      'C[C@@H](N)C(=O)O',
      '--name',
      'D-Alanine',
      '--project',
      'Kinase Inhibitors',
    ])
    expect(stereo.code, stereo.stderr).toBe(1)
    expect(stereo.stdout).toContain(
      'Nothing was queued: the vault already has molecules like this structure.',
    )
    expect(stereo.stdout).toContain(`Same skeleton, other stereo: molecule ${ids.get('L-Alanine')}`)
    expect(serverRows('SELECT id FROM molecules WHERE name = ?', 'D-Alanine')).toEqual([])
  })

  it('registers anyway when told, and adds a batch to an existing molecule', async () => {
    const asNew = await vaultDesk([
      'register',
      '--vault',
      String(main),
      '--smiles',
      'C[C@@H](N)C(=O)O',
      '--name',
      'D-Alanine',
      '--project',
      kinase(),
      '--field',
      'Priority=3',
      '--duplicate',
      'new',
      '--json',
    ])
    expect(asNew.code, asNew.stderr).toBe(0)
    expect(JSON.parse(asNew.stdout)).toMatchObject({
      outcome: 'queued',
      sentHere: true,
      items: [{ operation: 'molecule.create', state: 'sent' }],
    })
    expect(serverRows('SELECT name FROM molecules WHERE name = ?', 'D-Alanine')).toHaveLength(1)

    const benzoic = ids.get('Benzoic acid')!
    const before = serverRows('SELECT id FROM batches WHERE molecule_id = ?', benzoic).length
    // Batch fields are written in registration vaults only: refused here, nothing queued.
    const withFields = await vaultDesk([
      'register',
      '--vault',
      String(main),
      '--smiles',
      'OC(=O)c1ccccc1',
      '--project',
      kinase(),
      '--batch-field',
      'Purity (%)=99.1',
      '--duplicate',
      `existing:${benzoic}`,
    ])
    expect(withFields.code, withFields.stderr).toBe(2)
    expect(withFields.stdout).toMatch(
      /batch\.fields: can only be set in a vault with a registration system/,
    )
    const batch = await vaultDesk([
      'register',
      '--vault',
      String(main),
      '--smiles',
      'OC(=O)c1ccccc1',
      '--project',
      kinase(),
      '--salt',
      'NA',
      '--duplicate',
      `existing:${benzoic}`,
    ])
    expect(batch.code, batch.stderr).toBe(0)
    expect(batch.stdout).toMatch(/Create a batch of molecule \d+: sent/)
    expect(serverRows('SELECT id FROM batches WHERE molecule_id = ?', benzoic)).toHaveLength(
      before + 1,
    )
  })

  it('reads the structure from a molfile', async () => {
    // Written by Debian's RDKit, as a drawing program would write it.
    const written = spawnSync(
      '/usr/bin/python3',
      [
        '-c',
        'from rdkit import Chem; print(Chem.MolToMolBlock(Chem.MolFromSmiles("OCC1CCN(CC1)C(=O)c1ccncc1")))',
      ],
      { encoding: 'utf8' },
    )
    expect(written.status, written.stderr).toBe(0)
    const molfile = path.join(dataDir, 'drawn.mol')
    fs.writeFileSync(molfile, written.stdout)
    const registered = await vaultDesk([
      'register',
      '--vault',
      String(main),
      '--molfile',
      molfile,
      '--name',
      'From a molfile',
      '--project',
      kinase(),
      '--json',
    ])
    expect(registered.code, registered.stdout + registered.stderr).toBe(0)
    expect(JSON.parse(registered.stdout)).toMatchObject({
      items: [{ operation: 'molecule.create', state: 'sent' }],
    })
    const [row] = serverRows<{ smiles: string }>(
      'SELECT smiles FROM molecules WHERE name = ?',
      'From a molfile',
    )
    expect(row?.smiles).toMatch(/N/)
    const missing = await vaultDesk([
      'register',
      '--vault',
      String(main),
      '--molfile',
      path.join(dataDir, 'nowhere.mol'),
      '--name',
      'Nowhere',
      '--project',
      kinase(),
    ])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('there is no such file')
  })

  it('names every problem and queues nothing', async () => {
    const bad = await vaultDesk([
      'register',
      '--vault',
      String(ai),
      '--smiles',
      'c1cccc1N(',
      '--project',
      '424242',
      '--duplicate',
      'new',
      '--json',
    ])
    expect(bad.code, bad.stderr).toBe(2)
    const problems = JSON.parse(bad.stdout).problems as { member: string }[]
    expect(problems.map((problem) => problem.member)).toEqual([
      'structure',
      'projects',
      'batch.fields.Purity (%)',
      'batch.fields.Chemist',
    ])
    const unparseable = await vaultDesk([
      'register',
      '--vault',
      String(main),
      '--smiles',
      'C1CC',
      '--name',
      'Broken',
      '--project',
      kinase(),
    ])
    expect(unparseable.code).toBe(2)
    expect(unparseable.stdout).toMatch(/structure: /)
    const list = await vaultDesk(['outbox', 'list', '--json'])
    expect(JSON.parse(list.stdout)).toEqual([])
  })

  it('registers a new structure with its first batch in a registration vault, offline', async () => {
    await network.off()
    try {
      const queued = await vaultDesk([
        'register',
        '--vault',
        String(ai),
        '--smiles',
        'CCOC(=O)c1ccc(N)cc1',
        '--project',
        'AI Exploration',
        '--batch-field',
        'Purity (%)=97',
        '--batch-field',
        'Chemist=O. Ffline',
        '--json',
      ])
      expect(queued.code, queued.stderr).toBe(0)
      expect(JSON.parse(queued.stdout)).toMatchObject({
        outcome: 'queued',
        novelty: { ok: true, matches: [] },
        items: [{ operation: 'batch.create', state: 'queued' }],
      })
    } finally {
      await network.on()
    }
    const sent = await vaultDesk(['outbox', 'send'])
    expect(sent.code, sent.stdout + sent.stderr).toBe(0)
    const [molecule] = serverRows<{ name: string }>(
      `SELECT m.name FROM molecules m JOIN batches b ON b.molecule_id = m.id
       WHERE m.vault_id = ? AND b.fields LIKE '%O. Ffline%'`,
      ai,
    )
    expect(molecule?.name).toMatch(/^AI-/)
  })
})
