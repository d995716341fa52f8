/**
 * `vault-desk sample create` and `vault-desk plate create`: the real executable, a headless
 * connection to the demo vault over loopback, synced once. Each command checks what it is given
 * against the local copy (batches by id, name or identifier, a box's grid and taken positions,
 * a well list line by line) before anything is queued, then sends; the simulator's own tables say
 * what arrived. Bad input exits 2 with a message naming the fault and leaves the outbox empty.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OutboxItemView } from '../../src-common/outbox/item-view.ts'
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

function vaultDesk(args: string[], options: { dataDir?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const { DBUS_SESSION_BUS_ADDRESS: _bus, ...inherited } = process.env
    const child = spawn(
      process.execPath,
      [bin, ...args, '--base-url', sim.baseUrl, '--token-env', 'VD_TOKEN'],
      {
        env: { ...inherited, VAULT_DESK_DATA_DIR: options.dataDir ?? dataDir, VD_TOKEN: token },
      },
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
  return (await response.json()) as T
}

function file(name: string, contents: string | Buffer): string {
  const target = path.join(dataDir, 'lab', name)
  fs.mkdirSync(path.dirname(target), { recursive: true })
  fs.writeFileSync(target, contents)
  return target
}

async function outboxItems(): Promise<OutboxItemView[]> {
  const listed = await vaultDesk(['outbox', 'list', '--all', '--json'])
  expect(listed.code, listed.stderr).toBe(0)
  return JSON.parse(listed.stdout) as OutboxItemView[]
}

/** A box of the demo inventory, and a position in it no sample takes. */
function boxWithFreePosition(): { id: number; free: string; taken: string } {
  const box = sim.core.db
    .prepare(
      `SELECT id FROM inventory_locations WHERE vault_id = ? AND num_rows IS NOT NULL ORDER BY id`,
    )
    .get(main) as { id: number }
  const taken = new Set(
    (
      sim.core.db
        .prepare(`SELECT position FROM inventory_samples WHERE location_id = ?`)
        .all(box.id) as { position: string | null }[]
    ).flatMap((row) => (row.position ? [row.position] : [])),
  )
  const free = ['I09', 'I08', 'I07', 'H09'].find((position) => !taken.has(position))!
  return { id: box.id, free, taken: [...taken][0]! }
}

beforeAll(async () => {
  sim = await startDemoSnapshotSim({ port: 0 })
  token = sim.cast.users.writer.tokens[0]!
  main = sim.cast.vaults.main.id
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-cli-inventory-'))
  const synced = await vaultDesk(['sync', '--vault', String(main)])
  expect(synced.code, synced.stderr).toBe(0)
}, 180_000)

afterAll(async () => {
  await sim?.stop()
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
})

