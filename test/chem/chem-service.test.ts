/**
 * Chemistry through the contract, end to end: the simulator over loopback, real sync into a real
 * SQLite cache, the ingest hook computing fingerprints in real RDKit workers, and searches,
 * depictions and properties answered from the index.
 */
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type {
  CachedRecordPage,
  ChemIndexProgress,
  Depiction,
  MoleculeProperties,
  QueryDepiction,
  StructureIndexState,
} from '../../src-main/ipc/contract.ts'
import type { Services } from '../../src-main/services/index.ts'
import { cacheFile } from '../../src-main/store/cache-files.ts'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { nextEvent, recordEvents, testServices } from '../services/support.ts'

/** Written for these tests: rings, acids, phenols, stereo, heteroatoms; names searched as text. */
const molecules: [name: string, smiles: string][] = [
  ['Benzene', 'c1ccccc1'],
  ['Toluene', 'Cc1ccccc1'],
  ['Phenol', 'Oc1ccccc1'],
  ['Pyridine', 'c1ccncc1'],
  ['Paracetamol', 'CC(=O)Nc1ccc(O)cc1'],
  ['Aspirin', 'CC(=O)Oc1ccccc1C(=O)O'],
  ['Caffeine', 'Cn1cnc2c1c(=O)n(C)c(=O)n2C'],
  ['Ibuprofen', 'CC(C)Cc1ccc(cc1)C(C)C(=O)O'],
  ['Ethanol', 'CCO'],
  ['Cyclohexanol', 'OC1CCCCC1'],
  ['Naphthalene', 'c1ccc2ccccc2c1'],
  ['Indole', 'c1ccc2[nH]ccc2c1'],
  ['Benzoic acid', 'OC(=O)c1ccccc1'],
  ['Chlorobenzene', 'Clc1ccccc1'],
  ['Aniline', 'Nc1ccccc1'],
  ['Salicylic acid', 'OC(=O)c1ccccc1O'],
  ['Methyl salicylate', 'COC(=O)c1ccccc1O'],
  ['Acetanilide', 'CC(=O)Nc1ccccc1'],
  ['Nicotine', 'CN1CCC[C@H]1c1cccnc1'],
  ['Cyclohexane', 'C1CCCCC1'],
  ['Stearic acid', 'CCCCCCCCCCCCCCCCCC(=O)O'],
]

let sim: VaultSim
let simStopped = false
let services: Services
let dispose: () => Promise<void>
let dispatch: Dispatch
let token: string
let main: number
let ai: number
let connectionId: string
const ids = new Map<string, number>()
let aiMolecule: number

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${sim.baseUrl}${path}`, {
    method,
    headers: { 'X-SVC-Token': token, 'Content-Type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  const answer = (await response.json()) as Record<string, unknown>
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`)
  return answer
}

