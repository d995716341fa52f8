/**
 * The k best (score, slot) pairs seen so far, in a binary min-heap so that each offer costs
 * O(log k). Ties go to the lower slot, so results do not depend on how work was split.
 */
export interface ScoredSlot {
  slot: number
  score: number
}

export function compareScoredSlots(a: ScoredSlot, b: ScoredSlot): number {
  return b.score - a.score || a.slot - b.slot
}

export class TopScores {
  readonly #capacity: number
  readonly #heap: ScoredSlot[] = []

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`TopScores needs a positive whole capacity, not ${capacity}.`)
    }
    this.#capacity = capacity
  }

  /** The score an offer must beat to get in once the heap is full. */
  get floor(): number {
    return this.#heap.length < this.#capacity ? -Infinity : this.#heap[0]!.score
  }

  offer(score: number, slot: number): void {
    const heap = this.#heap
    if (heap.length < this.#capacity) {
      heap.push({ slot, score })
      this.#siftUp(heap.length - 1)
    } else if (worse(heap[0]!, { slot, score })) {
      heap[0] = { slot, score }
      this.#siftDown(0)
    }
  }

  sorted(): ScoredSlot[] {
    return [...this.#heap].sort(compareScoredSlots)
  }

  #siftUp(index: number): void {
    const heap = this.#heap
    let child = index
    while (child > 0) {
      const parent = (child - 1) >> 1
      if (!worse(heap[child]!, heap[parent]!)) return
      ;[heap[child], heap[parent]] = [heap[parent]!, heap[child]!]
      child = parent
    }
  }

  #siftDown(index: number): void {
    const heap = this.#heap
    let parent = index
    for (;;) {
      const left = parent * 2 + 1
      const right = left + 1
      let worst = parent
      if (left < heap.length && worse(heap[left]!, heap[worst]!)) worst = left
      if (right < heap.length && worse(heap[right]!, heap[worst]!)) worst = right
      if (worst === parent) return
      ;[heap[parent], heap[worst]] = [heap[worst]!, heap[parent]!]
      parent = worst
    }
  }
}

/** True when a ranks below b: a lower score, or the same score and a higher slot. */
function worse(a: ScoredSlot, b: ScoredSlot): boolean {
  return a.score < b.score || (a.score === b.score && a.slot > b.slot)
}
