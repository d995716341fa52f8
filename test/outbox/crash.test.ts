import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { EventBus } from '../../src-main/shared/events.ts'
import { silentLogger } from '../../src-main/shared/logger.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import type { OutboxItemView } from '../../src-common/outbox/item-view.ts'
import { Outbox } from '../../src-main/sync/outbox/outbox.ts'
import type { QueueRequest } from '../../src-main/sync/outbox/queue-request.ts'
import {
  batchesIn,
  buildDoseResponse,
  type DoseResponseFixture,
} from '../sim/domain/assay-fixture.ts'
import { connectionId, tempFile, useOutboxHarness, type UserKey } from './support/outbox-harness.ts'

const harness = useOutboxHarness()
const childScript = path.join(import.meta.dirname, 'support', 'outbox-child.ts')

const steps = ['before-request', 'after-request-sent', 'after-answer'] as const
type Step = (typeof steps)[number]

interface Scenario {
  name: string
  user: UserKey
  /** The queued change; `tag` makes it unique to one run. */
  request(tag: string): Promise<QueueRequest> | QueueRequest
  /** The request that changes the server (its simulator operation, and a pattern of its path). */
  change: { operation: string; path: RegExp }
  /** How many times the change is on the server. */
  onServer(tag: string): number | Promise<number>
  /** Whether the API lets the outbox tell if an attempt arrived (else it may end uncertain). */
  traceable: boolean
}

let assay: DoseResponseFixture
let moleculeId: number
let rowIds: number[]

beforeAll(() => {
  const project = harness.sim.cast.projects.kinase.id
  const batches = batchesIn(harness.sim, project)
  assay = buildDoseResponse(harness.sim, {
    projectId: project,
    name: 'Crash assay',
    curves: [{ batchId: batches[0]!.id, ic50: 1 }],
  })
  moleculeId = batches[0]!.moleculeId
  rowIds = (
    harness.sim.core.db
      .prepare('SELECT id FROM readout_rows WHERE run_id = ? AND batch_id IS NOT NULL ORDER BY id')
      .all(assay.runId) as { id: number }[]
  ).map((row) => row.id)
  // Imports stay under way while the clock stands still, so the server still lists them.
  harness.sim.clock.freeze()
})

const count = (sql: string, ...args: unknown[]) =>
  (harness.sim.core.db.prepare(sql).get(...args) as { count: number }).count

let nextRow = 0
const rowOfTag = new Map<string, number>()

const structureOfTag = (() => {
  const lengths = new Map<string, number>()
  // A structure of its own for each run: no seeded molecule and no other run has it.
  return (tag: string) => {
    if (!lengths.has(tag)) lengths.set(tag, 30 + lengths.size)
    return `OC(=O)${'C'.repeat(lengths.get(tag)!)}N1CCCCC1`
  }
})()

