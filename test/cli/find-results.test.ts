/**
 * `vault-desk find --readout`: the real executable, a headless connection to the demo vault over
 * loopback. The readout index is completed by the search that needs it (progress on stderr), and
 * what it finds is what the criteria's own evaluator finds row by row; bad criteria say what is
 * wrong and exit 2.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exportReadersHere, readCsv } from '../support/export-readers.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'

const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')
let sim: VaultSim
let dataDir: string
let token: string
let main: number

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

/** The vault's own answer, online: its molecule query with protocol criteria. */
async function vaultAnswer(criteria: Record<string, unknown>[]): Promise<number[]> {
  const ids: number[] = []
  for (let offset = 0; ; offset += 500) {
    const response = await fetch(`${sim.baseUrl}/vaults/${main}/molecules/query`, {
      method: 'POST',
      headers: { 'X-SVC-Token': token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ protocol_criteria: criteria, page_size: 500, offset, only_ids: true }),
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as { objects?: unknown[] } | unknown[]
    const objects = Array.isArray(body) ? body : (body.objects ?? [])
    for (const object of objects) {
      ids.push(typeof object === 'number' ? object : Number((object as { id: unknown }).id))
    }
    if (objects.length < 500) break
  }
  return ids.sort((a, b) => a - b)
}

beforeAll(async () => {
  sim = await startDemoSnapshotSim({ port: 0 })
  token = sim.cast.users.admin.tokens[0]!
  main = sim.cast.vaults.main.id
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-cli-results-'))
  const synced = await vaultDesk(['sync', '--vault', String(main)])
  expect(synced.code, synced.stderr).toBe(0)
}, 120_000)

afterAll(async () => {
  await sim?.stop()
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
})

// Each case starts the executable; a shared machine may take seconds for each.
describe('vault-desk find --readout', { timeout: 180_000 }, () => {
  it('indexes the readouts on first need, then finds what the vault finds online', async () => {
    const run = await vaultDesk([
      'find',
      '--vault',
      String(main),
      '--readout',
      'Kinase IC50 (ADP-Glo): % Inhibition > 50',
      '--limit',
      '1000',
      '--json',
    ])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toContain(`Indexing the readouts of vault ${main}`)
    const found = JSON.parse(run.stdout) as { count: number; records: { id: number }[] }
    expect(found.count).toBeGreaterThan(0)
    const protocols = (await (
      await fetch(`${sim.baseUrl}/vaults/${main}/protocols`, { headers: { 'X-SVC-Token': token } })
    ).json()) as { objects?: unknown[] } | unknown[]
    const list = (Array.isArray(protocols) ? protocols : (protocols.objects ?? [])) as {
      id: number
      name: string
      readout_definitions: { id: number; name: string }[]
    }[]
    const kinase = list.find((protocol) => protocol.name === 'Kinase IC50 (ADP-Glo)')!
    const inhibition = kinase.readout_definitions.find(
      (readout) => readout.name === '% Inhibition',
    )!
    const online = await vaultAnswer([
      {
        protocol_id: kinase.id,
        readout_definition_id: inhibition.id,
        operator: '>',
        readout_value: '50',
      },
    ])
    expect(found.records.map((record) => record.id).sort((a, b) => a - b)).toEqual(online)

    // The index is complete now: the next search says nothing of indexing.
    const again = await vaultDesk([
      'find',
      '--vault',
      String(main),
      'batches',
      '--readout',
      'Kinase IC50 (ADP-Glo): % Inhibition > 50',
      '--json',
    ])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).not.toContain('Indexing the readouts')
    expect((JSON.parse(again.stdout) as { count: number }).count).toBeGreaterThanOrEqual(
      found.count,
    )
  })

  it('says which protocols exist, closest first, and exits 2 for an unknown one', async () => {
    const run = await vaultDesk([
      'find',
      '--vault',
      String(main),
      '--readout',
      'Kinase IC5: IC50 < 1',
    ])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('Kinase IC50 (ADP-Glo)')
    const units = await vaultDesk([
      'find',
      '--vault',
      String(main),
      '--readout',
      'Kinase IC50 (ADP-Glo): IC50 < 3 kg',
    ])
    expect(units.code).toBe(2)
    expect(units.stderr).toMatch(/kg/)
  })
})

