/**
 * `vault-desk curves`: the real executable, a headless connection to the demo vault over
 * loopback. The readout index is completed on first need (progress on stderr); every series the
 * vault lists online is fitted offline, and where the vault drew a determined curve the local
 * IC50 agrees with the vault's own within 1%. Bad arguments say what is wrong and exit 2.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CurvesAnswer } from '../../src-main/ipc/contract.ts'
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

async function online<T>(route: string): Promise<T> {
  const response = await fetch(`${sim.baseUrl}${route}`, { headers: { 'X-SVC-Token': token } })
  expect(response.status).toBe(200)
  const body = (await response.json()) as { objects?: unknown[] } | unknown[]
  return (Array.isArray(body) ? body : (body.objects ?? [])) as T
}

beforeAll(async () => {
  sim = await startDemoSnapshotSim({ port: 0 })
  token = sim.cast.users.admin.tokens[0]!
  main = sim.cast.vaults.main.id
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-cli-curves-'))
  const synced = await vaultDesk(['sync', '--vault', String(main)])
  expect(synced.code, synced.stderr).toBe(0)
}, 120_000)

afterAll(async () => {
  await sim?.stop()
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
})

// Each case starts the executable; a shared machine may take seconds for each.
describe('vault-desk curves', { timeout: 180_000 }, () => {
  it("fits every series the vault lists, offline, and agrees with the vault's own fits", async () => {
    const run = await vaultDesk([
      'curves',
      '--vault',
      String(main),
      '--protocol',
      'kinase ic50 (adp-glo)',
      '--json',
    ])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toContain(`Indexing the readouts of vault ${main}`)
    const answer = JSON.parse(run.stdout) as CurvesAnswer
    expect(answer.protocol!.name).toBe('Kinase IC50 (ADP-Glo)')

    const protocol = answer.protocol!.id
    const listed: {
      id: number
      status: string
      fitted_parameters: Record<string, number> | null
    }[] = []
    for (const calculation of await online<{ id: number }[]>(
      `/vaults/${main}/protocols/${protocol}/dose_response_calculations`,
    )) {
      listed.push(
        ...(await online<typeof listed>(
          `/vaults/${main}/protocols/${protocol}/dose_response_calculations/${calculation.id}/dose_response_data_series`,
        )),
      )
    }
    expect(answer.series.map((series) => series.id).sort((a, b) => a - b)).toEqual(
      listed.map((series) => series.id).sort((a, b) => a - b),
    )
    let agreeing = 0
    for (const series of answer.series) {
      const vault = listed.find((entry) => entry.id === series.id)!
      expect(series.vault.status).toBe(vault.status)
      if (vault.status === 'inactive') {
        expect(series.local.outcome, `series ${series.id}`).toBe('inactive')
        continue
      }
      // Both drew a curve and it is the same curve (the same sum of squares, to rounding).
      const squares = series.comparison?.sumOfSquares
      if (!series.local.converged || !squares) continue
      if (Math.abs(squares.vault - squares.local) > 1e-3 * squares.local) continue
      expect(
        Math.abs(series.local.potency!.value / vault.fitted_parameters!.ic50! - 1),
        `series ${series.id}`,
      ).toBeLessThan(0.01)
      agreeing += 1
    }
    expect(agreeing).toBeGreaterThan(answer.series.length / 2)

    // The index is complete now: the next run says nothing of indexing.
    const again = await vaultDesk([
      'curves',
      '--vault',
      String(main),
      '--protocol',
      String(protocol),
    ])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).not.toContain('Indexing the readouts')
  })

  it("prints a batch's series with its parameters, IC50 and goodness of fit", async () => {
    const [first] = await online<{ id: number }[]>(
      `/vaults/${main}/protocols/1/dose_response_calculations`,
    )
    const series = await online<{ id: number; batch: number; status: string }[]>(
      `/vaults/${main}/protocols/1/dose_response_calculations/${first!.id}/dose_response_data_series`,
    )
    const fitted = series.find((entry) => entry.status === 'fitted')!
    const run = await vaultDesk([
      'curves',
      '--vault',
      String(main),
      '--protocol',
      '1',
      '--batch',
      String(fitted.batch),
    ])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain(`series ${fitted.id} · batch ${fitted.batch}`)
    expect(run.stdout).toMatch(
      /\n {2}local {2}(IC50 [\d.e+-]+ uM \(95% CI [\d.e+-]+ to [\d.e+-]+\)|no curve)/,
    )
    expect(run.stdout).toMatch(/\n {2}vault {2}fitted · IC50 [\d.e+-]+ uM · R² [\d.]+/)
    expect(run.stdout).toMatch(/R² \d\.\d{3}/)
  })

  it('says when a protocol has no dose-response calculations', async () => {
    const run = await vaultDesk([
      'curves',
      '--vault',
      String(main),
      '--protocol',
      'Kinetic Solubility (PBS pH 7.4)',
    ])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('has no dose-response calculations')
  })

  it('refuses bad arguments with what is wrong, and exits 2', async () => {
    const name = await vaultDesk(['curves', '--vault', String(main), '--protocol', 'Kinase IC5'])
    expect(name.code).toBe(2)
    expect(name.stderr).toMatch(
      /Unknown protocol "Kinase IC5"\. Protocols, closest first: "Kinase IC50 \(ADP-Glo\) \(1\)"/,
    )

    const id = await vaultDesk(['curves', '--vault', String(main), '--protocol', '4242', '--json'])
    expect(id.code).toBe(2)
    expect(id.stderr).toContain(`There is no protocol 4242 in vault ${main}`)
    expect(JSON.parse(id.stdout)).toMatchObject({ error: { code: 'invalid_argument' } })

    const cases: [string[], RegExp][] = [
      [['--protocol', '1'], /curves needs --vault ID/],
      [['--vault', String(main)], /curves needs --protocol ID or --protocol NAME/],
      [['--vault', 'main', '--protocol', '1'], /--vault takes a vault id/],
      [['--vault', String(main), '--protocol', '1', '--batch', '1.5'], /--batch takes a batch id/],
      [['--vault', String(main), '--protocol', '1', '--batch', '99999999'], /no batch 99999999/],
      [['--vault', String(main), '--protocol', '1', 'extra'], /curves takes no extra/],
      [['--vault', '4040', '--protocol', '1'], /cache holds no protocols \(sync it first\)/],
    ]
    for (const [args, message] of cases) {
      const run = await vaultDesk(['curves', ...args])
      expect(run.code, args.join(' ')).toBe(2)
      expect(run.stderr, args.join(' ')).toMatch(message)
    }
  })
})