const scenarios: Scenario[] = [
  {
    name: 'a readout correction',
    user: 'writer',
    request(tag) {
      const row = rowIds[nextRow++]!
      rowOfTag.set(tag, row)
      return {
        connectionId,
        vaultId: harness.vaultId,
        operation: 'readout.update',
        payload: { row, readouts: { [assay.responseId]: { value: 42.5 } } },
      }
    },
    change: {
      operation: 'PUT /vaults/{vault_id}/readout_rows/{readout_row_id}',
      path: /^PUT \/vaults\/\d+\/readout_rows\//,
    },
    async onServer(tag) {
      const row = await harness.client().readoutRows.get(harness.vaultId, rowOfTag.get(tag)!)
      return (row.readouts?.[assay.responseId] as { value?: unknown })?.value === 42.5 ? 1 : 0
    },
    traceable: true,
  },
  {
    name: 'a new collection',
    user: 'writer',
    request: (tag) => ({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'collection.create',
      payload: { name: `Hits ${tag}`, molecules: [moleculeId] },
    }),
    change: {
      operation: 'POST /vaults/{vault_id}/collections',
      path: /^POST \/vaults\/\d+\/collections$/,
    },
    onServer: (tag) =>
      count('SELECT COUNT(*) AS count FROM collections WHERE name = ?', `Hits ${tag}`),
    traceable: true,
  },
  {
    name: 'a new ELN entry (an administrator can list entries)',
    user: 'admin',
    request: (tag) => ({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'eln.create',
      payload: { title: `Notes ${tag}`, project: harness.sim.cast.projects.kinase.id },
    }),
    change: {
      operation: 'POST /vaults/{vault_id}/eln/entries',
      path: /^POST \/vaults\/\d+\/eln\/entries$/,
    },
    onServer: (tag) =>
      count('SELECT COUNT(*) AS count FROM eln_entries WHERE title = ?', `Notes ${tag}`),
    traceable: true,
  },
  {
    name: 'an ELN status action',
    user: 'admin',
    async request(tag) {
      const entry = await harness.client('admin').elnEntries.create(harness.vaultId, {
        title: `To submit ${tag}`,
        project: harness.sim.cast.projects.kinase.id,
      })
      return {
        connectionId,
        vaultId: harness.vaultId,
        operation: 'eln.status',
        payload: {
          entry: { id: entry.id },
          status_action: 'submit',
          witness: harness.sim.cast.users.writer.id,
        },
      }
    },
    change: { operation: 'POST /vaults/{vault_id}/eln/entries/{id}/status', path: /\/status$/ },
    onServer: (tag) =>
      count(
        `SELECT COUNT(*) AS count FROM eln_status_changes JOIN eln_entries ON eln_entries.id = entry_id
         WHERE title = ? AND action = 'submit'`,
        `To submit ${tag}`,
      ),
    traceable: true,
  },
  {
    name: 'a new plate',
    user: 'writer',
    request: (tag) => ({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'plate.create',
      payload: { name: `Plate ${tag}`, projects: [harness.sim.cast.projects.kinase.id], size: 96 },
    }),
    change: { operation: 'POST /vaults/{vault_id}/plates', path: /^POST \/vaults\/\d+\/plates$/ },
    onServer: (tag) => count('SELECT COUNT(*) AS count FROM plates WHERE name = ?', `Plate ${tag}`),
    traceable: true,
  },
  {
    name: 'a new saved search (found again by its name)',
    user: 'writer',
    request: (tag) => ({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'search.create',
      payload: {
        name: `Crash search ${tag}`,
        projects: [harness.sim.cast.projects.kinase.id],
        search_criteria: { structure: 'c1ccccc1', structure_search_type: 'substructure' },
      },
    }),
    change: {
      operation: 'POST /vaults/{vault_id}/searches',
      path: /^POST \/vaults\/\d+\/searches$/,
    },
    onServer: (tag) =>
      count(
        'SELECT COUNT(*) AS count FROM saved_search_sessions WHERE name = ?',
        `Crash search ${tag}`,
      ),
    traceable: true,
  },
  {
    name: 'a new molecule (found again by its name and structure)',
    user: 'writer',
    request: (tag) => ({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'molecule.create',
      payload: {
        name: `Crash molecule ${tag}`,
        smiles: structureOfTag(tag),
        projects: [harness.sim.cast.projects.kinase.id],
      },
    }),
    change: {
      operation: 'POST /vaults/{vault_id}/molecules',
      path: /^POST \/vaults\/\d+\/molecules$/,
    },
    onServer: (tag) =>
      count('SELECT COUNT(*) AS count FROM molecules WHERE name = ?', `Crash molecule ${tag}`),
    traceable: true,
  },
  {
    name: 'a new batch of a molecule',
    user: 'writer',
    request: (tag) => ({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'batch.create',
      payload: {
        name: `Crash batch ${tag}`,
        projects: [harness.sim.cast.projects.kinase.id],
        molecule: { id: moleculeId },
      },
    }),
    change: {
      operation: 'POST /vaults/{vault_id}/batches',
      path: /^POST \/vaults\/\d+\/batches$/,
    },
    onServer: (tag) =>
      count('SELECT COUNT(*) AS count FROM batches WHERE name = ?', `Crash batch ${tag}`),
    traceable: true,
  },
  {
    name: 'a new structure with its batch in a registration vault',
    user: 'writer',
    request: (tag) => ({
      connectionId,
      vaultId: harness.sim.cast.vaults.ai.id,
      operation: 'batch.create',
      payload: {
        name: `Crash registration ${tag}`,
        projects: [harness.sim.cast.projects.aiExploration.id],
        batch_fields: { 'Purity (%)': 97, Chemist: 'C. Rash' },
        molecule: { smiles: structureOfTag(tag), duplicate_resolution: 'prompt' },
      },
    }),
    change: {
      operation: 'POST /vaults/{vault_id}/batches',
      path: /^POST \/vaults\/\d+\/batches$/,
    },
    onServer: (tag) =>
      count('SELECT COUNT(*) AS count FROM batches WHERE name = ?', `Crash registration ${tag}`),
    traceable: true,
  },
  {
    name: 'an import',
    user: 'writer',
    request(tag) {
      // The imports of earlier runs finish (at most 3 may be under way); this one will not.
      harness.sim.clock.advance(60_000)
      return {
        connectionId,
        vaultId: harness.vaultId,
        operation: 'slurp.create',
        file: tempFile(`import-${tag}.csv`, `SMILES,Compound\r\nCCN,Crash ${tag}\r\n`),
        payload: {
          project: 'Kinase Inhibitors',
          mapping_template: {
            header_mappings: [
              {
                header: { name: 'Compound', position: 1 },
                definition: { type: 'InternalFieldDefinition::MoleculeName' },
              },
            ],
          },
        },
      }
    },
    change: { operation: 'POST /vaults/{vault_id}/slurps', path: /^POST \/vaults\/\d+\/slurps$/ },
    onServer: (tag) =>
      count('SELECT COUNT(*) AS count FROM slurps WHERE file_name = ?', `import-${tag}.csv`),
    // Found while under way; an import never sent looks like one already finished.
    traceable: false,
  },
  {
    name: 'a file for a molecule',
    user: 'writer',
    request: (tag) => ({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'file.attach',
      file: tempFile(`spectrum-${tag}.txt`, `spectrum ${tag}`),
      target: { kind: 'molecule', ref: { id: moleculeId } },
    }),
    change: { operation: 'POST /vaults/{vault_id}/files', path: /^POST \/vaults\/\d+\/files$/ },
    onServer: (tag) =>
      count('SELECT COUNT(*) AS count FROM uploaded_files WHERE name = ?', `spectrum-${tag}.txt`),
    // A molecule's record lists its files (docs/spec/gaps.md's source_files).
    traceable: true,
  },
]

