import { describe, expect, it } from 'vitest'
import { evictionOrder, planRoom, type BudgetedFile } from './budget.ts'

const now = Date.parse('2026-11-29T12:00:00Z')
const daysAgo = (days: number) => new Date(now - days * 86_400_000).toISOString()
const mb = 1024 * 1024

function file(fileId: number, sizeMb: number, days: number, kept = false): BudgetedFile {
  return { vaultId: 1, fileId, size: sizeMb * mb, lastUsedAt: daysAgo(days), kept }
}

describe('the attachment budget', () => {
  it('removes large and long unused files first, never those kept on request', () => {
    const files = [
      file(1, 10, 1), // small, used yesterday
      file(2, 300, 30), // large and a month old: first to go
      file(3, 300, 1), // large but used yesterday
      file(4, 10, 60), // small and two months old
      file(5, 500, 90, true), // kept beyond the budget by the person
      file(6, 100, 30), // of one age with 2, smaller
    ]
    // Size times idle time: 2 (9000 MB·days), 6 (3000), 4 (600), 3 (300), 1 (10).
    expect(evictionOrder(files, now).map((f) => f.fileId)).toEqual([2, 6, 4, 3, 1])
  })

  it('breaks ties of one weight by size, then by id', () => {
    const files = [file(8, 50, 2), file(7, 100, 1), file(9, 50, 2)]
    expect(evictionOrder(files, now).map((f) => f.fileId)).toEqual([7, 8, 9])
  })

  it('removes only as many as the newcomer needs', () => {
    const files = [file(1, 400, 10), file(2, 400, 20), file(3, 100, 1)]
    const plan = planRoom(files, 300 * mb, 1000 * mb, now)
    expect(plan).toEqual({ fits: true, evict: [files[1]] })
    expect(planRoom(files, 100 * mb, 1000 * mb, now)).toEqual({ fits: true, evict: [] })
  })

  it('says why a file cannot fit at all', () => {
    const tooBig = planRoom([], 2000 * mb, 1000 * mb, now)
    expect(tooBig).toMatchObject({ fits: false })
    expect(!tooBig.fits && tooBig.reason).toMatch(/more than the whole attachment budget/)
    const crowded = planRoom([file(1, 900, 1, true)], 200 * mb, 1000 * mb, now)
    expect(!crowded.fits && crowded.reason).toMatch(/fetched on request take/)
  })
})
