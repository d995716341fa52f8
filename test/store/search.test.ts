import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { kindSamples } from './fixtures/kind-samples.ts'
import { moleculeRecords } from './fixtures/molecule-records.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const ids = (result: { hits: { id: number }[] }) =>
  result.hits.map((hit) => hit.id).sort((a, b) => a - b)

describe('search as you type', () => {
  const temporaryDirectory = useTemporaryDirectory()
  let cache: VaultCache

  beforeEach(() => {
    cache = VaultCache.open(path.join(temporaryDirectory(), 'cache.db')).cache
    cache.applyPage('molecules', 1, [kindSamples.molecules])
    cache.applyPage('eln_entries', 1, [kindSamples.eln_entries])
    cache.applyPage('protocols', 1, [kindSamples.protocols])
    cache.applyPage('molecules', 2, [{ id: 900, name: 'Aspirin (vault 2)', synonyms: ['Ácido'] }])
  })
  afterEach(() => cache.close())

  it('finds a molecule by the beginning of its name, synonym, identifiers and field values', () => {
    const found = (text: string) =>
      cache.search(text, { vaultId: 1, kinds: ['molecules'] }).hits.map((hit) => hit.name)
    for (const text of [
      'asp',
      'Aspi',
      'acetyl',
      'acetoxy',
      '2-acetoxyb',
      'VD-0000101',
      'vd-0000101-0',
      'BSYNRY',
      'salicyl',
      'aldrich',
      'Sigma-Al',
      'COX',
    ]) {
      expect(found(text), text).toEqual(['Aspirin'])
    }
    expect(found('asp acetyl')).toEqual(['Aspirin'])
    expect(found('asp caffeine')).toEqual([])
    expect(found('zzz')).toEqual([])
    expect(found('   ')).toEqual([])
  })

  it('finds notebook entries by title and protocols by name, and filters by kind and vault', () => {
    expect(cache.search('synth', { vaultId: 1 }).hits).toEqual([
      { kind: 'eln_entries', vaultId: 1, id: 26, name: 'Synthesis of aspirin' },
    ])
    expect(
      cache.search('aspirin', { vaultId: 1, kinds: ['eln_entries'] }).hits.map((hit) => hit.kind),
    ).toEqual(['eln_entries'])
    expect(
      cache
        .search('aspirin', { kinds: ['molecules'] })
        .hits.map((hit) => hit.vaultId)
        .sort(),
    ).toEqual([1, 2])
    expect(cache.search('EGFR IC', { vaultId: 1 }).hits.map((hit) => hit.kind)).toEqual([
      'protocols',
    ])
  })

  it('ignores case and diacritics, as the index does', () => {
    expect(cache.search('ACIDO', { vaultId: 2 }).hits.map((hit) => hit.id)).toEqual([900])
    expect(cache.search('ácido', { vaultId: 2 }).hits.map((hit) => hit.id)).toEqual([900])
  })

  it('ranks name matches above matches in other text', () => {
    cache.applyPage('molecules', 1, [
      { id: 102, name: 'Caffeine', molecule_fields: { Note: 'tastes like aspirin' } },
      { id: 103, name: 'Aspirin lysinate' },
    ])
    const ranked = cache.search('aspirin', { vaultId: 1, kinds: ['molecules'], ranked: true })
    expect(ranked.hits.map((hit) => hit.name).at(-1)).toBe('Caffeine')
    expect(ranked.hits.every((hit) => typeof hit.score === 'number')).toBe(true)
  })

  it('forgets replaced and deleted records', () => {
    cache.applyPage('molecules', 1, [
      { ...kindSamples.molecules, name: 'Acetylsalicylate', synonyms: [] },
    ])
    expect(cache.search('aspirin', { vaultId: 1, kinds: ['molecules'] }).hits).toEqual([])
    expect(cache.search('acetylsal', { vaultId: 1 }).hits.map((hit) => hit.id)).toEqual([101])
    cache.retainOnly('molecules', 1, [])
    expect(cache.search('acetylsal', { vaultId: 1 }).hits).toEqual([])
  })

  it('keeps records in the vault they were written to when writes go back to an earlier vault', () => {
    cache.applyPage('molecules', 1, [
      { id: 901, name: 'Zoledronic acid', projects: [{ id: 7, name: 'Bone' }] },
    ])
    expect(cache.search('zoledr', { vaultId: 1 }).hits.map((hit) => hit.id)).toEqual([901])
    expect(cache.search('zoledr', { vaultId: 2 }).hits).toEqual([])
    expect(cache.get('molecules', 1, 901)).toMatchObject({ name: 'Zoledronic acid' })
    expect(cache.get('molecules', 2, 901)).toBeNull()
    const inProject = cache.list('molecules', 1, { projectId: 7 }).records
    expect(inProject.map((record) => record.id)).toEqual([901])
  })

  it("finds a vault's own record within that vault", () => {
    cache.applyPage('vaults', 0, [
      { id: 1, name: 'Oncology' },
      { id: 2, name: 'Neurology' },
    ])
    const vaultsFound = (text: string, vaultId: number) =>
      cache.search(text, { vaultId, kinds: ['vaults'] }).hits.map((hit) => hit.id)
    expect(vaultsFound('onco', 1)).toEqual([1])
    expect(vaultsFound('onco', 2)).toEqual([])
    expect(vaultsFound('neuro', 2)).toEqual([2])
  })
})

