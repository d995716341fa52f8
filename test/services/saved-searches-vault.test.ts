/**
 * Saved searches through the contract, as a window asks for them, against the demo vault served
 * by the simulator over real HTTP (behind a relay that can cut the network): a saved search run
 * on the vault (its export polled, its file downloaded whole, read back by Debian's RDKit and
 * compared with the vault's own JSON run of it), cancelled (the vault's export cancelled too, no
 * file left), refused before anything is written; the current search of a list saved offline,
 * checked against the cache (used names, one project, parts a saved search cannot hold), queued
 * as `search.create`, sent once online and then run offline with the vault's own answer; and the
 * vault's refusal (422) kept in words on the item.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VaultClient } from '../../src-main/api/client.ts'
import { LimiterRegistry } from '../../src-main/api/limiter-registry.ts'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type {
  CachedRecordPage,
  SavedSearchProposal,
  SavedSearchRun,
  SavedSearchSaved,
  SavedSearchSummary,
  SavedSearchVaultRun,
} from '../../src-main/ipc/contract.ts'
import type { Services } from '../../src-main/services/index.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { networkSwitch, type NetworkSwitch } from '../outbox/support/network-switch.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { exportReadersHere, readSdf } from '../support/export-readers.ts'
import { nextEvent, testServices } from './support.ts'

const readersHere = exportReadersHere()
let sim: VaultSim
let network: NetworkSwitch
let services: Services
let dispose: () => Promise<void>
let dispatch: Dispatch
let client: VaultClient
let main: number
let connectionId: string
let folder: string

beforeAll(async () => {
  sim = await startDemoSnapshotSim({
    port: 0,
    exportTiming: { startDelayMs: 30, durationMs: 60 },
  })
  network = await networkSwitch(Number(new URL(sim.baseUrl).port))
  main = sim.cast.vaults.main.id
  const token = sim.cast.users.admin.tokens[0]!
  client = new VaultClient({
    baseUrl: sim.baseUrl,
    token,
    limiters: new LimiterRegistry(),
    exportPolling: { minIntervalMs: 2, maxIntervalMs: 10 },
  })
  ;({ services, dispose } = testServices({
    outbox: { retry: { baseDelayMs: 5, maxDelayMs: 40 }, pollMs: 20, progressIntervalMs: 10 },
  }))
  dispatch = createDispatcher(createHandlers(services), services.log)
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-saved-searches-'))
  const added = await call<{ connection: { id: string } }>('connections.add', {
    name: 'Lab',
    baseUrl: `http://127.0.0.1:${network.port}/api/v1`,
    token,
    sessionOnly: true,
  })
  connectionId = added.connection.id
  await syncOnce()
}, 180_000)

afterAll(async () => {
  await dispose?.()
  await network?.close()
  await sim?.stop()
  if (folder) fs.rmSync(folder, { recursive: true, force: true })
})

async function call<T>(channel: string, args: unknown): Promise<T> {
  const result = await dispatch(channel, args)
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`)
  return result.value as T
}

async function refusal(channel: string, args: unknown): Promise<{ code: string; message: string }> {
  const result = await dispatch(channel, args)
  if (result.ok) throw new Error(`${channel} was expected to fail`)
  return result.error
}

async function syncOnce(): Promise<void> {
  const synced = nextEvent(
    services,
    'sync.changed',
    (state) => state.connectionId === connectionId && !state.running,
  )
  await call('sync.start', { connectionId })
  expect(await synced).toMatchObject({ lastOutcome: 'completed' })
}

async function waitUntil(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const listed = () => call<SavedSearchSummary[]>('searches.list', { connectionId, vaultId: main })

/** Starts a run on the vault and gathers its events until it ends. */
async function runOnVault(
  args: Record<string, unknown>,
  onEvent: (run: SavedSearchVaultRun) => void = () => {},
): Promise<SavedSearchVaultRun[]> {
  const events: SavedSearchVaultRun[] = []
  let runId: string | null = null
  const early: SavedSearchVaultRun[] = []
  let settle: () => void = () => {}
  const ended = new Promise<void>((resolve) => (settle = resolve))
  const take = (run: SavedSearchVaultRun) => {
    events.push(run)
    onEvent(run)
    if (['completed', 'failed', 'cancelled'].includes(run.state)) settle()
  }
  const stop = services.events.on('searches.vaultRun', (run) => {
    if (runId === null) early.push(run)
    else if (run.runId === runId) take(run)
  })
  try {
    const started = await call<SavedSearchVaultRun>('searches.runOnVault', {
      connectionId,
      vaultId: main,
      ...args,
    })
    runId = started.runId
    for (const run of early) if (run.runId === runId) take(run)
    await ended
    return events
  } finally {
    stop()
  }
}

