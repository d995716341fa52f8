/**
 * Saved searches offline: the real executable against the simulator over loopback. The vault's
 * saved searches of each criterion type are synced, listed in words, run offline with
 * `find --saved`, and each answer is compared with the vault's own run of the same saved search
 * (an export, online). Searches with parts the local search cannot ask are refused with those
 * parts named, and run only when the translatable part is asked for.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Papa from 'papaparse'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VaultClient } from '../../src-main/api/client.ts'
import { LimiterRegistry } from '../../src-main/api/limiter-registry.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'

const bin = path.resolve(import.meta.dirname, '../../bin/vault-desk.js')
let sim: VaultSim
let client: VaultClient
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

interface Listed {
  id: number
  name: string
  project: { id: number; name: string | null } | null
  words: string
  runsOffline: boolean
  untranslated: { part: string; words: string; reason: string }[]
}

const searchIds = new Map<string, number>()

/**
 * The vault's own answer: its run of the saved search (always an export), as molecule ids, all
 * of them or only those of a project (the vault adds the molecules of public data sets, which
 * belong to no project).
 */
async function vaultAnswer(name: string): Promise<{ all: number[]; inProjects: number[] }> {
  const finished = await client.searches.run(main, searchIds.get(name)!)
  const all: number[] = []
  const inProjects: number[] = []
  for await (const molecule of finished.records()) {
    all.push(molecule.id!)
    if ((molecule.projects ?? []).length > 0) inProjects.push(molecule.id!)
  }
  return { all: all.sort((a, b) => a - b), inProjects: inProjects.sort((a, b) => a - b) }
}

async function offlineAnswer(name: string, ...extra: string[]): Promise<Run & { ids: number[] }> {
  const run = await vaultDesk([
    'find',
    '--vault',
    String(main),
    '--saved',
    name,
    ...extra,
    '--json',
  ])
  if (run.code !== 0) return { ...run, ids: [] }
  const found = JSON.parse(run.stdout) as { records: { id: number }[] }
  return { ...run, ids: found.records.map((record) => record.id).sort((a, b) => a - b) }
}

/** A list of the vault, read online. */
async function vaultGet(resource: string): Promise<unknown[]> {
  const response = await fetch(`${sim.baseUrl}/vaults/${main}/${resource}`, {
    headers: { 'X-SVC-Token': token },
  })
  expect(response.status).toBe(200)
  const body = (await response.json()) as { objects?: unknown[] } | unknown[]
  return Array.isArray(body) ? body : (body.objects ?? [])
}

beforeAll(async () => {
  sim = await startDemoSnapshotSim({
    port: 0,
    exportTiming: { startDelayMs: 5, durationMs: 20 },
  })
  token = sim.cast.users.admin.tokens[0]!
  main = sim.cast.vaults.main.id
  client = new VaultClient({
    baseUrl: sim.baseUrl,
    token,
    limiters: new LimiterRegistry(),
    exportPolling: { minIntervalMs: 2, maxIntervalMs: 10 },
  })
  const kinaseProject = sim.cast.projects.kinase.id
  const protocols = (await vaultGet('protocols')) as {
    id: number
    name: string
    readout_definitions: { id: number; name: string }[]
  }[]
  const kinase = protocols.find((protocol) => protocol.name === 'Kinase IC50 (ADP-Glo)')!
  const inhibition = kinase.readout_definitions.find((readout) => readout.name === '% Inhibition')!
  const [collection] = (await vaultGet('collections')) as { id: number }[]
  const molecules = (await vaultGet('molecules?page_size=200')) as {
    smiles: string
    projects: { id: number }[]
  }[]
  const kinaseMolecule = molecules.find((molecule) =>
    molecule.projects.some((project) => project.id === kinaseProject),
  )!
  const plans: [string, Record<string, unknown>][] = [
    [
      'Inhibitors over 50%',
      {
        protocol_criteria: [
          {
            protocol_id: kinase.id,
            readout_definition_id: inhibition.id,
            operator: '>',
            readout_value: '50',
          },
        ],
      },
    ],
    [
      'Quinazolines inhibiting',
      {
        structure: 'c1ncnc2ccccc12',
        structure_search_type: 'substructure',
        protocol_criteria: [
          {
            protocol_id: kinase.id,
            readout_definition_id: inhibition.id,
            operator: 'from',
            readout_value: '20',
            readout_value_maximum: '90',
          },
        ],
      },
    ],
    [
      'Exactly a kinase compound',
      { structure: kinaseMolecule.smiles, structure_search_type: 'exact' },
    ],
    [
      'Near a kinase compound',
      {
        structure: kinaseMolecule.smiles,
        structure_search_type: 'similarity',
        structure_similarity_threshold: 0.5,
      },
    ],
    [
      'Named QZ in a collection',
      {
        keyword: 'QZ',
        collection_criteria: [{ collection_id: collection!.id }],
        molecule_criteria: [{ name: 'Supplier ID', text_value: 'SUP' }],
        structure: 'c1ccccc1',
        structure_search_type: 'substructure',
      },
    ],
  ]
  for (const [name, criteria] of plans) {
    await client.searches.create(main, {
      name,
      projects: [kinaseProject],
      search_criteria: criteria,
    })
  }
  for (const search of await client.searches.list(main)) {
    searchIds.set(search.name!, search.search_id!)
  }
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-cli-saved-'))
  const synced = await vaultDesk(['sync', '--vault', String(main)])
  expect(synced.code, synced.stderr).toBe(0)
}, 180_000)