describe('search over many records', () => {
  const temporaryDirectory = useTemporaryDirectory()
  let cache: VaultCache
  const records = moleculeRecords(600)

  beforeEach(() => {
    cache = VaultCache.open(path.join(temporaryDirectory(), 'cache.db')).cache
    for (let start = 0; start < records.length; start += 200) {
      cache.applyPage('molecules', 1, records.slice(start, start + 200))
    }
  })
  afterEach(() => cache.close())

  /** What a person means by "every word is the beginning of a word of the name or a synonym". */
  function expected(text: string): number[] {
    const words = text.toLowerCase().split(/\s+/)
    return records
      .filter((record) => {
        const tokens = [record.name, ...(record.synonyms as string[])]
          .join(' ')
          .toLowerCase()
          .split(/[^a-z0-9_-]+/)
        return words.every((word) => tokens.some((token) => token.startsWith(word)))
      })
      .map((record) => record.id as number)
      .sort((a, b) => a - b)
  }

  it('a filtered list counts every match of a prefix, however broad', () => {
    for (const text of ['ma', 'mab', 'vd-000', 'vd-0001', 'chembl1', 'ta ro']) {
      const page = cache.list('molecules', 1, { text, limit: 1000 })
      const listed = page.records.map((record) => record.id as number).sort((a, b) => a - b)
      // Field values and batch identifiers also match; names and synonyms must all be there.
      expect(listed, text).toEqual(expect.arrayContaining(expected(text)))
      expect(page.total, text).toBe(listed.length)
    }
    expect(cache.list('molecules', 1, { text: 'vd-000' }).total).toBe(600)
  })

  it('answers one word from the first matches in term order, complete up to the limit', () => {
    const answer = cache.search('vd-000', { limit: 50 })
    expect(answer.broad).toBe(false)
    expect(answer.hits.map((hit) => hit.id)).toEqual(
      Array.from({ length: 50 }, (_, index) => index + 1),
    )
    const ranked = cache.search('vd-000', { limit: 50, ranked: true })
    expect(ranked.broad).toBe(false)
    expect(ranked.hits).toHaveLength(50)
    expect(ids(cache.search('vd-000012', { limit: 50 }))).toEqual([
      120, 121, 122, 123, 124, 125, 126, 127, 128, 129,
    ])
  })

  it('keeps to the vault and kinds asked for when the cache holds one vault', () => {
    expect(cache.search('vd-000012', { vaultId: 1 }).hits).toHaveLength(10)
    expect(cache.search('vd-000012', { vaultId: 2 }).hits).toEqual([])
    expect(cache.search('vd-000012', { vaultId: 2, ranked: true }).hits).toEqual([])
    expect(cache.search('vd-000012', { kinds: ['eln_entries'] }).hits).toEqual([])
    expect(cache.search('vd-000012 ma', { vaultId: 2 }).hits).toEqual([])
  })

  it('says when a word of several is too broad to expand fully, and still answers only matches', () => {
    const answer = cache.search('ma vd', { limit: 50 })
    expect(answer.broad).toBe(true)
    const matching = expected('ma vd')
    expect(answer.hits.length).toBeGreaterThan(0)
    for (const hit of answer.hits) expect(matching).toContain(hit.id)
    const narrower = cache.search('ma vd-000001', { limit: 50 })
    expect(narrower.broad).toBe(false)
    expect(expected('ma vd-000001').length).toBeGreaterThan(0)
    expect(ids(narrower)).toEqual(expected('ma vd-000001'))
  })

  it('follows a person typing: every keystroke answers, and the answer narrows', () => {
    let previous = Number.POSITIVE_INFINITY
    for (const text of [
      'v',
      'vd',
      'vd-',
      'vd-0',
      'vd-00',
      'vd-000',
      'vd-0000',
      'vd-00003',
      'vd-000031',
    ]) {
      const count = cache.list('molecules', 1, { text }).total
      expect(count, text).toBeLessThanOrEqual(previous)
      previous = count
      expect(cache.search(text, { limit: 20 }).hits.length, text).toBeGreaterThan(0)
    }
    expect(previous).toBe(10)
  })
})
