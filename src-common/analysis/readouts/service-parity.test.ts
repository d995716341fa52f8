/**
 * The evaluator against the simulator's own protocol criteria over real HTTP, on the demo vault:
 * the same criteria must select the same batches offline as the vault's batch query online,
 * qualified values (`>30`, `<1`) included, which both compare by their bound (see
 * readout-value.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { VaultSim } from '../../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../../../test/support/demo-snapshot.ts'
import { protocolEntryOf, type Catalogue } from './catalogue.ts'
import {
  subjectMatches,
  utcDay,
  type EvaluationContext,
  type ResultsCriterion,
} from './criteria.ts'
import { parseCriteria } from './criteria-text.ts'
import { readResultRow, type ResultRow } from './result-rows.ts'
import { toServiceCriteria } from './service-criteria.ts'

let sim: VaultSim
let vaultPath: string
let token: string
let catalogue: Catalogue
let context: EvaluationContext
const rowsByBatch = new Map<number, ResultRow[]>()

async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${sim.baseUrl}${vaultPath}${path}`, {
    method,
    headers: { 'X-SVC-Token': token, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const json = (await response.json()) as Record<string, unknown>
  if (response.status !== 200)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
  return json
}

beforeAll(async () => {
  sim = await startDemoSnapshotSim()
  sim.clock.freeze()
  context = { today: utcDay(sim.clock.nowMillis()) }
  vaultPath = `/vaults/${sim.cast.vaults.main.id}`
  token = sim.cast.users.admin.tokens[0]!
  const protocols = await call('GET', '/protocols?page_size=1000')
  catalogue = (protocols.objects as unknown[]).flatMap((raw) => protocolEntryOf(raw) ?? [])
  const definitions = new Map(
    catalogue.flatMap((protocol) =>
      protocol.readouts.map((readout) => [readout.id, readout] as const),
    ),
  )
  // The batches the vault's criteria range over (a negation is the complement among them): the
  // simulator counts those of readable projects, not those seen through public data sets, which
  // its batch query lists too. "In a protocol, or not in it" gives exactly them.
  const protocolId = catalogue[0]!.id
  const universe = await call('POST', '/batches/query', {
    only_ids: true,
    protocol_criteria: [
      { protocol_id: protocolId },
      { protocol_id: protocolId, negated: true, junction: 'OR' },
    ],
  })
  for (const id of universe.objects as number[]) rowsByBatch.set(id, [])
  for (let offset = 0; ; offset += 1000) {
    const page = await call('POST', '/readout_rows/query', { page_size: 1000, offset })
    const objects = page.objects as unknown[]
    for (const raw of objects) {
      const row = readResultRow(raw, (id) => definitions.get(id))
      if (row?.batchId != null) rowsByBatch.get(row.batchId)?.push(row)
    }
    if (objects.length < 1000) break
  }
}, 60_000)

afterAll(() => sim?.stop())

function parsed(texts: string[]): ResultsCriterion[] {
  const result = parseCriteria(texts, catalogue)
  if (!result.ok) throw new Error(result.errors.map((error) => error.message).join('; '))
  return result.criteria
}

async function online(criteria: ResultsCriterion[]): Promise<number[]> {
  const written = toServiceCriteria(criteria)
  if (!written.ok) throw new Error(written.message)
  const answer = await call('POST', '/batches/query', {
    protocol_criteria: written.criteria,
    only_ids: true,
  })
  return (answer.objects as number[]).filter((id) => rowsByBatch.has(id)).sort((a, b) => a - b)
}

function offline(criteria: ResultsCriterion[]): number[] {
  return [...rowsByBatch]
    .flatMap(([id, rows]) => (subjectMatches(criteria, rows, context) ? [id] : []))
    .sort((a, b) => a - b)
}

/** Batches with a qualified cell of a criterion's readout (where the two may differ). */
function withQualified(criteria: ResultsCriterion[]): Set<number> {
  const definitions = new Set(
    criteria.flatMap((criterion) => criterion.readout?.definitionId ?? []),
  )
  const batches = new Set<number>()
  for (const [id, rows] of rowsByBatch) {
    for (const row of rows) {
      for (const [definitionId, cell] of row.cells) {
        if (definitions.has(definitionId) && cell.value.kind === 'number' && cell.value.modifier) {
          batches.add(id)
        }
      }
    }
  }
  return batches
}

const KINASE = 'Kinase IC50 (ADP-Glo)'
const GPCR = 'GPCR Radioligand Displacement'
const SOLUBILITY = 'Kinetic Solubility (PBS pH 7.4)'

describe('offline criteria select what the vault’s own search selects', () => {
  const exact: string[][] = [
    [KINASE],
    [`not ${KINASE}`],
    [`${KINASE}: % Inhibition > 50`],
    [`${KINASE}: % Inhibition from 20 to 40`],
    [`not ${KINASE}: % Inhibition >= 90`],
    [`${KINASE}: % Inhibition != 0`],
    [`${KINASE}: Signal < 100000`],
    [`${KINASE}: Comment contains PRECIPITATE`],
    [`${KINASE}: Comment does not contain solvent`],
    [`${KINASE}: IC50`],
    [`${SOLUBILITY}: Method = nephelometry`],
    [`${SOLUBILITY}: Solubility > 100`],
    [`${GPCR}; run in the last 60 days`],
    [`${KINASE}; run in the last 30 days`, `or ${GPCR}: % Inhibition > 95`],
    [`${KINASE}: % Inhibition > 80`, `and not ${SOLUBILITY}`],
    ['run in the last 50 days'],
  ]

  it.each(exact)('agrees exactly on %s', async (...texts) => {
    const criteria = parsed(texts)
    const expected = await online(criteria)
    expect(offline(criteria)).toEqual(expected)
    expect(expected.length).toBeGreaterThan(0)
    expect(expected.length).toBeLessThan(rowsByBatch.size)
  })

  it('agrees on run date ranges, its bounds included as the vault’s', async () => {
    const start = utcDay(Date.parse(`${context.today}T00:00:00Z`) - 60 * 86_400_000)
    const criteria = parsed([`run date from ${start} to ${context.today}`])
    const expected = await online(criteria)
    expect(offline(criteria)).toEqual(expected)
    expect(expected.length).toBeGreaterThan(0)
  })

  it('agrees where qualified values decide, comparing them by their bound as the vault does', async () => {
    for (const texts of [
      [`${KINASE}: IC50 < 1 uM`],
      [`${KINASE}: IC50 > 1`],
      [`${GPCR}: IC50 from 0.01 to 25`],
      [`${SOLUBILITY}: Solubility < 300`],
    ]) {
      const criteria = parsed(texts)
      const expected = await online(criteria)
      expect(offline(criteria), texts.join(' | ')).toEqual(expected)
      expect(expected.length, texts.join(' | ')).toBeGreaterThan(0)
      // These questions do meet qualified cells: the rule is exercised, not avoided.
      if (texts[0]!.startsWith(SOLUBILITY)) {
        expect([...withQualified(criteria)].some((id) => expected.includes(id))).toBe(true)
      }
    }
  })
})
