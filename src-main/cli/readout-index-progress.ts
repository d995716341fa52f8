import type { ReadoutIndexer } from '../store/readout-index.ts'
import type { CommandContext } from './command.ts'

const progressEveryMs = 500

/**
 * Commands that answer from readout values (searches by results, curves) need every readout row
 * indexed: what the cache writer has not indexed yet (a sync that just ended) is indexed here
 * first, with progress on stderr.
 */
export function completeReadoutIndex(
  context: CommandContext,
  cache: { readoutIndex(): ReadoutIndexer },
  vaultId: number,
): void {
  const indexer = cache.readoutIndex()
  const first = indexer.backlog()
  if (first.rows === 0 && first.groups === 0) return
  context.io.stderr(`Indexing the readouts of vault ${vaultId}…\n`)
  let lastAt = Date.now()
  indexer.complete(({ rows, groups }) => {
    if (Date.now() - lastAt < progressEveryMs) return
    lastAt = Date.now()
    context.io.stderr(`readout rows to index: ${rows}, aggregates to compute: ${groups}\n`)
  })
}