afterAll(async () => {
  await sim?.stop()
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
})

const scope = "or in the public data set 'Reference Compounds'"
const translatable = [
  'Quinazoline cores',
  'Priority 1 compounds',
  'Inhibitors over 50%',
  'Quinazolines inhibiting',
  'Exactly a kinase compound',
  'Near a kinase compound',
]

describe('vault-desk searches', { timeout: 180_000 }, () => {
  it("lists the vault's saved searches with their criteria in words", async () => {
    const run = await vaultDesk(['searches', '--vault', String(main), '--json'])
    expect(run.code, run.stderr).toBe(0)
    const { searches } = JSON.parse(run.stdout) as { searches: Listed[] }
    const byName = new Map(searches.map((search) => [search.name, search]))
    expect([...byName.keys()].sort()).toEqual([...searchIds.keys()].sort())

    expect(byName.get('Quinazoline cores')).toMatchObject({
      words: `Molecules containing the substructure c1ncnc2ccccc12 in project 'Kinase Inhibitors' ${scope}`,
      project: { id: sim.cast.projects.kinase.id, name: 'Kinase Inhibitors' },
      runsOffline: false,
    })
    expect(byName.get('Priority 1 compounds')!.words).toBe(
      `Molecules whose 'Priority' is 1 in project '${sim.cast.projects.gpcr.name}' ${scope}`,
    )
    expect(byName.get('Inhibitors over 50%')!.words).toBe(
      `Molecules with results “Kinase IC50 (ADP-Glo): % Inhibition > 50 %” in project 'Kinase Inhibitors' ${scope}`,
    )
    // Every criterion of these translates: only the public data set is left out.
    for (const name of translatable) {
      expect(byName.get(name)!.untranslated, name).toEqual([
        { part: 'scope', words: scope, reason: expect.stringContaining('public data sets') },
      ])
    }

    const mixed = byName.get('Named QZ in a collection')!
    expect(mixed.runsOffline).toBe(false)
    expect(mixed.untranslated.map((part) => part.part).sort()).toEqual([
      'collection_criteria',
      'keyword',
      'molecule_criteria[0]',
      'scope',
    ])
    expect(mixed.words).toContain("whose name contains 'QZ'")
    expect(mixed.words).toContain("whose 'Supplier ID' contains 'SUP'")
    expect(mixed.words).toContain('containing the substructure c1ccccc1')

    const human = await vaultDesk(['searches', '--vault', String(main)])
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).toContain('Named QZ in a collection  (does not run offline as saved')
    expect(human.stdout).toContain(`not offline: ${scope}: `)
  })
})

