/**
 * `vault-desk export` and `find` without caps: the real executable, a headless connection to the
 * demo vault over loopback. All 2,000 molecules go out as CSV and as an SD file that RDKit reads
 * back; JSON Lines stream to stdout; `find` pages with --offset and prints every record without
 * --limit; what cannot be exported exits 2 and leaves no file; a full disk exits 1, Ctrl-C leaves
 * no file.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { canonicalSmiles, exportReadersHere, readCsv, readSdf } from '../support/export-readers.ts'

const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')
const readersHere = exportReadersHere()
let sim: VaultSim
let dataDir: string
let folder: string
let token: string
let main: number

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function vaultDesk(
  args: string[],
  options: {
    /** A file descriptor for stdout (a pipe by default). */
    stdout?: number
    onStderr?: (text: string, kill: () => void) => void
  } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const { DBUS_SESSION_BUS_ADDRESS: _bus, ...inherited } = process.env
    const child: ChildProcess = spawn(
      process.execPath,
      [bin, ...args, '--base-url', sim.baseUrl, '--token-env', 'VD_TOKEN'],
      {
        env: { ...inherited, VAULT_DESK_DATA_DIR: dataDir, VD_TOKEN: token },
        stdio: ['pipe', options.stdout ?? 'pipe', 'pipe'],
      },
    )
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      options.onStderr?.(stderr, () => child.kill('SIGINT'))
    })
    child.stdin!.end('')
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}

interface FindDocument {
  kind: string
  count: number
  records: Record<string, unknown>[]
}

beforeAll(async () => {
  sim = await startDemoSnapshotSim({ port: 0 })
  token = sim.cast.users.admin.tokens[0]!
  main = sim.cast.vaults.main.id
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-cli-export-'))
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-cli-exported-'))
  const synced = await vaultDesk(['sync', '--vault', String(main)])
  expect(synced.code, synced.stderr).toBe(0)
}, 120_000)

afterAll(async () => {
  await sim?.stop()
  for (const dir of [dataDir, folder]) if (dir) fs.rmSync(dir, { recursive: true, force: true })
})

const vault = (): string[] => ['--vault', String(main)]

