/**
 * How records.list pages structure hits (services/structure-list.ts), on a real cache: the first
 * page answered before counting ends, the same question asked again waiting for the count, hit
 * order and scores. The search itself is held back by hand here; the engine's own tests and
 * chem-service.test.ts run real searches.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { StructureHit, StructureSearchResult } from '../../src-main/chem/structure-search.ts'
import { listStructurePage } from '../../src-main/services/structure-list.ts'
import type {
  SearchQuestion,
  SearchRun,
  VaultChemistry,
} from '../../src-main/services/vault-chemistry.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'

let directory: string
let cache: VaultCache

beforeEach(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-structure-list-'))
  cache = VaultCache.open(path.join(directory, 'cache.db')).cache
  cache.applyPage(
    'molecules',
    1,
    Array.from({ length: 40 }, (_, index) => ({
      id: index + 1,
      name: `Molecule ${String(40 - index).padStart(2, '0')}`,
      smiles: 'c1ccccc1',
    })),
  )
})
afterEach(async () => {
  await cache.close()
  fs.rmSync(directory, { recursive: true, force: true })
})

/** A vault whose one search is finished by the test: first page, then the whole result. */
function heldSearch() {
  let finish: (result: StructureSearchResult) => void = () => {}
  let showFirst: (hits: StructureHit[]) => void = () => {}
  const questions: SearchQuestion[] = []
  let run: SearchRun | undefined
  const vault = {
    vaultId: 1,
    cache,
    async search(question: SearchQuestion) {
      questions.push(question)
      if (run) return { run, started: false, release: () => {} }
      const result = new Promise<StructureSearchResult>((resolve) => (finish = resolve))
      const created: SearchRun = {
        result,
        firstPage: new Promise<StructureHit[]>((resolve) => (showFirst = resolve)),
        firstPageSize: question.firstPageSize,
        done: false,
        hitCount: 0,
        waiting: 0,
        indexing: undefined,
      }
      void result.then((value) => {
        created.done = true
        created.hitCount = value.hits.length
      })
      run = created
      return { run: created, started: true, release: () => {} }
    },
  } as unknown as VaultChemistry
  return {
    vault,
    questions,
    first: (hits: StructureHit[]) => {
      run!.hitCount = hits.length
      showFirst(hits)
    },
    finish: (result: StructureSearchResult) => finish(result),
  }
}

const hits = (ids: number[], scores?: number[]): StructureHit[] =>
  ids.map((id, index) => (scores ? { id, score: scores[index]! } : { id }))

describe('structure pages', () => {
  it('answers the first page of a substructure search before counting ends', async () => {
    const held = heldSearch()
    const substructure = { kind: 'substructure', query: 'c1ccccc1' } as const
    const firstAnswer = listStructurePage(held.vault, { structure: substructure, limit: 3 })
    await new Promise((resolve) => setImmediate(resolve))
    expect(held.questions[0]).toMatchObject({ firstPageSize: 3, within: null })
    held.first(hits([2, 4, 6]))
    const first = await firstAnswer
    expect(first.structure).toEqual({ skippedUnparseable: 0, pendingDetails: 0, complete: false })
    expect(first.rows.map((row) => row.id)).toEqual([2, 4, 6])
    expect(first.total).toBe(3)

    // Asked again, the answer waits for the count.
    const again = listStructurePage(held.vault, { structure: substructure, limit: 3 })
    held.finish({ hits: hits([2, 4, 6, 8, 10, 12]), skippedUnparseable: 2, pendingDetails: 0 })
    const complete = await again
    expect(complete.structure).toEqual({ skippedUnparseable: 2, pendingDetails: 0, complete: true })
    expect(complete.total).toBe(6)
    expect(complete.rows.map((row) => row.id)).toEqual([2, 4, 6])
    const second = await listStructurePage(held.vault, {
      structure: substructure,
      limit: 3,
      offset: 3,
    })
    expect(second.rows.map((row) => row.id)).toEqual([8, 10, 12])
  })

  it('searches within ids alone however many, answering their first page early', async () => {
    const substructure = { kind: 'substructure', query: 'c1ccccc1' } as const
    for (const ids of [
      [3, 5, 8, 13, 21, 34, 35, 36, 37, 38],
      [7, 9],
    ]) {
      const held = heldSearch()
      const answer = listStructurePage(held.vault, { structure: substructure, ids, limit: 1 })
      await new Promise((resolve) => setImmediate(resolve))
      // The ids go to the scan as they are: no cache look-up first, no whole-vault search.
      expect(held.questions[0]).toMatchObject({ within: ids, firstPageSize: 1 })
      held.first(hits([ids[1]!]))
      const first = await answer
      expect(first.rows.map((row) => row.id)).toEqual([ids[1]])
      expect(first.structure.complete).toBe(false)
      held.finish({ hits: hits([ids[1]!]), skippedUnparseable: 0, pendingDetails: 0 })
      const counted = await listStructurePage(held.vault, {
        structure: substructure,
        ids,
        limit: 1,
      })
      expect(counted).toMatchObject({ total: 1, structure: { complete: true } })
    }
  })

  it('waits for the count when sorted, and narrows to the text first', async () => {
    const held = heldSearch()
    const answer = listStructurePage(held.vault, {
      structure: { kind: 'substructure', query: 'c1ccccc1' },
      text: 'molecule',
      sort: 'name',
      limit: 2,
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(held.questions[0]!.within).toHaveLength(40)
    held.first(hits([1, 2]))
    let settled = false
    void answer.then(() => (settled = true))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(settled).toBe(false)
    held.finish({ hits: hits([1, 2, 3]), skippedUnparseable: 0, pendingDetails: 0 })
    const page = await answer
    expect(page.structure.complete).toBe(true)
    // Names count down as ids go up.
    expect(page.rows.map((row) => row.id)).toEqual([3, 2])
    expect(page.total).toBe(3)
  })

  it('lists similar molecules best first with their scores, leaving out deleted ones', async () => {
    const held = heldSearch()
    const answer = listStructurePage(held.vault, {
      structure: { kind: 'similarity', smiles: 'c1ccccc1O', top: 4 },
      limit: 3,
    })
    await new Promise((resolve) => setImmediate(resolve))
    held.finish({
      hits: hits([9, 999, 3, 5], [1, 0.9, 0.8, 0.5]),
      skippedUnparseable: 0,
      pendingDetails: 0,
    })
    const page = await answer
    expect(page.rows.map((row) => row.id)).toEqual([9, 3])
    expect(page.structure.scores).toEqual({ '9': 1, '3': 0.8 })
    expect(page.total).toBe(4)
  })
})
