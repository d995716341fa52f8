import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type {
  CachedRecordPage,
  OutboxItemView,
  RegistrationForm,
  RegistrationRequest,
  RegistrationResult,
} from '../../src-main/ipc/contract.ts'
import type { Services } from '../../src-main/services/index.ts'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { networkSwitch, type NetworkSwitch } from '../outbox/support/network-switch.ts'
import { nextEvent, testServices } from './support.ts'

let sim: VaultSim
let network: NetworkSwitch
let services: Services
let dispose: () => Promise<void>
let dispatch: Dispatch
let plain: number
let registration: number
let connectionId: string

beforeAll(async () => {
  sim = await startVaultSim({ port: 0, seed: 40 })
  network = await networkSwitch(Number(new URL(sim.baseUrl).port))
  plain = sim.cast.vaults.main.id
  registration = sim.cast.vaults.ai.id
})
afterAll(async () => {
  await network.close()
  await sim.stop()
})
beforeEach(async () => {
  await network.on()
  ;({ services, dispose } = testServices({
    outbox: { retry: { baseDelayMs: 5, maxDelayMs: 40 }, pollMs: 20, progressIntervalMs: 10 },
  }))
  dispatch = createDispatcher(createHandlers(services), services.log)
  const added = await call<{ connection: { id: string } }>('connections.add', {
    name: 'Lab',
    baseUrl: `http://127.0.0.1:${network.port}/api/v1`,
    token: sim.cast.users.writer.tokens[0]!,
    sessionOnly: true,
  })
  connectionId = added.connection.id
  const synced = nextEvent(
    services,
    'sync.changed',
    (state) => state.connectionId === connectionId && !state.running,
  )
  await call('sync.start', { connectionId })
  expect(await synced).toMatchObject({ lastOutcome: 'completed' })
})
afterEach(() => dispose())