describe('vault-desk find without caps', { timeout: 180_000 }, () => {
  it('prints every record without --limit, streamed, and pages with --offset', async () => {
    const all = await vaultDesk(['find', ...vault(), '--json'])
    expect(all.code, all.stderr).toBe(0)
    const found = JSON.parse(all.stdout) as FindDocument
    expect(found).toMatchObject({ kind: 'molecules', count: 2000 })
    expect(found.records).toHaveLength(2000)
    expect(new Set(found.records.map((record) => record.id)).size).toBe(2000)

    const tail = await vaultDesk(['find', ...vault(), '--offset', '1990', '--json'])
    const last = JSON.parse(tail.stdout) as FindDocument
    expect(last.count).toBe(2000)
    expect(last.records).toEqual(found.records.slice(1990))

    const some = await vaultDesk(['find', ...vault(), '--offset', '5', '--limit', '3'])
    expect(some.code, some.stderr).toBe(0)
    const lines = some.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('2000 molecules (6 to 8)')
    expect(lines.slice(1).map((line) => Number(line.trim().split(/\s+/)[0]))).toEqual(
      found.records.slice(5, 8).map((record) => record.id),
    )

    const beyond = await vaultDesk(['find', ...vault(), '--offset', '5000', '--json'])
    expect(JSON.parse(beyond.stdout)).toEqual({ kind: 'molecules', count: 2000, records: [] })
    const bad = await vaultDesk(['find', ...vault(), '--offset', 'ten'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--offset takes a whole number from 0 on')
  }, 60_000)
})

describe.runIf(readersHere)('vault-desk export', { timeout: 180_000 }, () => {
  it('exports all 2,000 molecules as CSV and as an SD file RDKit reads back', async () => {
    const all = JSON.parse((await vaultDesk(['find', ...vault(), '--json'])).stdout) as FindDocument

    const csv = path.join(folder, 'molecules.csv')
    const toCsv = await vaultDesk(['export', ...vault(), '--format', 'csv', '--output', csv])
    expect(toCsv.code, toCsv.stderr).toBe(0)
    expect(toCsv.stdout).toMatch(/^2000 molecules exported to .*molecules\.csv \(CSV, /)
    const rows = readCsv(csv)
    expect(rows).toHaveLength(2001)
    expect(rows.slice(1).map((cells) => Number(cells[0]))).toEqual(
      all.records.map((record) => record.id),
    )
    expect(rows.slice(1).map((cells) => cells[1])).toEqual(all.records.map((record) => record.name))

    const sdf = path.join(folder, 'molecules.sdf')
    const toSdf = await vaultDesk(['export', ...vault(), '--format', 'sdf', '-o', sdf, '--json'])
    expect(toSdf.code, toSdf.stderr).toBe(0)
    expect(JSON.parse(toSdf.stdout)).toMatchObject({ records: 2000, format: 'sdf', path: sdf })
    const read = readSdf(sdf)
    expect(read).toHaveLength(2000)
    const expected = canonicalSmiles(all.records.map((record) => String(record.smiles)))
    const differing = read.filter((record, index) => record?.smiles !== expected[index])
    expect(differing).toEqual([])
    read.forEach((record, index) => {
      expect(record!.properties.ID).toBe(all.records[index]!.id)
      expect(record!.title).toBe(all.records[index]!.name)
    })
    expect(fs.readdirSync(folder).sort()).toEqual(['molecules.csv', 'molecules.sdf'])
  }, 300_000)

  it('streams JSON Lines to stdout, with the search options find takes', async () => {
    const criterion = 'Kinase IC50 (ADP-Glo): % Inhibition > 50'
    const found = JSON.parse(
      (await vaultDesk(['find', ...vault(), '--readout', criterion, '--json'])).stdout,
    ) as FindDocument
    expect(found.count).toBeGreaterThan(0)
    const run = await vaultDesk([
      'export',
      ...vault(),
      '--readout',
      criterion,
      '--format',
      'jsonl',
      '--all-fields',
    ])
    expect(run.code, run.stderr).toBe(0)
    const lines = run.stdout.trimEnd().split('\n')
    expect(lines.map((line) => JSON.parse(line))).toEqual(found.records)
    expect(run.stderr).toContain(`${found.count} molecules exported (JSON Lines`)
  }, 60_000)

  it('refuses what cannot be exported with exit code 2, leaving no file', async () => {
    const plates = await vaultDesk([
      'export',
      ...vault(),
      'plates',
      '--format',
      'sdf',
      '--output',
      path.join(folder, 'plates.sdf'),
    ])
    expect(plates.code).toBe(2)
    expect(plates.stderr).toContain('only molecules can be exported as an SD file')
    const missing = await vaultDesk([
      'export',
      ...vault(),
      '--format',
      'csv',
      '--output',
      path.join(folder, 'nowhere', 'x.csv'),
    ])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/nowhere does not exist/)
    const noFormat = await vaultDesk(['export', ...vault()])
    expect(noFormat.code).toBe(2)
    expect(noFormat.stderr).toContain('export needs --format: csv, sdf, xlsx, jsonl')
    const jsonToStdout = await vaultDesk(['export', ...vault(), '--format', 'csv', '--json'])
    expect(jsonToStdout.code).toBe(2)
    expect(fs.readdirSync(folder).filter((name) => /plates|\.partial/.test(name))).toEqual([])
  })

  it('refuses to write a workbook to a terminal', () => {
    const script = spawnSync('script', ['--version'], { encoding: 'utf8' })
    if (script.status !== 0) return
    const command = [process.execPath, bin, 'export', ...vault(), '--format', 'xlsx']
      .concat(['--base-url', sim.baseUrl, '--token-env', 'VD_TOKEN'])
      .map((part) => `'${part}'`)
      .join(' ')
    const run = spawnSync('script', ['-qec', command, '/dev/null'], {
      encoding: 'utf8',
      env: { ...process.env, VAULT_DESK_DATA_DIR: dataDir, VD_TOKEN: token },
    })
    expect(run.status).toBe(2)
    expect(run.stdout).toContain('An Excel workbook is binary: give --output FILE')
  })

  it('says the disk is full (exit 1) when stdout is /dev/full', async () => {
    if (!fs.existsSync('/dev/full')) return
    const full = fs.openSync('/dev/full', 'w')
    try {
      const run = await vaultDesk(['export', ...vault(), '--format', 'csv'], { stdout: full })
      expect(run.code).toBe(1)
      expect(run.stderr).toContain('The disk is full')
    } finally {
      fs.closeSync(full)
    }
  })

  it('leaves no file when interrupted (Ctrl-C)', async () => {
    const file = path.join(folder, 'interrupted.sdf')
    let interrupted = false
    const run = await vaultDesk(['export', ...vault(), '--format', 'sdf', '--output', file], {
      onStderr: (text, interrupt) => {
        if (interrupted || !text.includes('exported')) return
        interrupted = true
        interrupt()
      },
    })
    expect(interrupted).toBe(true)
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain('The export was cancelled')
    expect(fs.readdirSync(folder).filter((name) => /interrupted|\.partial/.test(name))).toEqual([])
  }, 120_000)
})
