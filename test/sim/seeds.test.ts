import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim } from '../../src-sim/index.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { cast, idOf, objectsOf } from './fixtures.ts'
import { client, list, record } from './http.ts'

describe('the demo seed', () => {
  let sim: VaultSim
  let c: ReturnType<typeof cast>
  beforeAll(async () => {
    sim = await startVaultSim({ seed: 'demo' })
    c = cast(sim)
  })
  afterAll(() => sim.stop())

  it('has an administrator, a writer, a read-only member, a vault without API access and one with deep learning', () => {
    expect(sim.users.map((user) => user.role)).toEqual(['admin', 'writer', 'reader', 'reader'])
    expect(sim.cast.vaults.closed.apiAccess).toBe(false)
    expect(sim.cast.vaults.ai.deepLearning).toBe(true)
    expect(sim.cast.vaults.main.deepLearning).toBe(false)
  })

  it('holds about 2,000 molecules with batches, synonyms, fields and collections', async () => {
    const molecules = record(
      await c.admin.post(`${c.main}/molecules/query`, { page_size: 1000, no_structures: true }),
    )
    expect(molecules.count).toBe(2000)
    const page = objectsOf(molecules)
    const batches = page.flatMap((molecule) => molecule.batches as Record<string, unknown>[])
    expect(batches.length).toBeGreaterThan(1200)
    expect(
      page.filter((molecule) => (molecule.synonyms as string[]).length > 0).length,
    ).toBeGreaterThan(200)
    expect(
      page.filter((molecule) => (molecule.collections as unknown[]).length > 0).length,
    ).toBeGreaterThan(30)
    expect(
      new Set(page.map((molecule) => (molecule.molecule_fields as Record<string, unknown>).Series))
        .size,
    ).toBeGreaterThan(5)
    expect(batches.some((batch) => batch.salt_name !== '')).toBe(true)
    const weights = page.map((molecule) => molecule.molecular_weight as number)
    expect(Math.min(...weights)).toBeGreaterThan(150)
    expect(Math.max(...weights)).toBeLessThan(800)
  })

  it('gives each member a different view: the reader sees the kinase project and the public data set only', async () => {
    const readerCount = record(await c.reader.post(`${c.main}/molecules/query`, { only_ids: true }))
      .count as number
    const adminCount = record(await c.admin.post(`${c.main}/molecules/query`, { only_ids: true }))
      .count as number
    expect(readerCount).toBeGreaterThan(500)
    expect(readerCount).toBeLessThan(adminCount)
    const confidential = record(
      await c.admin.post(`${c.main}/molecules/query`, {
        projects: [c.projects.confidential.id],
        only_ids: true,
      }),
    )
    expect(confidential.count).toBeGreaterThan(100)
    expect(list(await c.reader.get(`${c.main}/data_sets`))).toHaveLength(1)
  })

  it('identifies seeded molecules on demand: canonical SMILES, InChIKey and exact search', async () => {
    const [first] = objectsOf(
      record(await c.admin.post(`${c.main}/molecules/query`, { page_size: 1 })),
    )
    const shown = record(await c.admin.get(`${c.main}/molecules/${idOf(first!)}`))
    expect(shown.inchi_key).toMatch(/^[A-Z]{14}-[A-Z]{10}-[A-Z]$/)
    expect(shown.molfile).toContain('M  END')
    const exact = record(
      await c.admin.post(`${c.main}/molecules/query`, {
        structure: first!.smiles,
        structure_search_type: 'exact',
        only_ids: true,
      }),
    )
    expect(exact.objects).toContain(idOf(first!))
  })
})

describe('the numeric seed and the --db file', () => {
  it('builds N molecules with one batch each, and a seeded file keeps its data and tokens when reopened', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-sim-test-'))
    const file = path.join(directory, 'vault.db')
    try {
      const first = await startVaultSim({ seed: 1500, db: file })
      const token = first.users[0]!.token
      const answer = record(
        await client(first.baseUrl, token).post(
          `/vaults/${first.cast.vaults.main.id}/batches/query`,
          { only_ids: true },
        ),
      )
      expect(answer.count).toBe(1500)
      await first.stop()
      await expect(startVaultSim({ seed: 'demo', db: file })).rejects.toThrow(
        'The database was seeded with 1500 molecules, not the demo seed',
      )
      const second = await startVaultSim({ seed: 1500, db: file })
      expect(second.users[0]!.token).toBe(token)
      const again = record(
        await client(second.baseUrl, token).post(
          `/vaults/${second.cast.vaults.main.id}/molecules/query`,
          { only_ids: true },
        ),
      )
      expect(again.count).toBe(1500)
      await second.stop()
    } finally {
      fs.rmSync(directory, { recursive: true, force: true })
    }
  })

  it('refuses a seed that is not a whole number of molecules', async () => {
    await expect(startVaultSim({ seed: -3 })).rejects.toThrow(/whole number/)
  })
})

describe('the command line', () => {
  it('prints one JSON line with the base URLs, users and vaults when ready, then serves requests with its faults', async () => {
    const faults = JSON.stringify({ serverErrorRate: 1, match: 'GET /vaults/1/projects' })
    const child = spawn(
      process.execPath,
      ['src-sim/cli.ts', '--port', '0', '--seed', 'empty', '--faults', faults],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve)
        child.once('exit', (code) => reject(new Error(`vault-sim exited with ${code}`)))
      })
      const ready = JSON.parse(line) as {
        baseUrl: string
        downloadBaseUrl: string
        users: { name: string; token: string; role: string; vaults: number[] }[]
        vaults: { id: number; name: string }[]
      }
      expect(ready.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/)
      expect(ready.downloadBaseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(ready.users[0]).toMatchObject({
        name: 'Ada Lovelace',
        role: 'admin',
        vaults: [1, 2, 3],
      })
      expect(ready.vaults).toHaveLength(3)
      const admin = client(ready.baseUrl, ready.users[0]!.token)
      expect((await admin.get('/vaults')).status).toBe(200)
      expect((await admin.get('/vaults/1/projects')).status).toBe(503)
    } finally {
      child.kill('SIGTERM')
    }
  })

  it('exits with a usage message for a bad argument', async () => {
    const child = spawn(process.execPath, ['src-sim/cli.ts', '--seed', 'lots'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const code = await new Promise((resolve) => child.once('exit', resolve))
    expect(code).toBe(2)
    expect(stderr).toContain("--seed must be demo, empty or a number of molecules, got 'lots'")
  })
})

describe('start-up failures', () => {
  it('report a port in use and leave nothing running', async () => {
    const first = await startVaultSim({ seed: 'empty' })
    try {
      const port = Number(new URL(first.baseUrl).port)
      await expect(startVaultSim({ seed: 'empty', port })).rejects.toThrow(/EADDRINUSE/)
    } finally {
      await first.stop()
    }
  })
})