/** The vault's own run of a saved search (by its underlying search id), as molecule records. */
async function vaultAnswer(
  searchId: number,
): Promise<{ id: number; name: string; inProject: boolean }[]> {
  const finished = await client.searches.run(main, searchId)
  const molecules: { id: number; name: string; inProject: boolean }[] = []
  for await (const molecule of finished.records()) {
    molecules.push({
      id: molecule.id!,
      name: molecule.name!,
      // The vault adds the molecules of public data sets, which belong to no project.
      inProject: (molecule.projects ?? []).length > 0,
    })
  }
  return molecules
}

function searchIdOf(name: string): number {
  return (
    sim.core.db
      .prepare(`SELECT search_id FROM saved_search_sessions WHERE vault_id = ? AND name = ?`)
      .get(main, name) as { search_id: number }
  ).search_id
}

describe('a saved search run on the vault', () => {
  it.runIf(readersHere)(
    'polls its export and saves the file whole: the molecules the vault itself finds',
    async () => {
      const file = path.join(folder, 'quinazolines.sdf')
      const events = await runOnVault({ search: 'Quinazoline cores', format: 'sdf', path: file })
      const states = events.map((run) => run.state)
      expect(states[0]).toBe('waiting')
      expect(states).toContain('running')
      expect(states.at(-1)).toBe('completed')
      expect(states.indexOf('downloading')).toBeLessThan(states.indexOf('completed'))
      const last = events.at(-1)!
      expect(last.error).toBeUndefined()
      expect(last.bytes).toBe(fs.statSync(file).size)
      expect(fs.readdirSync(folder).filter((name) => name.includes('quinazolines'))).toEqual([
        'quinazolines.sdf',
      ])

      const expected = await vaultAnswer(searchIdOf('Quinazoline cores'))
      expect(expected.length).toBeGreaterThan(0)
      const records = readSdf(file)
      expect(records.every((record) => record !== null && record.atoms > 0)).toBe(true)
      const ids = records.map((record) => Number(record!.properties.id)).sort((a, b) => a - b)
      expect(ids).toEqual(expected.map((molecule) => molecule.id).sort((a, b) => a - b))
      const names = new Map(expected.map((molecule) => [molecule.id, molecule.name]))
      for (const record of records) {
        expect(String(record!.properties.name)).toBe(names.get(Number(record!.properties.id)))
      }
    },
  )

  it('cancels the vault’s export when cancelled, and leaves no file', async () => {
    const file = path.join(folder, 'cancelled.csv')
    sim.clock.freeze() // the export stays new on the vault until the clock moves
    try {
      const events = await runOnVault(
        { search: 'Priority 1 compounds', format: 'csv', path: file },
        (run) => {
          if (run.state === 'queued' || run.state === 'running') {
            void call('searches.cancelVaultRun', { runId: run.runId })
          }
        },
      )
      expect(events.at(-1)!.state).toBe('cancelled')
      const exportId = events.find((run) => run.exportId !== null)!.exportId!
      await waitUntil('the vault has cancelled the export', () => {
        const row = sim.core.db
          .prepare(`SELECT status FROM exports WHERE id = ?`)
          .get(exportId) as {
          status: string
        }
        return row.status === 'canceled'
      })
      expect(fs.readdirSync(folder).filter((name) => name.includes('cancelled'))).toEqual([])
    } finally {
      sim.clock.resume()
    }
    const again = await call<{ cancelled: boolean }>('searches.cancelVaultRun', {
      runId: '00000000-0000-4000-8000-000000000000',
    })
    expect(again.cancelled).toBe(false)
  })

  it('refuses a folder that does not exist, a wrong ending and an unknown search, writing nothing', async () => {
    const missing = path.join(folder, 'no-such-folder', 'hits.csv')
    const noFolder = await refusal('searches.runOnVault', {
      connectionId,
      vaultId: main,
      search: 'Quinazoline cores',
      format: 'csv',
      path: missing,
    })
    expect(noFolder.code).toBe('invalid_argument')
    expect(noFolder.message).toContain(path.dirname(missing))
    expect(noFolder.message).toContain('does not exist')

    const ending = await refusal('searches.runOnVault', {
      connectionId,
      vaultId: main,
      search: 'Quinazoline cores',
      format: 'sdf',
      path: path.join(folder, 'hits.csv'),
    })
    expect(ending).toMatchObject({ code: 'invalid_argument' })
    expect(ending.message).toContain('.sdf')

    const unknown = await refusal('searches.runOnVault', {
      connectionId,
      vaultId: main,
      search: 'No such search',
      format: 'csv',
      path: path.join(folder, 'unknown.csv'),
    })
    expect(unknown.code).toBe('not_found')
    expect(unknown.message).toContain("'Quinazoline cores'")
    expect(fs.readdirSync(folder).filter((name) => /hits|unknown/.test(name))).toEqual([])
  })
})