// Each case starts the executable; a shared machine may take seconds for each.
describe('vault-desk sample create and plate create', { timeout: 180_000 }, () => {
  it('refuses what the local copy shows is wrong, naming it, and queues nothing', async () => {
    const box = boxWithFreePosition()
    const cases: [string[], string][] = [
      [['--batch', '001', '--amount', '5', '--units', 'mg'], '--batch "001" names'],
      [['--batch', 'no-such-lot', '--amount', '5', '--units', 'mg'], 'No cached batch of vault'],
      [['--batch', '5', '--amount', 'lots', '--units', 'mg'], '--amount takes a number above zero'],
      [['--batch', '5', '--amount=-2', '--units', 'mg'], '--amount takes a number above zero'],
      [['--batch', '5', '--amount', '5', '--units', 'pounds'], '--units takes one of g, mg'],
      [
        ['--batch', '5', '--amount', '5', '--units', 'mg', '--position', 'A01'],
        '--position needs --location',
      ],
      [
        [
          ...['--batch', '5', '--amount', '5', '--units', 'mg'],
          ...['--location', String(box.id), '--position', box.taken],
        ],
        `${box.taken} of Box 1 already holds a sample. Free:`,
      ],
      [
        [
          ...['--batch', '5', '--amount', '5', '--units', 'mg'],
          ...['--location', String(box.id), '--position', 'K1'],
        ],
        'K01 is not on Box 1 (9 rows × 9 columns, A01 to I09)',
      ],
      [
        ['--batch', '5', '--amount', '5', '--units', 'mg', '--location', '9999'],
        'Inventory location 9999 is not in the local copy',
      ],
      // Sample fields as the vault's cached definitions type them, every fault named.
      [
        [
          ...['--batch', '5', '--amount', '5', '--units', 'mg'],
          ...['--field', 'Tare (mg)=heavy', '--field', 'Solvent=acetone'],
          ...['--field', 'Prepared On=2/11/2026', '--field', 'Colour=white'],
        ],
        [
          '--field: Tare (mg) takes a number, not "heavy".',
          '--field: Solvent takes one of DMSO, Ethanol, Methanol, Water; not "acetone".',
          '--field: Prepared On takes a date as YYYY-MM-DD, not "2/11/2026".',
          '--field: Colour is not a sample field of this vault (known: Concentration, Form, Prepared On, Solvent, Tare (mg)).',
        ].join('\n'),
      ],
    ]
    for (const [args, message] of cases) {
      const run = await vaultDesk(['sample', 'create', '--vault', String(main), ...args])
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2)
      expect(run.stderr).toContain(message)
    }
    const missing = await vaultDesk(['sample', 'create', '--vault', String(main)])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('--batch is needed')
    expect(await outboxItems()).toEqual([])
  })

  it('creates a sample of a batch named by its identifier, in a free place of a box', async () => {
    const batch = await online<{ id: number; molecule_batch_identifier: string }>(
      `/vaults/${main}/batches/5`,
    )
    const box = boxWithFreePosition()
    const run = await vaultDesk([
      'sample',
      'create',
      '--vault',
      String(main),
      '--batch',
      batch.molecule_batch_identifier.toLowerCase(),
      ...['--amount', '12.5', '--units', 'ug'],
      ...['--location', String(box.id), '--position', box.free.toLowerCase().replace('0', '')],
      ...['--note', 'from the bench', '--field', 'Solvent=dmso', '--field', 'Tare (mg)=0,5'],
      ...['--field', 'Prepared On=2026-11-02', '--field', 'Concentration=', '--json'],
    ])
    expect(run.code, run.stderr).toBe(0)
    const delivery = JSON.parse(run.stdout) as { items: OutboxItemView[] }
    expect(delivery.items).toMatchObject([
      {
        operation: 'sample.create',
        state: 'sent',
        payload: {
          batch_id: 5,
          units: 'µg',
          amount: 12.5,
          location_id: box.id,
          position: box.free,
          note: 'from the bench',
          fields: { Solvent: 'DMSO', 'Tare (mg)': 0.5, 'Prepared On': '2026-11-02' },
        },
      },
    ])
    const sample = await online<{
      batch_id: number
      fields: Record<string, unknown>
      current_amount: number
      location: { id: number; position: string }
      inventory_events: { event_type: string; amount: number; note: string }[]
    }>(`/vaults/${main}/inventory_samples/${delivery.items[0]!.serverId}`)
    expect(sample).toMatchObject({
      batch_id: 5,
      current_amount: 12.5,
      location: { id: box.id, position: box.free },
      inventory_events: [{ event_type: 'Credit', amount: 12.5, note: 'from the bench' }],
    })
    // The vault took each field as typed (it refuses unknown names and wrong types).
    expect(sample.fields).toEqual({
      Solvent: 'DMSO',
      'Tare (mg)': 0.5,
      'Prepared On': '2026-11-02',
    })

    // The place is taken now, by the sample just sent: the cache knows it once synced, and
    // until then the outbox does.
    const again = await vaultDesk([
      ...['sample', 'create', '--vault', String(main), '--batch', '5'],
      ...['--amount', '1', '--units', 'mg', '--location', String(box.id), '--position', box.free],
    ])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain(`${box.free} of Box 1 already holds a sample`)
  })

  it('reports every bad line of a well list and queues nothing; the fixed list makes the plate', async () => {
    const [first, second] = await Promise.all(
      [5, 7].map((id) =>
        online<{ id: number; molecule_batch_identifier: string }>(`/vaults/${main}/batches/${id}`),
      ),
    )
    const plate = (wells: string, ...extra: string[]) =>
      vaultDesk([
        ...['plate', 'create', '--vault', String(main), '--name', 'CLI source plate'],
        ...['--project', 'kinase inhibitors', '--size', '96', '--wells', wells, ...extra],
      ])
    const before = (await outboxItems()).length
    const bad = await plate(
      file(
        'bad.csv',
        `Well;Batch ID\nA1;${first!.molecule_batch_identifier}\nA2;001\nA1;6\nI1;6\nB1;no-such-lot\n`,
      ),
    )
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('bad.csv has 4 problems; nothing was queued:')
    expect(bad.stderr).toMatch(/line 3: "001" names \d+ batches/)
    expect(bad.stderr).toContain('line 4: Well A01 is given twice: also on line 2.')
    expect(bad.stderr).toContain('line 5: I01 is not on a 96-well plate')
    expect(bad.stderr).toContain('line 6: No cached batch has the id, name or identifier')
    expect(await outboxItems()).toHaveLength(before)

    // Saved by a spreadsheet as UTF-16 "Unicode text", tab-separated.
    const fixed = Buffer.from(
      `\uFEFFpos\tbatch\r\nA1\t${first!.molecule_batch_identifier}\r\nH12\t${second!.id}\r\n`,
      'utf16le',
    )
    const good = await plate(file('fixed.txt', fixed), '--location', 'Freezer A', '--json')
    expect(good.code, good.stderr).toBe(0)
    const [item] = (JSON.parse(good.stdout) as { items: OutboxItemView[] }).items
    expect(item).toMatchObject({ operation: 'plate.create', state: 'sent' })
    const created = await online<{
      name: string
      size: number
      location: string
      projects: { name: string }[]
      wells: { pos: string; batch: { id: number } | number }[]
    }>(`/vaults/${main}/plates/${item!.serverId}`)
    expect(created).toMatchObject({ name: 'CLI source plate', size: 96, location: 'Freezer A' })
    expect(created.projects.map((project) => project.name)).toEqual(['Kinase Inhibitors'])
    expect(
      created.wells.map((well) => [
        well.pos,
        typeof well.batch === 'number' ? well.batch : well.batch.id,
      ]),
    ).toEqual([
      ['A01', 5],
      ['H12', 7],
    ])
  })

  it('refuses a plate of no standard size, an unknown project and a missing file', async () => {
    const wells = file('one.csv', 'well,batch\nA1,5\n')
    const base = ['plate', 'create', '--vault', String(main), '--name', 'P']
    const size = await vaultDesk([...base, '--project', '1', '--size', '95', '--wells', wells])
    expect(size.code).toBe(2)
    expect(size.stderr).toContain('--size takes the wells of a plate: 6, 12, 24, 48, 96, 384, 1536')
    const project = await vaultDesk([
      ...base,
      '--project',
      'Nope',
      '--size',
      '96',
      '--wells',
      wells,
    ])
    expect(project.code).toBe(2)
    expect(project.stderr).toContain('No project of vault')
    const missing = await vaultDesk([
      ...base,
      ...['--project', '1', '--size', '96', '--wells', path.join(dataDir, 'nowhere.csv')],
    ])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('nowhere.csv: no such file')
    const empty = await vaultDesk([
      ...base,
      ...['--project', '1', '--size', '96', '--wells', file('empty.csv', '')],
    ])
    expect(empty.code).toBe(2)
    expect(empty.stderr).toContain('The well list is empty.')
  })

  it('queues for a vault never synced, warning that the vault will judge the batch', async () => {
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-cli-inventory-fresh-'))
    try {
      const run = await vaultDesk(
        [
          'sample',
          'create',
          '--vault',
          String(main),
          '--batch',
          '5',
          '--amount',
          '3',
          '--units',
          'mg',
        ],
        { dataDir: fresh },
      )
      expect(run.code, run.stderr).toBe(0)
      expect(run.stderr).toContain('Batch 5 is not checked')
      expect(run.stdout).toMatch(/Create a sample of batch 5: sent/)
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true })
    }
  })
})
