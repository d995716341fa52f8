import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { moleculeRecords } from '../../test/store/fixtures/molecule-records.ts'
import { useTemporaryDirectory } from '../../test/store/fixtures/temporary-directory.ts'
import { PageDraft, recordsPerPart } from './page-draft.ts'
import { VaultCache } from './vault-cache.ts'

function filled(records: readonly unknown[]): PageDraft {
  const draft = new PageDraft('molecules', 1)
  for (const record of records) draft.add(record)
  return draft
}

describe('a page made ready as its records come', () => {
  it('is made in parts of recordsPerPart records, the last one holding the rest', () => {
    const parts = filled(moleculeRecords(2 * recordsPerPart + 2)).finish()
    expect(parts.map((part) => part.rows.ids.length)).toEqual([recordsPerPart, recordsPerPart, 2])
  })

  it('has no empty part after a full one, and one empty part when it holds nothing', () => {
    expect(filled(moleculeRecords(2 * recordsPerPart)).finish()).toHaveLength(2)
    const empty = new PageDraft('molecules', 1).finish()
    expect(empty).toHaveLength(1)
    expect(empty[0]!.rows.ids).toEqual([])
  })

  it('names a record it cannot read by its place in the whole page, in whichever part', () => {
    const records: unknown[] = moleculeRecords(recordsPerPart + 5)
    records[recordsPerPart + 2] = { name: 'no id' }
    const parts = filled(records).finish()
    expect(parts.flatMap((part) => part.rejected)).toEqual([
      { index: recordsPerPart + 2, reason: expect.stringMatching(/id/) },
    ])
  })

  it('refuses records once handed over, and an unknown kind at once', () => {
    const draft = filled(moleculeRecords(1))
    draft.finish()
    expect(() => draft.add(moleculeRecords(1, 2)[0])).toThrow(/handed over already/)
    expect(() => new PageDraft('potions', 1)).toThrow(/potions/)
  })
})

describe('a page made ready as its records come, committed by the cache writer', () => {
  const temporaryDirectory = useTemporaryDirectory()
  const caches: VaultCache[] = []
  afterEach(async () => {
    for (const cache of caches.splice(0)) await cache.close()
  })
  const open = () => {
    const { cache } = VaultCache.open(path.join(temporaryDirectory(), 'cache.db'))
    caches.push(cache)
    return cache
  }

  it('stores what the same records given as a whole page store, cursor and all', async () => {
    const records: unknown[] = moleculeRecords(3 * recordsPerPart + 7)
    // A molecule listed twice is stored as its last occurrence, even in another part.
    records[2 * recordsPerPart + 1] = { ...(records[3] as object), name: 'Relisted' }
    records[recordsPerPart] = 'not a record'
    const whole = open()
    const drafted = open()
    const wholeAnswer = await whole.writer.applyPage('molecules', 1, records, { cursor: 'c' })
    const draftAnswer = await drafted.writer.applyDraft(filled(records), { cursor: 'c' })
    expect(draftAnswer).toEqual(wholeAnswer)
    expect(draftAnswer.rejected).toHaveLength(1)
    for (const kind of ['molecules', 'batches'] as const) {
      const list = (cache: VaultCache) => cache.list(kind, 1, { sort: 'id', limit: 1000 })
      expect(list(drafted)).toEqual(list(whole))
    }
    expect(drafted.cursor('molecules', 1)).toBe('c')
    expect(drafted.search('Relisted').hits).toEqual(whole.search('Relisted').hits)
    expect(drafted.search('Relisted').hits).toHaveLength(1)
  })
})