describe('the current search saved as a saved search', () => {
  const quinazoline = 'c1ccc2ncncc2c1'
  const kinase = () => sim.cast.projects.kinase.id
  const search = {
    kind: 'molecules',
    structure: { kind: 'substructure', query: quinazoline },
    fields: { Priority: '1' },
  }

  it('proposes the vault’s criteria in words and names what a saved search cannot hold', async () => {
    const proposal = await call<SavedSearchProposal>('searches.propose', {
      connectionId,
      vaultId: main,
      search: { ...search, text: 'quin' },
    })
    expect(proposal.unsaveable).toEqual([])
    expect(proposal.criteria).toEqual({
      keyword: 'quin',
      structure: quinazoline,
      structure_search_type: 'substructure',
      molecule_criteria: [{ name: 'Priority', number_value: 1 }],
    })
    expect(proposal.words).toContain(`containing the substructure ${quinazoline}`)
    expect(proposal.notes.join(' ')).toContain('name contains “quin”')
    expect(proposal.projects.map((project) => project.id)).toContain(kinase())

    const refused = await call<SavedSearchProposal>('searches.propose', {
      connectionId,
      vaultId: main,
      search: {
        kind: 'molecules',
        filters: { registration_type: 'NUCLEOTIDE' },
        properties: { molecularWeight: { max: 400 } },
        fields: { 'No such field': 'x' },
        structure: { kind: 'similarity', smiles: 'c1ccccc1', top: 10 },
      },
    })
    expect(refused.unsaveable.map((part) => part.part).sort()).toEqual([
      'fields.No such field',
      'filters.registration_type',
      'properties',
      'structure',
    ])
  })

  it('queues it offline once checked, sends it once online, and runs it offline as the vault does', async () => {
    const name = 'Quinazolines saved here'
    const search = { kind: 'molecules', structure: { kind: 'substructure', query: quinazoline } }
    await network.off()
    const unsaveable = await refusal('searches.save', {
      connectionId,
      vaultId: main,
      name,
      projectId: kinase(),
      search: { ...search, properties: { molecularWeight: { max: 400 } } },
    })
    expect(unsaveable.code).toBe('validation')
    expect(unsaveable.message).toContain('property ranges on molecularWeight')

    const used = await refusal('searches.save', {
      connectionId,
      vaultId: main,
      name: 'quinazoline CORES',
      projectId: 999_999,
      search,
    })
    expect(used.code).toBe('validation')
    expect(used.message).toContain("the name 'quinazoline CORES' is already used by saved search")
    expect(used.message).toContain('project 999999 is not among')

    const saved = await call<SavedSearchSaved>('searches.save', {
      connectionId,
      vaultId: main,
      name: ` ${name} `,
      projectId: kinase(),
      search,
    })
    expect(saved.name).toBe(name)
    expect(saved.words).toContain('Kinase')
    const waiting = (await listed()).find((summary) => summary.name === name)
    expect(waiting).toMatchObject({
      id: null,
      runsOnVault: false,
      pending: { itemId: saved.itemId },
    })

    const twice = await refusal('searches.save', {
      connectionId,
      vaultId: main,
      name,
      projectId: kinase(),
      search,
    })
    expect(twice.message).toContain(`queued by outbox item ${saved.itemId}`)
    const onVaultWhileQueued = await refusal('searches.runOnVault', {
      connectionId,
      vaultId: main,
      search: name,
      format: 'csv',
      path: path.join(folder, 'queued.csv'),
    })
    expect(onVaultWhileQueued.code).toBe('conflict')
    expect(onVaultWhileQueued.message).toContain('waiting in the outbox')

    await network.on()
    services.outbox.start()
    await waitUntil('the saved search has been sent', () => {
      const state = services.outbox.item(saved.itemId)?.state
      return state === 'sent' || state === 'needs_attention'
    })
    expect(services.outbox.item(saved.itemId)?.state).toBe('sent')
    const onServer = sim.core.db
      .prepare(
        `SELECT s.search_id, q.project_id, q.search_criteria FROM saved_search_sessions s JOIN saved_searches q ON q.id = s.search_id WHERE s.vault_id = ? AND s.name = ?`,
      )
      .all(main, name) as { search_id: number; project_id: number; search_criteria: string }[]
    expect(onServer).toHaveLength(1)
    expect(onServer[0]!.project_id).toBe(kinase())
    expect(JSON.parse(onServer[0]!.search_criteria)).toEqual({
      structure: quinazoline,
      structure_search_type: 'substructure',
    })

    await syncOnce()
    const synced = (await listed()).filter((summary) => summary.name === name)
    expect(synced).toHaveLength(1)
    expect(synced[0]).toMatchObject({ runsOnVault: true, pending: null })
    expect(synced[0]!.id).toEqual(expect.any(Number))

    // Offline, the saved search lists what the vault's own run finds in its project.
    const run = await call<SavedSearchRun>('searches.run', {
      connectionId,
      vaultId: main,
      search: name,
      translatablePart: true,
    })
    expect(run.question).toEqual({
      kind: 'molecules',
      projectId: kinase(),
      structure: { kind: 'substructure', query: quinazoline },
    })
    // The structure index is built on the first structure search: ask until it has answered whole.
    let page: CachedRecordPage
    for (;;) {
      page = await call<CachedRecordPage>('records.list', {
        connectionId,
        vaultId: main,
        ...run.question,
        limit: 1000,
      })
      const structure = page.structure
      if (structure?.complete !== false && structure?.indexing === undefined) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const vault = await vaultAnswer(onServer[0]!.search_id)
    const offline = page.rows.map((row) => row.id as number).sort((a, b) => a - b)
    const inProject = vault.filter((molecule) => molecule.inProject)
    expect(inProject.length).toBeGreaterThan(0)
    expect(offline).toEqual(inProject.map((molecule) => molecule.id).sort((a, b) => a - b))
  }, 300_000)

  it('keeps the vault’s refusal of a name taken meanwhile in words on the item', async () => {
    const name = `Taken meanwhile ${Date.now()}`
    await client.searches.create(main, {
      name,
      projects: [sim.cast.projects.kinase.id],
      search_criteria: { structure: 'c1ccccc1' },
    })
    const saved = await call<SavedSearchSaved>('searches.save', {
      connectionId,
      vaultId: main,
      name,
      projectId: sim.cast.projects.kinase.id,
      search: { kind: 'molecules', structure: { kind: 'exact', query: 'c1ccccc1' } },
    })
    await waitUntil('the vault has answered', () => {
      const state = services.outbox.item(saved.itemId)?.state
      return state !== 'queued' && state !== 'sending'
    })
    const item = services.outbox.item(saved.itemId)!
    expect(item.state).toBe('needs_attention')
    expect(item.lastError).toContain(`'${name}' is already the name of a saved search`)
  })
})