describe('vault-desk find --saved', { timeout: 180_000 }, () => {
  it.each(translatable)(
    'runs %s offline and finds what the vault finds in the project',
    async (name) => {
      const offline = await offlineAnswer(name, '--translatable-part')
      expect(offline.code, offline.stderr).toBe(0)
      expect(offline.stderr).toContain(`Saved search '${name}': Molecules`)
      expect(offline.stderr).toContain(`left out (not offline): ${scope}`)
      const online = await vaultAnswer(name)
      expect(offline.ids).toEqual(online.inProjects)
    },
  )

  it('compares lists that are not empty, and the public data set does add molecules', async () => {
    const counts = await Promise.all(
      [
        'Quinazoline cores',
        'Priority 1 compounds',
        'Inhibitors over 50%',
        'Near a kinase compound',
        'Exactly a kinase compound',
      ].map(vaultAnswer),
    )
    for (const { inProjects } of counts) expect(inProjects.length).toBeGreaterThan(0)
    expect(counts.some(({ all, inProjects }) => all.length > inProjects.length)).toBe(true)
  })

  it('refuses a search with untranslatable parts, naming them, and runs the rest when asked', async () => {
    const plain = await offlineAnswer('Quinazoline cores')
    expect(plain.code).toBe(1)
    expect(plain.stderr).toContain("Saved search 'Quinazoline cores' cannot run offline as saved")
    expect(plain.stderr).toContain('scope')

    const refused = await offlineAnswer('Named QZ in a collection')
    expect(refused.code).toBe(1)
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'validation' } })
    for (const part of ['keyword', 'collection_criteria', 'molecule_criteria[0]']) {
      expect(refused.stderr).toContain(part)
    }

    const partial = await offlineAnswer('Named QZ in a collection', '--translatable-part')
    expect(partial.code, partial.stderr).toBe(0)
    expect(partial.stderr).toContain("left out (not offline): whose name contains 'QZ'")
    expect(partial.stderr).toContain('left out (not offline): in collection')
    // The translatable part alone (benzene rings in the project) holds the vault's answer.
    const online = await vaultAnswer('Named QZ in a collection')
    expect(partial.ids.length).toBeGreaterThan(online.inProjects.length)
    expect(online.inProjects.every((id) => partial.ids.includes(id))).toBe(true)
  })

  it('says which saved searches exist when the name is unknown', async () => {
    const run = await offlineAnswer('No such search')
    expect(run.code).toBe(1)
    expect(run.stderr).toContain("no saved search 'No such search'")
    expect(run.stderr).toContain("'Quinazoline cores'")
  })

  it('refuses --saved mixed with a typed search', async () => {
    const run = await vaultDesk([
      'find',
      '--vault',
      String(main),
      '--saved',
      'Quinazoline cores',
      '--text',
      'x',
    ])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('--saved runs a saved search as saved')
    const stray = await vaultDesk(['find', '--vault', String(main), '--translatable-part'])
    expect(stray.code).toBe(2)
    expect(stray.stderr).toContain('--translatable-part goes with --saved NAME')
  })
})

describe('vault-desk searches run --on-vault', { timeout: 180_000 }, () => {
  it('has the vault run the saved search and saves its file whole, progress on stderr', async () => {
    const output = path.join(dataDir, 'quinazolines.csv')
    const run = await vaultDesk([
      'searches',
      'run',
      'Quinazoline cores',
      '--on-vault',
      '--format',
      'csv',
      '--output',
      output,
      '--vault',
      String(main),
    ])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toContain('running on the vault (export ')
    expect(run.stdout).toContain(`Saved search 'Quinazoline cores' run on the vault:`)
    expect(run.stdout).toContain(output)
    const { data, errors } = Papa.parse<Record<string, string>>(fs.readFileSync(output, 'utf8'), {
      header: true,
      skipEmptyLines: true,
    })
    expect(errors).toEqual([])
    const ids = data.map((row) => Number(row.id)).sort((a, b) => a - b)
    expect(ids).toEqual((await vaultAnswer('Quinazoline cores')).all)
    expect(fs.readdirSync(dataDir).filter((name) => name.includes('quinazolines'))).toEqual([
      'quinazolines.csv',
    ])
  })

  it('refuses a format the vault has not, a missing folder and a missing --on-vault, writing nothing', async () => {
    const base = ['searches', 'run', 'Quinazoline cores', '--vault', String(main)]
    const xlsx = await vaultDesk([...base, '--on-vault', '--format', 'xlsx', '--output', 'a.xlsx'])
    expect(xlsx.code).toBe(2)
    expect(xlsx.stderr).toContain('--format takes csv, sdf, json')
    const folder = path.join(dataDir, 'missing', 'hits.sdf')
    const missing = await vaultDesk([...base, '--on-vault', '--format', 'sdf', '--output', folder])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain(`The folder ${path.dirname(folder)} does not exist`)
    const offline = await vaultDesk([...base, '--format', 'csv', '--output', 'x.csv'])
    expect(offline.code).toBe(2)
    expect(offline.stderr).toContain('give --on-vault (offline, use find --saved NAME)')
    expect(fs.existsSync(path.join(dataDir, 'missing'))).toBe(false)
  })
})