async function call<T>(channel: string, args: unknown): Promise<T> {
  const result = await dispatch(channel, args)
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`)
  return result.value as T
}

async function refused(channel: string, args: unknown): Promise<{ code: string; message: string }> {
  const result = await dispatch(channel, args)
  if (result.ok) throw new Error(`${channel} answered ${JSON.stringify(result.value)}`)
  return result.error
}

async function sync(): Promise<void> {
  const finished = nextEvent(
    services,
    'sync.changed',
    (state) => state.connectionId === connectionId && !state.running,
  )
  await call('sync.start', { connectionId })
  expect(await finished).toMatchObject({ lastOutcome: 'completed' })
}

async function list(args: Record<string, unknown>): Promise<CachedRecordPage> {
  return call<CachedRecordPage>('records.list', {
    connectionId,
    vaultId: main,
    kind: 'molecules',
    ...args,
  })
}

function names(page: CachedRecordPage): string[] {
  return page.rows.map((row) => String(row.json.name))
}

/** When each molecule of the main vault was last computed, straight from the cache file. */
function computedAt(): Map<number, string> {
  const db = new Database(cacheFile(services.config.dataDir, connectionId), { readonly: true })
  try {
    const rows = db
      .prepare('SELECT molecule_id, computed_at FROM structure_index WHERE vault_id = ?')
      .all(main) as { molecule_id: number; computed_at: string }[]
    return new Map(rows.map((row) => [row.molecule_id, row.computed_at]))
  } finally {
    db.close()
  }
}

beforeAll(async () => {
  sim = await startVaultSim({ port: 0, seed: 'empty' })
  token = sim.cast.users.admin.tokens[0]!
  main = sim.cast.vaults.main.id
  ai = sim.cast.vaults.ai.id
  for (const [name, smiles] of molecules) {
    const created = await api('POST', `/vaults/${main}/molecules`, {
      name,
      smiles,
      projects: [sim.cast.projects.kinase.id],
    })
    ids.set(name, Number(created.id))
  }
  const batch = await api('POST', `/vaults/${ai}/batches`, {
    projects: [sim.cast.projects.aiExploration.id],
    molecule: { smiles: 'OC(=O)c1ccccc1O' },
    batch_fields: { 'Purity (%)': 98, Chemist: 'A. Tester' },
  })
  aiMolecule = Number((batch.molecule as { id: number }).id)

  ;({ services, dispose } = testServices({ chemWorkers: 2, structureIngest: true }))
  dispatch = createDispatcher(createHandlers(services), services.log)
  const added = await call<{ connection: { id: string } }>('connections.add', {
    name: 'Lab',
    baseUrl: sim.baseUrl,
    token,
    sessionOnly: true,
  })
  connectionId = added.connection.id
}, 60_000)

afterAll(async () => {
  await dispose?.()
  if (!simStopped) await sim?.stop()
})

describe('chemistry from the cache', () => {
  it('indexes the molecules sync commits, in the workers, announcing progress', async () => {
    const events = recordEvents(services)
    // Nothing but the sync's ingest hook asks for the index here.
    const indexed = nextEvent(
      services,
      'chem.indexProgress',
      (progress) => progress.vaultId === main && progress.indexed === molecules.length,
    )
    await sync()
    await indexed
    const summary = await services.chem.buildIndex(connectionId, main)
    expect(summary.unparseable).toBe(0)
    const state = await call<StructureIndexState>('chem.indexState', {
      connectionId,
      vaultId: main,
    })
    expect(state).toEqual({
      indexed: molecules.length,
      total: molecules.length,
      unparseable: 0,
      detailsPending: 0,
      building: false,
    })
    const progress = events
      .filter((event) => event.name === 'chem.indexProgress')
      .map((event) => event.payload as ChemIndexProgress)
      .filter((payload) => payload.vaultId === main)
    expect(progress.at(-1)).toEqual({
      connectionId,
      vaultId: main,
      indexed: molecules.length,
      total: molecules.length,
      detailsPending: 0,
    })
    expect(computedAt().size).toBe(molecules.length)
  })

  it('finds substructures by SMILES and SMARTS, combined with text and property ranges', async () => {
    const benzenes = await list({ structure: { kind: 'substructure', query: 'c1ccccc1' } })
    expect(benzenes.structure).toEqual({ skippedUnparseable: 0, pendingDetails: 0, complete: true })
    expect(names(benzenes).sort()).toEqual(
      [
        'Benzene',
        'Toluene',
        'Phenol',
        'Paracetamol',
        'Aspirin',
        'Ibuprofen',
        'Naphthalene',
        'Indole',
        'Benzoic acid',
        'Chlorobenzene',
        'Aniline',
        'Salicylic acid',
        'Methyl salicylate',
        'Acetanilide',
      ].sort(),
    )
    expect(benzenes.total).toBe(14)
    // Without a sort, in index order (by id).
    const order = benzenes.rows.map((row) => Number(row.id))
    expect(order).toEqual([...order].sort((a, b) => a - b))

    const phenols = await list({
      structure: { kind: 'substructure', query: '[OX2H]c1ccccc1', language: 'smarts' },
      sort: 'name',
    })
    expect(names(phenols)).toEqual(['Methyl salicylate', 'Paracetamol', 'Phenol', 'Salicylic acid'])

    const acids = await list({
      text: 'acid',
      structure: { kind: 'substructure', query: 'c1ccccc1' },
      sort: 'name',
    })
    expect(names(acids)).toEqual(['Benzoic acid', 'Salicylic acid'])

    const small = await list({
      structure: { kind: 'substructure', query: 'c1ccccc1' },
      properties: { molecularWeight: { max: 100 }, heavyAtomCount: { min: 7 } },
      sort: 'name',
    })
    expect(names(small)).toEqual(['Aniline', 'Phenol', 'Toluene'])

    const paged = await list({
      structure: { kind: 'substructure', query: 'c1ccccc1' },
      limit: 5,
      offset: 10,
    })
    expect(paged.total).toBe(14)
    expect(paged.rows.map((row) => Number(row.id))).toEqual(order.slice(10, 15))
  })

  it('filters on property ranges alone, the vault giving some values and RDKit the rest', async () => {
    const lipinski = await list({
      properties: { hBondDonorCount: { min: 2 }, ruleOf5Violations: { max: 0 } },
      sort: 'name',
    })
    expect(names(lipinski)).toEqual(['Paracetamol', 'Salicylic acid'])
    for (const record of lipinski.rows) {
      const { computed } = await call<MoleculeProperties>('chem.properties', {
        connectionId,
        vaultId: main,
        moleculeId: Number(record.id),
      })
      expect(computed.hBondDonorCount).toBeGreaterThanOrEqual(2)
    }
    const heavy = await list({ properties: { molecularWeight: { min: 250 } }, sort: 'name' })
    expect(names(heavy)).toEqual(['Stearic acid'])

    const properties = await call<MoleculeProperties>('chem.properties', {
      connectionId,
      vaultId: main,
      moleculeId: ids.get('Aspirin')!,
    })
    expect(properties.computed.molecularWeight).toBeCloseTo(180.16, 1)
    expect(properties.computed.hBondDonorCount).toBe(1)
    expect(properties.computed.aromaticRingCount).toBe(1)
    // The simulator gives molecular weight and log P (and more) itself: those are its values.
    expect(properties.fromServer).toContain('molecularWeight')
    expect(properties.fromServer).toContain('logP')
  })

  it('finds exact structures by any SMILES of them, or by InChIKey', async () => {
    const benzoic = await list({ structure: { kind: 'exact', query: 'c1ccccc1C(O)=O' } })
    expect(names(benzoic)).toEqual(['Benzoic acid'])
    const ethanol = await list({
      structure: { kind: 'exact', query: 'LFQSCWFLJHTTHZ-UHFFFAOYSA-N' },
    })
    expect(names(ethanol)).toEqual(['Ethanol'])
    const otherStereo = await list({
      structure: { kind: 'exact', query: 'CN1CCC[C@@H]1c1cccnc1' },
    })
    expect(otherStereo.total).toBe(0)
  })

  it('ranks similar molecules best first, by threshold or top k, with scores', async () => {
    const similar = await list({
      structure: { kind: 'similarity', smiles: 'OC(=O)c1ccccc1O', threshold: 0.3 },
    })
    expect(names(similar)[0]).toBe('Salicylic acid')
    const scores = similar.structure!.scores!
    const ranked = similar.rows.map((row) => scores[String(row.id)]!)
    expect(ranked[0]).toBe(1)
    expect(ranked).toEqual([...ranked].sort((a, b) => b - a))
    expect(ranked.every((score) => score >= 0.3)).toBe(true)
    expect(names(similar)).toContain('Methyl salicylate')
    expect(names(similar)).not.toContain('Cyclohexane')

    const top = await list({ structure: { kind: 'similarity', smiles: 'c1ccccc1O', top: 3 } })
    expect(top.total).toBe(3)
    expect(names(top)[0]).toBe('Phenol')
    expect(Object.keys(top.structure!.scores!)).toHaveLength(3)

    const byName = await list({
      structure: { kind: 'similarity', smiles: 'c1ccccc1O', top: 3 },
      sort: 'name',
    })
    expect(names(byName)).toEqual([...names(top)].sort())
  })

  it('names the problem of an invalid query, and refuses what the contract forbids', async () => {
    const smarts = await refused('records.list', {
      connectionId,
      vaultId: main,
      kind: 'molecules',
      structure: { kind: 'substructure', query: '[C;X4', language: 'smarts' },
    })
    expect(smarts.code).toBe('invalid_argument')
    expect(smarts.message).toMatch(/SMARTS/)
    const smiles = await refused('records.list', {
      connectionId,
      vaultId: main,
      kind: 'molecules',
      structure: { kind: 'similarity', smiles: 'C1CC(' },
    })
    expect(smiles.code).toBe('invalid_argument')
    expect(smiles.message).toMatch(/SMILES/)

    for (const args of [
      { kind: 'batches', structure: { kind: 'substructure', query: 'c1ccccc1' } },
      { kind: 'molecules', properties: { weight: { max: 1 } } },
      { kind: 'molecules', properties: { logP: { min: 3, max: 1 } } },
      { kind: 'molecules', structure: { kind: 'similarity', smiles: 'CCO', top: 0 } },
      { kind: 'molecules', structure: { kind: 'similarity', smiles: 'CCO', threshold: 1.5 } },
      { kind: 'molecules', structure: { kind: 'fuzzy', query: 'CCO' } },
    ]) {
      const error = await refused('records.list', { connectionId, vaultId: main, ...args })
      expect(error.code, JSON.stringify(args)).toBe('invalid_argument')
    }
    const many = await refused('chem.depictMany', {
      connectionId,
      vaultId: main,
      moleculeIds: Array.from({ length: 201 }, (_, index) => index),
    })
    expect(many.code).toBe('invalid_argument')
    expect(
      (await refused('chem.depict', { connectionId, vaultId: main, moleculeId: 987_654 })).code,
    ).toBe('not_found')

    const invalid = await call<QueryDepiction>('chem.depictQuery', { text: 'C1CC(' })
    expect(invalid.kind).toBe('invalid')
    const drawn = await call<QueryDepiction>('chem.depictQuery', { text: '[#6]~[#7]' })
    expect(drawn).toMatchObject({ kind: 'svg', language: 'smarts' })
    expect((drawn as { svg: string }).svg).toContain('<svg')
  })

  it('draws thumbnails, details and highlighted hits, cached until the structure changes', async () => {
    const aspirin = ids.get('Aspirin')!
    const thumbnails = await call<Record<string, Depiction>>('chem.depictMany', {
      connectionId,
      vaultId: main,
      moleculeIds: [aspirin, ids.get('Phenol')!, 987_654],
    })
    expect(Object.keys(thumbnails).sort()).toEqual(
      [String(aspirin), String(ids.get('Phenol'))].sort(),
    )
    expect(thumbnails[String(aspirin)]).toMatchObject({ kind: 'svg', highlighted: false })
    const detail = await call<Depiction>('chem.depict', {
      connectionId,
      vaultId: main,
      moleculeId: aspirin,
      size: 'detail',
    })
    expect(detail.kind).toBe('svg')
    const highlighted = await call<Depiction>('chem.depict', {
      connectionId,
      vaultId: main,
      moleculeId: aspirin,
      highlight: { query: 'C(=O)O' },
    })
    expect(highlighted).toMatchObject({ kind: 'svg', highlighted: true })
  })

  it('recomputes only the molecule whose structure changed, and draws it anew', async () => {
    const toluene = ids.get('Toluene')!
    // Corrected within the second it was last synced: the vault gives it the modified_at it had,
    // so only its structure tells. The clock stands still from that sync to the correction, so
    // that the next pass (from a second before the last began) fetches it however slow the
    // machine.
    sim.clock.set(Date.now())
    sim.clock.freeze()
    let corrected: Record<string, unknown>
    let before: Map<number, string>
    let oldDrawing: Depiction
    try {
      const touched = await api('PUT', `/vaults/${main}/molecules/${toluene}`, {
        smiles: 'Cc1ccccc1',
      })
      await sync()
      await services.chem.buildIndex(connectionId, main)
      before = computedAt()
      oldDrawing = await call<Depiction>('chem.depict', {
        connectionId,
        vaultId: main,
        moleculeId: toluene,
      })
      corrected = await api('PUT', `/vaults/${main}/molecules/${toluene}`, {
        smiles: 'CCc1ccccc1',
      })
      expect(corrected.modified_at).toBe(touched.modified_at)
    } finally {
      sim.clock.resume()
      sim.clock.set(Date.now())
    }
    expect(corrected.smiles).toBe('CCc1ccccc1')
    await sync()
    await services.chem.buildIndex(connectionId, main)
    const after = computedAt()
    const changed = [...after].filter(([id, at]) => before.get(id) !== at).map(([id]) => id)
    expect(changed).toEqual([toluene])
    const newDrawing = await call<Depiction>('chem.depict', {
      connectionId,
      vaultId: main,
      moleculeId: toluene,
    })
    expect(newDrawing.kind).toBe('svg')
    expect(newDrawing).not.toEqual(oldDrawing)
    expect(names(await list({ structure: { kind: 'exact', query: 'CCc1ccccc1' } }))).toEqual([
      'Toluene',
    ])
    expect(
      await services.chem.buildIndex(connectionId, main),
      'nothing left to compute',
    ).toMatchObject({ computed: 0, removed: 0 })
  })

  it('keeps a molecule it cannot parse browsable, flags it, and counts it as skipped', async () => {
    const runtime = services.runtimes.get(connectionId)
    const broken = 900_001
    runtime.cache.applyPage('molecules', main, [
      {
        id: broken,
        name: 'Unreadable acid',
        smiles: 'c1cccc1C(=O)O',
        modified_at: '2026-01-01T00:00:00Z',
      },
    ])
    const summary = await services.chem.buildIndex(connectionId, main)
    expect(summary).toMatchObject({ computed: 1, unparseable: 1 })

    const plain = await list({ text: 'unreadable' })
    expect(names(plain)).toEqual(['Unreadable acid'])
    const record = await call<{ record: { json: { smiles: string } } }>('records.get', {
      connectionId,
      vaultId: main,
      kind: 'molecules',
      id: broken,
    })
    expect(record.record.json.smiles).toBe('c1cccc1C(=O)O')
    const drawing = await call<Depiction>('chem.depict', {
      connectionId,
      vaultId: main,
      moleculeId: broken,
    })
    expect(drawing.kind).toBe('unparseable')
    expect((drawing as { reason: string }).reason).toMatch(/kekulize|SMILES/i)

    const search = await list({ structure: { kind: 'substructure', query: 'C(=O)O' } })
    expect(search.structure).toMatchObject({ skippedUnparseable: 1, complete: true })
    expect(names(search)).not.toContain('Unreadable acid')
    const withText = await list({
      text: 'acid',
      structure: { kind: 'similarity', smiles: 'OC(=O)c1ccccc1', top: 10 },
    })
    expect(withText.structure!.skippedUnparseable).toBe(1)
    expect(
      await call<StructureIndexState>('chem.indexState', { connectionId, vaultId: main }),
    ).toMatchObject({ unparseable: 1, indexed: molecules.length + 1 })

    // The server never had it: the next sync's deletion check drops it, and ingest follows.
    await sync()
    await services.chem.buildIndex(connectionId, main)
    expect(
      await call<StructureIndexState>('chem.indexState', { connectionId, vaultId: main }),
    ).toMatchObject({ unparseable: 0, indexed: molecules.length, total: molecules.length })
    expect(
      (await refused('chem.depict', { connectionId, vaultId: main, moleculeId: broken })).code,
    ).toBe('not_found')
  })

  it("asks the vault's own structure tools where it has them, and says why elsewhere", async () => {
    const similar = await call<{ results: { smiles: string; svg: string | null }[] }>(
      'chem.serverTools',
      { connectionId, vaultId: ai, moleculeId: aiMolecule, tool: 'similar' },
    )
    expect(similar.results.length).toBeGreaterThan(0)
    expect(similar.results[0]!.svg).toContain('<svg')
    const fragments = await call<{ results: { smiles: string }[] }>('chem.serverTools', {
      connectionId,
      vaultId: ai,
      moleculeId: aiMolecule,
      tool: 'fragments',
    })
    expect(fragments.results.length).toBeGreaterThan(0)

    const lacking = await refused('chem.serverTools', {
      connectionId,
      vaultId: main,
      moleculeId: ids.get('Aspirin')!,
      tool: 'bioisosteres',
    })
    expect(lacking.code).toBe('forbidden')
    expect(services.runtimes.get(connectionId).client.needsNewToken).toBe(false)

    await sim.stop()
    simStopped = true
    const offline = await refused('chem.serverTools', {
      connectionId,
      vaultId: ai,
      moleculeId: aiMolecule,
      tool: 'similar',
    })
    expect(offline.code).toBe('offline')
    // Everything else still answers from the cache.
    expect((await list({ structure: { kind: 'substructure', query: 'c1ccncc1' } })).total).toBe(2)
  })
})
