import { formatBytes } from '../../../src-common/format/numbers.ts'

/**
 * The space a connection's attachment contents may take (the person's setting, 1 GB by default),
 * and which fetched files make room for another when it is full.
 *
 * Large and long unused files go first: each fetched file weighs its size times the time since it
 * was last opened (or fetched, if never opened), and the heaviest are removed until the newcomer
 * fits. A small file opened an hour ago outlasts a large one nobody opened for a month; of two
 * files of one size the older goes, of two of one age the larger. Files the person fetched
 * explicitly beyond the budget are never chosen.
 */

export const defaultAttachmentBudgetBytes = 1024 * 1024 * 1024

export interface BudgetedFile {
  vaultId: number
  fileId: number
  size: number
  /** ISO: when last opened, else when fetched. */
  lastUsedAt: string
  kept: boolean
}

export type BudgetPlan =
  | { fits: true; evict: BudgetedFile[] }
  /** Even with every other file removed it would not fit (or `kept` files fill the space). */
  | { fits: false; reason: string }

/** What to remove so that `incoming` more bytes fit within `budget`. */
export function planRoom(
  fetched: readonly BudgetedFile[],
  incoming: number,
  budget: number,
  now: number = Date.now(),
): BudgetPlan {
  if (incoming > budget) {
    return {
      fits: false,
      reason: `it takes ${formatBytes(incoming)}, more than the whole attachment budget of ${formatBytes(budget)}`,
    }
  }
  let used = fetched.reduce((sum, file) => sum + file.size, 0)
  if (used + incoming <= budget) return { fits: true, evict: [] }
  const evict: BudgetedFile[] = []
  for (const file of evictionOrder(fetched, now)) {
    if (used + incoming <= budget) break
    evict.push(file)
    used -= file.size
  }
  if (used + incoming > budget) {
    return {
      fits: false,
      reason: `files fetched on request take the attachment budget of ${formatBytes(budget)}`,
    }
  }
  return { fits: true, evict }
}

/** Fetched files in the order they go (first goes first); `kept` files are left out. */
export function evictionOrder(fetched: readonly BudgetedFile[], now: number = Date.now()) {
  const weight = (file: BudgetedFile) =>
    file.size * Math.max(1, now - (Date.parse(file.lastUsedAt) || 0))
  return fetched
    .filter((file) => !file.kept)
    .map((file) => ({ file, weight: weight(file) }))
    .sort(
      (a, b) =>
        b.weight - a.weight ||
        b.file.size - a.file.size ||
        a.file.vaultId - b.file.vaultId ||
        a.file.fileId - b.file.fileId,
    )
    .map(({ file }) => file)
}