interface ChildRun {
  signal: NodeJS.Signals | null
  code: number | null
  items: OutboxItemView[] | null
}

/**
 * Runs the sending process to its end. With `killWhenReceived`, the process is stopped as soon as
 * the server has received the change (the server delays its work, see the test) and killed once
 * the server has done it: it dies with the request sent and its answer unread. An upload stopped
 * before its whole body left is killed after a while: the server then has its beginning only.
 * With `waitForMore`, the process is stopped once that many requests of the change have arrived,
 * or that long after the first did (requests sent together all reach the server first); with
 * `serverDone`, that tells when the server has done the change (by default: any write).
 */
function runChild(
  dataDir: string,
  user: UserKey,
  options: {
    crashAt?: Step
    killWhenReceived?: string
    waitForMore?: { requests: number; ms: number }
    serverDone?: () => boolean
  } = {},
): Promise<ChildRun> {
  const received = harness.sim.stats.byOperation[options.killWhenReceived ?? ''] ?? 0
  const version = harness.sim.core.dataVersion
  let firstAt: number | undefined
  let stoppedAt: number | undefined
  const crashAt = options.crashAt ? ['--crash-at', options.crashAt] : []
  const child = spawn(process.execPath, [childScript, ...crashAt], {
    env: {
      ...process.env,
      OUTBOX_CHILD_DATA_DIR: dataDir,
      OUTBOX_CHILD_BASE_URL: harness.sim.baseUrl,
      OUTBOX_CHILD_TOKEN: harness.token(user),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  const watch =
    options.killWhenReceived &&
    setInterval(() => {
      const count = (harness.sim.stats.byOperation[options.killWhenReceived!] ?? 0) - received
      if (count > 0) firstAt ??= Date.now()
      const more = options.waitForMore
      const arrived =
        count > 0 && (!more || count >= more.requests || Date.now() - firstAt! >= more.ms)
      if (stoppedAt === undefined && arrived) {
        child.kill('SIGSTOP')
        stoppedAt = Date.now()
      }
      const serverDone = options.serverDone
        ? options.serverDone()
        : harness.sim.core.dataVersion !== version
      if (stoppedAt !== undefined && (serverDone || Date.now() - stoppedAt > 2_000)) {
        child.kill('SIGKILL')
      }
    }, 2)
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      if (watch) clearInterval(watch)
      resolve({
        code,
        signal,
        items: stdout.trim() ? (JSON.parse(stdout) as OutboxItemView[]) : null,
      })
    })
  })
}