async function call<T>(channel: string, args: unknown): Promise<T> {
  const result = await dispatch(channel, args)
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`)
  return result.value as T
}

async function waitUntil(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const form = (vaultId: number) =>
  call<RegistrationForm>('registration.form', { connectionId, vaultId })

const register = (request: Omit<RegistrationRequest, 'connectionId'>) =>
  call<RegistrationResult>('registration.queue', { connectionId, ...request })

const list = (vaultId: number, kind: string, options: object = {}) =>
  call<CachedRecordPage>('records.list', { connectionId, vaultId, kind, ...options })

const item = (id: number) => services.outbox.item(id)

async function sendAll(): Promise<void> {
  await network.on()
  services.outbox.start()
  await waitUntil('the outbox has settled', () => {
    const counts = services.outbox.counts()
    return counts.queued === 0 && counts.sending === 0
  })
}

const simRows = <T>(sql: string, ...args: unknown[]) => sim.core.db.prepare(sql).all(...args) as T[]

const kinase = () => sim.cast.projects.kinase.id
const aiProject = () => sim.cast.projects.aiExploration.id

/** A structure no seeded molecule has: a long chain whose length `n` sets apart. */
const novel = (n: number) => `OC(=O)${'C'.repeat(n)}N1CCOCC1`

describe('the registration form', () => {
  it('reads each vault kind, its fields, projects and salts from the cache', async () => {
    const plainForm = await form(plain)
    expect(plainForm).toMatchObject({ vaultKind: 'plain', registrationSystem: null })
    expect(plainForm.projects.map((project) => project.id)).toContain(kinase())
    expect(plainForm.moleculeFields).toContainEqual(
      expect.objectContaining({ name: 'Series', type: 'Pick List', required: false }),
    )
    expect(plainForm.moleculeFields).toContainEqual(
      expect.objectContaining({ name: 'Supplier ID', type: 'Text', unique: true }),
    )
    // The vault defines batch fields, but the service writes them in registration vaults only.
    expect(plainForm.batchFields).toEqual([])
    expect(plainForm.salts.length).toBeGreaterThan(0)

    const registrationForm = await form(registration)
    expect(registrationForm).toMatchObject({
      vaultKind: 'registration',
      registrationSystem: {
        name: 'Discovery AI Registration',
        prefix: expect.stringMatching(/^AI-/),
      },
      projects: [{ id: aiProject(), name: 'AI Exploration' }],
    })
    expect(
      registrationForm.batchFields.filter((field) => field.required).map((f) => f.name),
    ).toEqual(['Purity (%)', 'Chemist'])
  })

  it('says a vault the cache does not hold must be synced first', async () => {
    const result = await dispatch('registration.form', { connectionId, vaultId: 999_999 })
    expect(result).toMatchObject({ ok: false, error: { code: 'not_found' } })
    expect(result.ok ? '' : result.error.message).toMatch(/sync it first/)
  })
})

describe('registering in a vault without a registration system', () => {
  it('queues a molecule and a batch of it offline, shows both pending, and sends each once', async () => {
    await network.off()
    const smiles = novel(11)
    const result = await register({
      vaultId: plain,
      structure: { format: 'smiles', text: smiles },
      name: 'VD-Offline-1',
      projects: [kinase()],
      moleculeFields: { Series: '', Priority: '2', 'First Synthesized': '2026-11-02' },
      batch: { fields: {}, saltName: 'HC' },
      duplicate: { kind: 'none' },
    })
    expect(result).toEqual({ ok: true, items: [expect.any(Number), expect.any(Number)] })
    const [moleculeItem, batchItem] = (result as { items: number[] }).items as [number, number]
    expect(item(moleculeItem)).toMatchObject({
      operation: 'molecule.create',
      state: 'queued',
      summary: 'Register the molecule "VD-Offline-1"',
    })
    expect(item(batchItem)).toMatchObject({
      operation: 'batch.create',
      summary: `Create a batch of the molecule of item ${moleculeItem}`,
      payload: { molecule: { item: moleculeItem }, salt_name: 'HC' },
    })
    expect(item(batchItem).payload).not.toHaveProperty('batch_fields')

    // Pending at once: listed first, marked, with what was given.
    const molecules = await list(plain, 'molecules', { text: 'VD-Offline' })
    expect(molecules.rows).toEqual([
      expect.objectContaining({
        id: null,
        json: expect.objectContaining({ name: 'VD-Offline-1', smiles }),
        pending: expect.objectContaining({ createdBy: moleculeItem, state: 'queued' }),
      }),
    ])
    const batches = await list(plain, 'batches', { limit: 5 })
    expect(batches.rows[0]).toMatchObject({
      id: null,
      json: { salt_name: 'HC' },
      pending: { createdBy: batchItem },
    })

    // Found by structure searches before it is sent: matched in a chemistry worker.
    const found = (structure: object, options: object = {}) =>
      list(plain, 'molecules', { structure, limit: 5, ...options }).then((page) =>
        page.rows.filter((row) => row.id === null).map((row) => row.json.name),
      )
    expect(await found({ kind: 'substructure', query: 'C1COCCN1' })).toEqual(['VD-Offline-1'])
    expect(await found({ kind: 'exact', query: 'O=C(O)CCCCCCCCCCCN1CCOCC1' })).toEqual([
      'VD-Offline-1',
    ])
    expect(await found({ kind: 'similarity', smiles: novel(10), threshold: 0.5 })).toEqual([
      'VD-Offline-1',
    ])
    expect(await found({ kind: 'substructure', query: 'c1ccccc1' })).toEqual([])
    expect(await found({ kind: 'exact', query: novel(10) })).toEqual([])
    expect(await found({ kind: 'substructure', query: 'C1COCCN1' }, { text: 'Offline' })).toEqual([
      'VD-Offline-1',
    ])
    expect(await found({ kind: 'substructure', query: 'C1COCCN1' }, { text: 'zzz' })).toEqual([])

    await sendAll()
    expect(item(moleculeItem)).toMatchObject({ state: 'sent', serverId: expect.any(Number) })
    expect(item(batchItem)).toMatchObject({ state: 'sent', serverId: expect.any(Number) })
    const moleculeId = item(moleculeItem).serverId!
    const onServer = simRows<{ id: number; fields: string }>(
      'SELECT id, fields FROM molecules WHERE name = ?',
      'VD-Offline-1',
    )
    expect(onServer.map((row) => row.id)).toEqual([moleculeId])
    expect(JSON.parse(onServer[0]!.fields)).toMatchObject({ Priority: 2 })
    expect(
      simRows<{ id: number }>('SELECT id FROM batches WHERE molecule_id = ?', moleculeId),
    ).toEqual([{ id: item(batchItem).serverId }])
  })

  it('adds a batch to an existing molecule when the person chooses it', async () => {
    const [existing] = simRows<{ id: number }>(
      `SELECT m.id FROM molecules m JOIN molecule_projects p ON p.molecule_id = m.id
       WHERE m.vault_id = ? AND p.project_id = ? ORDER BY m.id LIMIT 1`,
      plain,
      kinase(),
    )
    const batchCount = () =>
      simRows('SELECT id FROM batches WHERE molecule_id = ?', existing!.id).length
    const before = batchCount()
    const result = await register({
      vaultId: plain,
      structure: { format: 'smiles', text: 'C' },
      projects: [kinase()],
      moleculeFields: {},
      batch: { fields: {} },
      duplicate: { kind: 'existing', moleculeId: existing!.id },
    })
    expect(result).toEqual({ ok: true, items: [expect.any(Number)] })
    await sendAll()
    expect(item((result as { items: number[] }).items[0]!)).toMatchObject({ state: 'sent' })
    expect(batchCount()).toBe(before + 1)
  })

  it('names each problem and queues nothing: name, project, structure, pick list, types', async () => {
    // The vault's pick list values, as sync keeps them with the field definitions.
    expect((await form(plain)).moleculeFields.find((f) => f.name === 'Series')!.choices).toContain(
      'Ureas',
    )
    const pendingBefore = services.outbox.counts().pending

    const result = await register({
      vaultId: plain,
      structure: { format: 'smiles', text: 'C1CC(N' },
      projects: [kinase(), 424_242],
      moleculeFields: {
        Series: 'Macrocycles',
        Priority: 'high',
        'First Synthesized': '2026-02-30',
        Colour: 'blue',
      },
      batch: { fields: { 'Purity (%)': '9O' }, stoichiometry: { core: 1, salt: 1, solvent: 0 } },
      duplicate: { kind: 'none' },
    })
    expect(result.ok).toBe(false)
    const problems = (result as { problems: { member: string; message: string }[] }).problems
    const members = problems.map((problem) => problem.member).sort()
    expect(members).toEqual(
      [
        'batch.fields',
        'batch.stoichiometry',
        'moleculeFields.Colour',
        'moleculeFields.First Synthesized',
        'moleculeFields.Priority',
        'moleculeFields.Series',
        'name',
        'projects',
        'structure',
      ].sort(),
    )
    const message = (member: string) => problems.find((problem) => problem.member === member)!
    expect(message('structure').message).toMatch(/cannot be read/)
    expect(message('batch.fields').message).toMatch(/only .* with a registration system/)
    expect(message('projects').message).toMatch(/project 424242 is not a project/)
    expect(message('moleculeFields.Series').message).toMatch(/must be one of .*"Ureas"/)
    expect(message('moleculeFields.Priority').message).toMatch(/must be a number, got "high"/)
    expect(message('moleculeFields.First Synthesized').message).toMatch(/YYYY-MM-DD/)
    expect(services.outbox.counts().pending).toBe(pendingBefore)

    // A used name is refused before the vault would refuse it.
    const [used] = simRows<{ name: string }>(
      'SELECT name FROM molecules WHERE vault_id = ? ORDER BY id LIMIT 1',
      plain,
    )
    const again = await register({
      vaultId: plain,
      structure: { format: 'smiles', text: 'CCO' },
      name: used!.name,
      projects: [kinase()],
      moleculeFields: {},
      duplicate: { kind: 'none' },
    })
    expect(again).toMatchObject({ ok: false, problems: [{ member: 'name' }] })
  })
})

describe('registering in a vault with a registration system', () => {
  it('creates a new batch with its molecule, numbered by the vault, online', async () => {
    const smiles = novel(12)
    const result = await register({
      vaultId: registration,
      structure: { format: 'smiles', text: smiles },
      projects: [aiProject()],
      moleculeFields: {},
      batch: { fields: { 'Purity (%)': 99, Chemist: 'R. Egister' } },
      duplicate: { kind: 'none' },
    })
    expect(result).toEqual({ ok: true, items: [expect.any(Number)] })
    const itemId = (result as { items: number[] }).items[0]!
    expect(item(itemId)).toMatchObject({
      operation: 'batch.create',
      payload: { molecule: { smiles, duplicate_resolution: 'prompt' } },
    })
    await sendAll()
    expect(item(itemId)).toMatchObject({ state: 'sent' })
    const [batch] = simRows<{ molecule_id: number }>(
      'SELECT molecule_id FROM batches WHERE id = ?',
      item(itemId).serverId,
    )
    const [molecule] = simRows<{ name: string; vault_id: number }>(
      'SELECT name, vault_id FROM molecules WHERE id = ?',
      batch!.molecule_id,
    )
    expect(molecule).toMatchObject({ vault_id: registration, name: expect.stringMatching(/^AI-/) })
  })

  it('queues offline, and the vault refuses a known structure by name unless told otherwise', async () => {
    const [known] = simRows<{ id: number; name: string; smiles: string }>(
      `SELECT id, name, smiles FROM molecules WHERE vault_id = ? AND smiles IS NOT NULL
       ORDER BY id LIMIT 1`,
      registration,
    )
    await network.off()
    const fields = { 'Purity (%)': '95', Chemist: 'D. Uplicate' }
    const prompt = await register({
      vaultId: registration,
      structure: { format: 'smiles', text: known!.smiles },
      projects: [aiProject()],
      moleculeFields: {},
      batch: { fields },
      duplicate: { kind: 'none' },
    })
    const asNew = await register({
      vaultId: registration,
      structure: { format: 'smiles', text: known!.smiles },
      projects: [aiProject()],
      moleculeFields: {},
      batch: { fields },
      duplicate: { kind: 'new' },
    })
    const promptItem = (prompt as { items: number[] }).items[0]!
    const newItem = (asNew as { items: number[] }).items[0]!
    const pendingBatches = await list(registration, 'batches', { limit: 5 })
    expect(pendingBatches.rows.filter((row) => row.id === null)).toHaveLength(2)

    await sendAll()
    const refused: OutboxItemView = item(promptItem)
    expect(refused.state).toBe('needs_attention')
    expect(refused.lastError).toContain(`molecule ${known!.id} (${known!.name})`)
    expect(item(newItem)).toMatchObject({ state: 'sent' })
    const [created] = simRows<{ molecule_id: number }>(
      'SELECT molecule_id FROM batches WHERE id = ?',
      item(newItem).serverId,
    )
    expect(created!.molecule_id).not.toBe(known!.id)
  })

  it('finds a new batch queued with its new structure by structure searches, as its molecule', async () => {
    await network.off()
    const smiles = novel(14)
    const result = await register({
      vaultId: registration,
      structure: { format: 'smiles', text: smiles },
      projects: [aiProject()],
      moleculeFields: {},
      batch: { fields: { 'Purity (%)': '97', Chemist: 'S. Earch' } },
      duplicate: { kind: 'none' },
    })
    const batchItem = (result as { items: number[] }).items[0]!
    expect(item(batchItem)).toMatchObject({ operation: 'batch.create', state: 'queued' })
    const found = (structure: object, options: object = {}) =>
      list(registration, 'molecules', { structure, limit: 5, ...options }).then((page) =>
        page.rows.filter((row) => row.id === null),
      )
    const [match] = await found({ kind: 'substructure', query: 'C1COCCN1' })
    expect(match).toMatchObject({
      id: null,
      json: {
        smiles,
        projects: [{ id: aiProject() }],
        batches: [{ batch_fields: { Chemist: 'S. Earch' } }],
      },
      pending: { createdBy: batchItem, state: 'queued', itemIds: [batchItem] },
    })
    const createdBy = (query: object, options: object = {}) =>
      found(query, options).then((rows) => rows.map((row) => row.pending?.createdBy))
    expect(await createdBy({ kind: 'exact', query: `O=C(O)${'C'.repeat(14)}N1CCOCC1` })).toEqual([
      batchItem,
    ])
    expect(await createdBy({ kind: 'similarity', smiles: novel(13), threshold: 0.5 })).toEqual([
      batchItem,
    ])
    expect(await createdBy({ kind: 'exact', query: novel(13) })).toEqual([])
    expect(await createdBy({ kind: 'substructure', query: 'c1ccccc1' })).toEqual([])
    expect(await createdBy({ kind: 'substructure', query: 'C1COCCN1' }, { text: 'zzz' })).toEqual(
      [],
    )
  })

  it('refuses a registration without the batch fields the vault requires', async () => {
    const result = await register({
      vaultId: registration,
      structure: { format: 'smiles', text: novel(13) },
      name: 'Not needed',
      projects: [aiProject()],
      moleculeFields: { Series: 'Ureas' },
      batch: { fields: { 'Purity (%)': '' } },
      duplicate: { kind: 'none' },
    })
    expect(result).toMatchObject({ ok: false })
    expect(
      (result as { problems: { member: string }[] }).problems.map((problem) => problem.member),
    ).toEqual(['moleculeFields', 'batch.fields.Purity (%)', 'batch.fields.Chemist'])
    const withoutBatch = await register({
      vaultId: registration,
      structure: { format: 'smiles', text: novel(13) },
      projects: [aiProject()],
      moleculeFields: {},
      duplicate: { kind: 'none' },
    })
    expect(withoutBatch).toMatchObject({
      ok: false,
      problems: expect.arrayContaining([expect.objectContaining({ member: 'batch' })]),
    })
  })
})