describe.runIf(exportReadersHere())('vault-desk export --results', { timeout: 180_000 }, () => {
  const kinase = 'Kinase IC50 (ADP-Glo)'

  it('writes the results table the criteria narrow, sorted by a column, as CSV', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-results-table-'))
    try {
      const file = path.join(folder, 'kinase.csv')
      const run = await vaultDesk([
        'export',
        '--vault',
        String(main),
        '--results',
        '--protocol',
        kinase,
        '--readout',
        `${kinase}: % Inhibition > 50`,
        '--sort',
        `${kinase}: % Inhibition`,
        '--descending',
        '--format',
        'csv',
        '--output',
        file,
      ])
      expect(run.code, run.stderr).toBe(0)
      const [header, ...rows] = readCsv(file)
      expect(header!.slice(0, 3)).toEqual(['ID', 'Name', 'SMILES'])
      const inhibition = header!.indexOf(`${kinase}: % Inhibition`)
      expect(inhibition).toBeGreaterThan(2)
      expect(header).toContain(`${kinase}: IC50`)

      const protocols = (await (
        await fetch(`${sim.baseUrl}/vaults/${main}/protocols`, {
          headers: { 'X-SVC-Token': token },
        })
      ).json()) as { objects?: unknown[] } | unknown[]
      const list = (Array.isArray(protocols) ? protocols : (protocols.objects ?? [])) as {
        id: number
        name: string
        readout_definitions: { id: number; name: string }[]
      }[]
      const protocol = list.find((entry) => entry.name === kinase)!
      const definition = protocol.readout_definitions.find(
        (readout) => readout.name === '% Inhibition',
      )!
      const online = await vaultAnswer([
        {
          protocol_id: protocol.id,
          readout_definition_id: definition.id,
          operator: '>',
          readout_value: '50',
        },
      ])
      expect(rows.map((row) => Number(row[0])).sort((a, b) => a - b)).toEqual(online)
      // The criterion holds for a row of each molecule; the column shows each one's aggregate.
      const values = rows.map((row) => Number(row[inhibition]))
      expect(values.every(Number.isFinite)).toBe(true)
      expect(values).toEqual([...values].sort((a, b) => b - a))
      expect(values[0]).toBeGreaterThan(50)
    } finally {
      fs.rmSync(folder, { recursive: true, force: true })
    }
  })

  it('names what is wrong with a results table and exits 2', async () => {
    const unknown = await vaultDesk([
      'export',
      '--vault',
      String(main),
      '--results',
      '--protocol',
      'Kinase',
      '--format',
      'csv',
    ])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain(`No protocol with results is named "Kinase"`)
    expect(unknown.stderr).toContain(kinase)
    const readout = await vaultDesk([
      'export',
      '--vault',
      String(main),
      '--results',
      '--column',
      `${kinase}: Potency`,
      '--format',
      'jsonl',
    ])
    expect(readout.code).toBe(2)
    expect(readout.stderr).toContain('has no readout "Potency"')
    const stray = await vaultDesk([
      'export',
      '--vault',
      String(main),
      '--protocol',
      kinase,
      '--format',
      'csv',
    ])
    expect(stray.code).toBe(2)
    expect(stray.stderr).toContain('--protocol goes with --results')
    const plates = await vaultDesk([
      'export',
      '--vault',
      String(main),
      'plates',
      '--results',
      '--protocol',
      kinase,
      '--format',
      'csv',
    ])
    expect(plates.code).toBe(2)
    expect(plates.stderr).toContain('not per plates')
  })
})