async function queueIn(dataDir: string, request: QueueRequest): Promise<number> {
  const { cache } = VaultCache.open(path.join(dataDir, 'caches', `${connectionId}.db`))
  const outbox = new Outbox({
    dataDir,
    connection: () => ({ client: harness.client(), cache }),
    connectionName: () => 'Lab vault',
    events: new EventBus(),
    log: silentLogger,
  })
  try {
    const [item] = await outbox.queue(request)
    return item!.id
  } finally {
    await outbox.close()
    cache.close()
  }
}

describe('a sender killed while sending, then started again', () => {
  for (const scenario of scenarios) {
    for (const step of steps) {
      it(`sends ${scenario.name} exactly once or marks it uncertain, when killed ${step}`, async () => {
        const tag = `${scenario.name.replace(/\W+/g, '-')}-${step}`
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-crash-'))
        try {
          const itemId = await queueIn(dataDir, await scenario.request(tag))
          if (step === 'after-request-sent') {
            harness.sim.faults.set({ latencyMs: 300, match: scenario.change.path })
          }
          const crashed = await runChild(
            dataDir,
            scenario.user,
            step === 'after-request-sent'
              ? { killWhenReceived: scenario.change.operation }
              : { crashAt: step },
          )
          harness.sim.faults.clear()
          expect(crashed.signal).toBe('SIGKILL')
          expect(await stateIn(dataDir, itemId)).toBe('sending')
          const before = await scenario.onServer(tag)
          if (step === 'before-request') expect(before).toBe(0)
          else if (step === 'after-answer' || scenario.traceable) expect(before).toBe(1)

          const restarted = await runChild(dataDir, scenario.user)
          expect(restarted.code).toBe(0)
          const item = restarted.items?.find((candidate) => candidate.id === itemId)
          expect(item?.state).toMatch(/^(sent|uncertain)$/)
          if (scenario.traceable) expect(item?.state).toBe('sent')
          if (item?.state === 'sent') {
            expect(await scenario.onServer(tag)).toBe(1)
            return
          }
          // Uncertain: nothing was sent twice, and the person's decision completes it once.
          expect(await scenario.onServer(tag)).toBe(before)
          await decide(dataDir, itemId, before === 1 ? 'done' : 'resend', scenario.user)
          expect(await scenario.onServer(tag)).toBe(1)
        } finally {
          fs.rmSync(dataDir, { recursive: true, force: true })
        }
      })
    }
  }
})

