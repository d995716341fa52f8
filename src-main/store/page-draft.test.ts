import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { moleculeRecords } from '../../test/store/fixtures/molecule-records.ts'
import { useTemporaryDirectory } from '../../test/store/fixtures/temporary-directory.ts'
import { PageDraft, recordsPerPart } from './page-draft.ts'
import { VaultCache } from './vault-cache.ts'
import { WriteBatch } from './write-batch.ts'

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
    const draft = new PageDraft('molecules', 1, {}, drafted.writer.partSink())
    records.slice(0, recordsPerPart - 1).forEach((record) => draft.add(record))
    expect(drafted.writer.running).toBe(false)
    // The first full part goes ahead to the worker, started for it.
    records.slice(recordsPerPart - 1).forEach((record) => draft.add(record))
    expect(drafted.writer.running).toBe(true)
    const draftAnswer = await drafted.writer.applyDraft(draft, { cursor: 'c' })
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

  it('stores a page whose parts all went ahead, the last part it is handed over with empty', async () => {
    const cache = open()
    const draft = new PageDraft('molecules', 1, {}, cache.writer.partSink())
    for (const record of moleculeRecords(2 * recordsPerPart)) draft.add(record)
    await expect(cache.writer.applyDraft(draft, { cursor: 'c' })).resolves.toMatchObject({
      stored: 2 * recordsPerPart,
    })
    expect(cache.counts()[1]?.molecules).toBe(2 * recordsPerPart)
    expect(cache.cursor('molecules', 1)).toBe('c')
  })

  it('drops the parts that went ahead of a page discarded, and stores the pages after it', async () => {
    const cache = open()
    const discarded = new PageDraft('molecules', 1, {}, cache.writer.partSink())
    for (const record of moleculeRecords(2 * recordsPerPart + 3)) discarded.add(record)
    const kept = new PageDraft('molecules', 1, {}, cache.writer.partSink())
    for (const record of moleculeRecords(recordsPerPart + 1, 1000)) kept.add(record)
    discarded.discard()
    expect(() => discarded.add(moleculeRecords(1)[0])).toThrow(/handed over already/)
    await cache.writer.applyDraft(kept, { cursor: 'kept' })
    const ids = cache.list('molecules', 1, { sort: 'id', limit: 1000 }).records.map((r) => r.id)
    expect(ids).toEqual(Array.from({ length: recordsPerPart + 1 }, (_, index) => 1000 + index))
    expect(cache.cursor('molecules', 1)).toBe('kept')
  })

  it('drops the parts that went ahead of a page that may not be written after a failed one', async () => {
    const cache = open()
    // It fails in the worker, while the next page's parts go ahead.
    const failed = cache.writer.commit(new WriteBatch().retainOnly('molecules', 1, ['x']))
    const draft = new PageDraft('molecules', 1, {}, cache.writer.partSink())
    for (const record of moleculeRecords(recordsPerPart + 1)) draft.add(record)
    const refused = cache.writer.applyDraft(draft, {}, { after: failed })
    await expect(failed).rejects.toMatchObject({ code: 'validation' })
    await expect(refused).rejects.toMatchObject({ code: 'cancelled' })
    await expect(
      cache.writer.applyPage('projects', 1, [{ id: 1, name: 'P' }]),
    ).resolves.toMatchObject({ stored: 1 })
    expect(cache.counts()[1]).toEqual({ projects: 1 })
  })

  it('refuses the commit of a page whose parts went ahead once the cache is closed', async () => {
    const cache = open()
    const draft = new PageDraft('molecules', 1, {}, cache.writer.partSink())
    for (const record of moleculeRecords(recordsPerPart + 1)) draft.add(record)
    await cache.close()
    caches.splice(caches.indexOf(cache), 1)
    await expect(cache.writer.applyDraft(draft)).rejects.toMatchObject({ code: 'cancelled' })
  })

  it('fails the commit of a page whose parts went to a writer that stopped since', async () => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    const { cache } = VaultCache.open(file)
    caches.push(cache)
    // The worker opens the file when the first part starts it: moved away, the worker dies.
    fs.renameSync(file, `${file}.away`)
    const draft = new PageDraft('molecules', 1, {}, cache.writer.partSink())
    for (const record of moleculeRecords(recordsPerPart + 1)) draft.add(record)
    const alongside = cache.writer.commit(new WriteBatch().saveCursor('molecules', 1, 'c'))
    await expect(alongside).rejects.toMatchObject({ code: 'storage' })
    fs.renameSync(`${file}.away`, file)
    await expect(cache.writer.applyDraft(draft)).rejects.toMatchObject({
      code: 'storage',
      message: expect.stringMatching(/writer stopped while the page was being handed/),
    })
    const next = new PageDraft('molecules', 1, {}, cache.writer.partSink())
    for (const record of moleculeRecords(recordsPerPart + 1, 500)) next.add(record)
    await cache.writer.applyDraft(next)
    expect(cache.counts()[1]).toMatchObject({ molecules: recordsPerPart + 1 })
    expect(cache.get('molecules', 1, 1)).toBeNull()
    expect(cache.get('molecules', 1, 500)).not.toBeNull()
  })

  it("refuses a page whose parts went ahead to another cache's writer", async () => {
    const [cache, other] = [open(), open()]
    const draft = new PageDraft('molecules', 1, {}, other.writer.partSink())
    for (const record of moleculeRecords(recordsPerPart + 1)) draft.add(record)
    await expect(cache.writer.applyDraft(draft)).rejects.toMatchObject({ code: 'internal' })
    expect(cache.counts()[1]).toBeUndefined()
  })

  it('puts a page whose parts went ahead first in its batch, or refuses it', () => {
    const cache = open()
    const draft = new PageDraft('molecules', 1, {}, cache.writer.partSink())
    const batch = new WriteBatch().saveCursor('molecules', 1, 'c')
    expect(() => batch.applyDraft(draft)).toThrow(/first write of its batch/)
    draft.discard()
  })
})
