/**
 * Searches by results and results tables over the demo vault, synced into a real cache and
 * indexed: each criterion's answer from the index's SQL must equal a brute-force evaluation of
 * every batch's readout rows with the criteria's own evaluator; tables must show the aggregates
 * the index computed, sorted and filtered as asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseCriteria } from '../../src-common/analysis/readouts/criteria-text.ts'
import {
  subjectMatches,
  utcDay,
  type ResultsCriterion,
} from '../../src-common/analysis/readouts/criteria.ts'
import { readResultRow, type ResultRow } from '../../src-common/analysis/readouts/result-rows.ts'
import type { Catalogue } from '../../src-common/analysis/readouts/catalogue.ts'
import type { VaultCache } from '../../src-main/store/vault-cache.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { clientOf, pull, startDemoSim, temporaryCache } from './support.ts'

let sim: VaultSim
let cache: VaultCache
let dispose: () => Promise<void>
let main: number
let catalogue: Catalogue
const today = utcDay(Date.now())

beforeAll(async () => {
  sim = await startDemoSim()
  ;({ cache, dispose } = temporaryCache())
  await pull(clientOf(sim), cache)
  main = sim.cast.vaults.main.id
  cache.readoutIndex().complete()
  catalogue = cache.results().catalogue(main)
}, 120_000)

afterAll(async () => {
  await dispose()
  await sim.stop()
})

function criteriaOf(...texts: string[]): ResultsCriterion[] {
  const parsed = parseCriteria(texts, catalogue)
  if (!parsed.ok) throw new Error(parsed.errors.map((error) => error.message).join('; '))
  return parsed.criteria
}

/** Every batch of the vault with its readout rows, read the evaluator's way. */
function batchesWithRows(): Map<number, ResultRow[]> {
  const batches = new Map<number, ResultRow[]>(cache.ids('batches', main).map((id) => [id, []]))
  for (let offset = 0; ; offset += 1000) {
    const page = cache.list('readout_rows', main, { sort: 'id', limit: 1000, offset })
    for (const record of page.records) {
      const row = readResultRow(record, (definitionId) => {
        for (const protocol of catalogue) {
          const found = protocol.readouts.find((readout) => readout.id === definitionId)
          if (found) return found
        }
        return undefined
      })
      if (row?.batchId != null) batches.get(row.batchId)?.push(row)
    }
    if (page.records.length < 1000) break
  }
  return batches
}

describe('searches by results over the demo vault', () => {
  it('find the batches and molecules a brute-force evaluation of every row finds', () => {
    const batches = batchesWithRows()
    const questions = [
      ['Kinase IC50 (ADP-Glo): IC50 < 1 uM'],
      ['Kinase IC50 (ADP-Glo): IC50 < 1000 nM'],
      ['Kinase IC50 (ADP-Glo): % Inhibition from 20 to 60'],
      ['Kinase IC50 (ADP-Glo)', 'not GPCR Radioligand Displacement'],
      [
        'GPCR Radioligand Displacement: IC50 >= 0.1',
        'or Kinetic Solubility (PBS pH 7.4): Solubility > 100',
      ],
      ['Kinetic Solubility (PBS pH 7.4): Solubility < 300'],
      ['not Kinase IC50 (ADP-Glo): IC50 > 10'],
      ['Kinase IC50 (ADP-Glo): aggregate IC50 < 1'],
      ['Kinase IC50 (ADP-Glo); run in the last 90 days'],
      // Negations after AND and after OR, and aggregates among row criteria.
      [
        'Kinase IC50 (ADP-Glo): IC50 < 10 uM',
        'not Kinetic Solubility (PBS pH 7.4): Solubility < 10',
      ],
      ['Kinetic Solubility (PBS pH 7.4): Solubility > 100', 'or not Kinase IC50 (ADP-Glo)'],
      [
        'not GPCR Radioligand Displacement',
        'Kinase IC50 (ADP-Glo): % Inhibition from 20 to 60',
        'or Kinase IC50 (ADP-Glo): aggregate IC50 < 1',
        'not Kinetic Solubility (PBS pH 7.4): Solubility > 300',
      ],
    ]
    let nonEmpty = 0
    for (const texts of questions) {
      const criteria = criteriaOf(...texts)
      const expected = [...batches]
        .filter(([, rows]) => subjectMatches(criteria, rows, { today }))
        .map(([id]) => id)
        .sort((a, b) => a - b)
      expect(cache.results().matching(main, criteria, 'batch', today), texts.join(' / ')).toEqual(
        expected,
      )
      const molecules = new Set<unknown>()
      for (let offset = 0; offset < expected.length; offset += 1000) {
        const page = cache.page('batches', main, { ids: expected, limit: 1000, offset })
        for (const row of page.rows) molecules.add(row.columns.molecule_id)
      }
      expect(cache.results().matching(main, criteria, 'molecule', today), 'molecules').toEqual(
        [...molecules].sort((a, b) => Number(a) - Number(b)),
      )
      if (expected.length > 0) nonEmpty++
    }
    // The questions are not all trivially empty.
    expect(nonEmpty).toBeGreaterThan(5)
  })
})