describe('vault-desk searches save', { timeout: 180_000 }, () => {
  const kinaseQuestion = [
    '--substructure',
    'c1ncnc2ccccc12',
    '--readout',
    'Kinase IC50 (ADP-Glo): % Inhibition > 50',
  ]
  const save = (name: string, ...options: string[]) =>
    vaultDesk(['searches', 'save', name, '--vault', String(main), ...options])

  it('queues the search find would run, as the window does, and sends it once the vault answers', async () => {
    const name = 'Quinazolines over 50% (CLI)'
    sim.faults.set({ serverErrorRate: 1, serverErrorStatus: 503, match: 'POST /vaults/' })
    let queued: Run
    try {
      queued = await save(name, '--project', 'kinase inhibitors', ...kinaseQuestion, '--json')
    } finally {
      sim.faults.clear()
    }
    expect(queued.code, queued.stderr).toBe(0)
    const report = JSON.parse(queued.stdout) as {
      itemId: number
      words: string
      delivery: { items: { id: number; state: string }[] }
    }
    expect(report.words).toBe(
      `Molecules containing the substructure c1ncnc2ccccc12 and with results “Kinase IC50 (ADP-Glo): % Inhibition > 50 %” in project 'Kinase Inhibitors' ${scope}`,
    )
    expect(report.delivery.items).toEqual([
      expect.objectContaining({ id: report.itemId, state: 'queued' }),
    ])

    const outbox = await vaultDesk(['outbox', 'list'])
    expect(outbox.code, outbox.stderr).toBe(0)
    expect(outbox.stdout).toContain(`#${report.itemId}  queued  Save the search "${name}"\n`)
    const listed = await vaultDesk(['searches', '--vault', String(main), '--json'])
    const { searches } = JSON.parse(listed.stdout) as {
      searches: (Listed & { pending: { itemId: number } | null })[]
    }
    expect(searches.find((search) => search.name === name)).toMatchObject({
      id: null,
      pending: { itemId: report.itemId },
    })

    // The name is taken by the queued search: a second save of it is refused, naming the item.
    const again = await save(name.toUpperCase(), '--project', 'Kinase Inhibitors', '--text', 'QZ')
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(
      `already used by the saved search queued by outbox item ${report.itemId}`,
    )

    const sent = await vaultDesk(['outbox', 'send'])
    expect(sent.code, sent.stderr).toBe(0)
    const inVault = (await client.searches.list(main)).find((search) => search.name === name)
    expect(inVault).toBeDefined()
    // The vault runs it as it was asked here: its answer in the project is the offline answer.
    const offline = await vaultDesk([
      'find',
      '--vault',
      String(main),
      ...kinaseQuestion,
      '--limit',
      '100000',
      '--json',
    ])
    expect(offline.code, offline.stderr).toBe(0)
    const offlineIds = (JSON.parse(offline.stdout) as { records: { id: number }[] }).records
      .map((record) => record.id)
      .sort((a, b) => a - b)
    const inProjects: number[] = []
    for await (const molecule of (await client.searches.run(main, inVault!.search_id!)).records()) {
      if ((molecule.projects ?? []).some((project) => project.id === sim.cast.projects.kinase.id))
        inProjects.push(molecule.id!)
    }
    expect(inProjects.length).toBeGreaterThan(0)
    expect(inProjects.every((id) => offlineIds.includes(id))).toBe(true)
  })

  it('refuses a used name, an unknown project and a search a saved one cannot hold, naming each', async () => {
    const used = await save('quinazoline CORES', '--project', 'Kinase Inhibitors', '--text', 'Q')
    expect(used.code).toBe(1)
    expect(used.stderr).toMatch(/the name 'quinazoline CORES' is already used by saved search \d+/)

    const project = await save('New one', '--project', 'No such project', '--text', 'Q')
    expect(project.code).toBe(1)
    expect(project.stderr).toContain(`Vault ${main} has no project named 'No such project'`)
    expect(project.stderr).toContain("'Kinase Inhibitors'")

    const twoProjects = await save('New one', '--project', '1', '--project', '2')
    expect(twoProjects.code).toBe(2)
    expect(twoProjects.stderr).toContain('exactly one project: give --project once')

    const plates = await save('New one', 'plates', '--project', 'Kinase Inhibitors')
    expect(plates.code).toBe(1)
    expect(plates.stderr).toContain("the vault's saved searches find molecules only")

    const stray = await vaultDesk(['searches', '--vault', String(main), '--text', 'Q'])
    expect(stray.code).toBe(2)
    expect(stray.stderr).toContain('--text goes with "searches save NAME"')

    const items = await vaultDesk(['outbox', 'list', '--all', '--json'])
    const summaries = (JSON.parse(items.stdout) as { summary: string }[]).map(
      (item) => item.summary,
    )
    expect(summaries.filter((summary) => /New one|quinazoline CORES/i.test(summary))).toEqual([])
  })
})