describe('two uploads of one name to one molecule, killed when one of them had reached the server', () => {
  it('ends with each sent once or uncertain: one file on the server never accounts for both', async () => {
    const name = 'twin-reading.csv'
    const contents = ['well,value\nA1,1\n', 'well,value\nA1,2\nA2,3\n']
    const twinIds = () =>
      (
        harness.sim.core.db
          .prepare(
            `SELECT id FROM uploaded_files WHERE name = ? AND resource_class = 'molecule'
               AND resource_id = ? ORDER BY id`,
          )
          .all(name, moleculeId) as { id: number }[]
      ).map((row) => row.id)
    const twins = async () => {
      const client = harness.client('writer')
      return Promise.all(
        twinIds().map(async (id) => {
          const file = await client.files.get(harness.vaultId, id)
          return { id, contents: Buffer.from(file.contents ?? '', 'base64').toString() }
        }),
      )
    }
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-crash-'))
    try {
      const ids: number[] = []
      for (const text of contents) {
        ids.push(
          await queueIn(dataDir, {
            connectionId,
            vaultId: harness.vaultId,
            operation: 'file.attach',
            file: tempFile(name, text),
            target: { kind: 'molecule', ref: { id: moleculeId } },
          }),
        )
      }
      // The first upload to arrive is done (late); one sent beside it never is: seed 1 draws
      // 0.63, then 0.003.
      const upload = 'POST /vaults/{vault_id}/files'
      harness.sim.faults.set({
        latencyMs: 300,
        hangRate: 0.5,
        seed: 1,
        match: /^POST \/vaults\/\d+\/files$/,
      })
      const crashed = await runChild(dataDir, 'writer', {
        killWhenReceived: upload,
        waitForMore: { requests: 2, ms: 150 },
        serverDone: () => twinIds().length > 0,
      })
      harness.sim.faults.clear()
      expect(crashed).toMatchObject({ signal: 'SIGKILL' })
      expect(await twins()).toHaveLength(1)

      const restarted = await runChild(dataDir, 'writer')
      expect(restarted.code).toBe(0)
      const items = ids.map((id) => restarted.items?.find((candidate) => candidate.id === id))
      for (const item of items) expect(item?.state).toMatch(/^(sent|uncertain)$/)
      const files = await twins()
      const sent = items.filter((item) => item?.state === 'sent')
      // Each item sent names a file of its own, holding its contents.
      expect(new Set(sent.map((item) => item!.serverId)).size).toBe(sent.length)
      for (const item of sent) {
        const file = files.find((candidate) => candidate.id === item!.serverId)
        expect(file?.contents).toBe(contents[ids.indexOf(item!.id)])
      }
      // The person decides the uncertain ones by what the server holds: then each is there once.
      for (const [index, item] of items.entries()) {
        if (item?.state !== 'uncertain') continue
        const there = files.some((file) => file.contents === contents[index])
        await decide(dataDir, item.id, there ? 'done' : 'resend', 'writer')
      }
      expect((await twins()).map((file) => file.contents).sort()).toEqual([...contents].sort())
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

describe('a molecule and a batch of it queued together, killed when the batch had reached the server', () => {
  it('finds the batch on the new molecule again: each is sent once', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-crash-'))
    const name = 'Crash pair molecule'
    const batchName = 'Crash pair batch'
    try {
      const moleculeItem = await queueIn(dataDir, {
        connectionId,
        vaultId: harness.vaultId,
        operation: 'molecule.create',
        payload: {
          name,
          smiles: structureOfTag('pair'),
          projects: [harness.sim.cast.projects.kinase.id],
        },
      })
      const batchItem = await queueIn(dataDir, {
        connectionId,
        vaultId: harness.vaultId,
        operation: 'batch.create',
        payload: {
          name: batchName,
          projects: [harness.sim.cast.projects.kinase.id],
          molecule: { item: moleculeItem },
        },
      })
      const batches = () => count('SELECT COUNT(*) AS count FROM batches WHERE name = ?', batchName)
      harness.sim.faults.set({ latencyMs: 300, match: /^POST \/vaults\/\d+\/batches$/ })
      const crashed = await runChild(dataDir, 'writer', {
        killWhenReceived: 'POST /vaults/{vault_id}/batches',
        serverDone: () => batches() > 0,
      })
      harness.sim.faults.clear()
      expect(crashed.signal).toBe('SIGKILL')
      expect(await stateIn(dataDir, batchItem)).toBe('sending')
      expect(batches()).toBe(1)

      const restarted = await runChild(dataDir, 'writer')
      expect(restarted.code).toBe(0)
      const state = (id: number) => restarted.items?.find((candidate) => candidate.id === id)
      expect(state(moleculeItem)).toMatchObject({ state: 'sent' })
      expect(state(batchItem)).toMatchObject({ state: 'sent' })
      const [molecule] = harness.sim.core.db
        .prepare('SELECT id FROM molecules WHERE name = ?')
        .all(name) as { id: number }[]
      expect(
        harness.sim.core.db
          .prepare('SELECT id, molecule_id FROM batches WHERE name = ?')
          .all(batchName),
      ).toEqual([{ id: state(batchItem)!.serverId, molecule_id: molecule!.id }])
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

async function stateIn(dataDir: string, itemId: number): Promise<string> {
  const { cache } = VaultCache.open(path.join(dataDir, 'caches', `${connectionId}.db`))
  const outbox = new Outbox({
    dataDir,
    connection: () => ({ client: harness.client(), cache }),
    connectionName: () => 'Lab vault',
    events: new EventBus(),
    log: silentLogger,
  })
  try {
    return outbox.item(itemId).state
  } finally {
    await outbox.close()
    cache.close()
  }
}

async function decide(
  dataDir: string,
  itemId: number,
  choice: 'resend' | 'done',
  user: UserKey,
): Promise<void> {
  const { cache } = VaultCache.open(path.join(dataDir, 'caches', `${connectionId}.db`))
  const outbox = new Outbox({
    dataDir,
    connection: () => ({ client: harness.client(user), cache }),
    connectionName: () => 'Lab vault',
    events: new EventBus(),
    log: silentLogger,
  })
  try {
    await outbox.resolveUncertain(itemId, choice)
    outbox.start()
    await outbox.flush()
    expect(outbox.item(itemId)).toMatchObject({ state: 'sent', lastError: null })
  } finally {
    await outbox.close()
    cache.close()
  }
}