describe('a search by results after a batch moves to another molecule', () => {
  const criteria = () => criteriaOf('Kinase IC50 (ADP-Glo): IC50 < 1 uM')
  const moleculeOf = (batchId: number) =>
    Number(cache.page('batches', main, { ids: [batchId], limit: 1 }).rows[0]!.columns.molecule_id)

  /** A batch the criterion finds, and a cached molecule the search does not find. */
  function moveCase() {
    const found = cache.results().matching(main, criteria(), 'molecule', today)
    const batchId = cache.results().matching(main, criteria(), 'batch', today)[0]!
    const elsewhere = cache.ids('molecules', main).find((id) => !found.includes(id))!
    expect(elsewhere).toBeDefined()
    return { found, batchId, elsewhere }
  }

  /** The batches' molecules, looked up one by one in the cache. */
  const expectedMolecules = () =>
    [
      ...new Set(
        cache
          .results()
          .matching(main, criteria(), 'batch', today)
          .map((id) => moleculeOf(id)),
      ),
    ].sort((a, b) => a - b)

  it('follows a move stored on the main connection and one the cache writer commits', async () => {
    const { found, batchId, elsewhere } = moveCase()
    // Stored with its molecule said in its own JSON (a batch synced within its molecule has not).
    const home = moleculeOf(batchId)
    const original = { ...cache.get('batches', main, batchId)!, molecule: home, molecule_id: home }
    expect(found).toEqual(expectedMolecules())
    expect(found).toContain(home)
    try {
      cache.applyPage('batches', main, [
        { ...original, molecule: elsewhere, molecule_id: elsewhere },
      ])
      const moved = cache.results().matching(main, criteria(), 'molecule', today)
      expect(moved).toContain(elsewhere)
      expect(moved).toEqual(expectedMolecules())

      // The writer's own connection: only the file's version tells this one.
      await cache.writer.applyPage('batches', main, [original])
      const back = cache.results().matching(main, criteria(), 'molecule', today)
      expect(moleculeOf(batchId)).toBe(home)
      expect(back).not.toContain(elsewhere)
      expect(back).toEqual(found)
    } finally {
      cache.applyPage('batches', main, [original])
    }
  })
})

describe('results tables over the demo vault', () => {
  const kinase = () => catalogue.find((protocol) => protocol.name === 'Kinase IC50 (ADP-Glo)')!
  const columnOf = (name: string) => ({
    protocolId: kinase().id,
    definitionId: kinase().readouts.find((readout) => readout.name === name)!.id,
  })

  it('show each molecule with its aggregates, sorted by a readout with empty cells last', () => {
    const columns = [columnOf('IC50'), columnOf('% Inhibition')]
    const ascending = cache.results().table(main, {
      level: 'molecule',
      columns,
      sort: { column: 0, direction: 'asc' },
      limit: 1000,
    })
    expect(ascending.total).toBeGreaterThan(10)
    expect(ascending.rows).toHaveLength(ascending.total)
    const numbers = ascending.rows.map((row) => row.cells[0])
    const firstMissing = numbers.findIndex((cell) => cell?.kind !== 'number')
    const values = numbers.slice(0, firstMissing === -1 ? undefined : firstMissing)
    for (let index = 1; index < values.length; index++) {
      expect(values[index]!.number!).toBeGreaterThanOrEqual(values[index - 1]!.number!)
    }
    const descending = cache.results().table(main, {
      level: 'molecule',
      columns,
      sort: { column: 0, direction: 'desc' },
      limit: 1000,
    })
    // Descending keeps values first too; a value above its bound (>30) leads.
    expect(descending.rows[0]!.cells[0]!.kind).toBe('number')
    const kinds = descending.rows.map((row) => (row.cells[0]?.kind === 'number' ? 0 : 1))
    expect(kinds).toEqual([...kinds].sort())
    // Each cell is the aggregate the index keeps for that molecule.
    const sample = ascending.rows[0]!
    const direct = cache.results().table(main, {
      level: 'molecule',
      columns,
      moleculeIds: [sample.subjectId],
    })
    expect(direct.rows).toEqual([sample])
  })

  it('give numeric columns of every molecule for plots, and a molecule its summary', () => {
    const ic50 = columnOf('IC50')
    const points = cache.results().points(main, {
      columns: [{ property: 'molecularWeight' }, ic50],
    })
    expect(points.ids).toHaveLength(2000)
    expect(points.values).toHaveLength(2)
    const table = cache.results().table(main, { level: 'molecule', columns: [ic50], limit: 1000 })
    const tested = table.rows.filter((row) => row.cells[0]?.kind === 'number')
    expect(tested.length).toBeGreaterThan(0)
    for (const row of tested) {
      const index = points.ids.indexOf(row.subjectId)
      expect(points.values[1]![index]).toBe(row.cells[0]!.number)
      expect(points.modifiers[1]![index]).toBe(row.cells[0]!.modifier)
      const summary = cache.results().subjectSummary(main, 'molecule', row.subjectId)
      expect(summary).toContainEqual({ ...ic50, cell: row.cells[0] })
    }
    // Molecules never tested plot no IC50.
    expect(points.values[1]!.filter((value) => value === null).length).toBe(2000 - tested.length)
  })

  it('filter a column by a range, and per batch', () => {
    const columns = [columnOf('IC50')]
    const within = cache.results().table(main, {
      level: 'batch',
      columns,
      filters: [
        {
          column: 0,
          comparison: {
            kind: 'range',
            scale: 'number',
            lower: { value: 0.01, inclusive: true },
            upper: { value: 1, inclusive: true },
          },
        },
      ],
      limit: 1000,
    })
    expect(within.total).toBeGreaterThan(0)
    for (const row of within.rows) {
      const cell = row.cells[0]
      expect(cell?.number).toBeGreaterThanOrEqual(0.01)
      expect(cell?.number).toBeLessThanOrEqual(1)
      expect(cell?.modifier === null || cell?.modifier === '~').toBe(true)
      expect(row.moleculeId).toEqual(expect.any(Number))
    }
    expect(() =>
      cache
        .results()
        .table(main, { level: 'molecule', columns, sort: { column: 3, direction: 'asc' } }),
    ).toThrow('No column 3 to sort this results table by.')
  })
})
