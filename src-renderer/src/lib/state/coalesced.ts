/**
 * Wraps a refresh so that calls during a run do not pile up: the first call runs it, calls while
 * it runs ask for exactly one more run afterwards. Sync commits pages several times a second, and
 * each commit says "records changed"; the lists need the latest state, not one read per commit.
 */
export function coalesced(work: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null
  let again = false
  const run = async (): Promise<void> => {
    try {
      do {
        again = false
        await work()
      } while (again)
    } finally {
      running = null
    }
  }
  return () => {
    if (running) {
      again = true
      return running
    }
    running = run()
    return running
  }
}
