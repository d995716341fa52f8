import { afterEach, describe, expect, it } from 'vitest'
import { AppError } from '../shared/app-error.ts'
import { scanRange } from './scan-chunks.ts'
import type { StructureInput } from './structure-input.ts'
import { StructureIndex } from './structure-index.ts'
import { ChemWorkerPool } from './worker-pool.ts'
import type { SimilarityChunk } from './worker-protocol.ts'

const pools: ChemWorkerPool[] = []

function newPool(options: ConstructorParameters<typeof ChemWorkerPool>[0]): ChemWorkerPool {
  const pool = new ChemWorkerPool(options)
  pools.push(pool)
  return pool
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()))
})

function inputs(smiles: readonly string[]): StructureInput[] {
  return smiles.map((structure, id) => ({
    id,
    structure,
    inchiKey: null,
    computeProperties: false,
  }))
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(AppError)
  return error as AppError
}

describe('ChemWorkerPool', () => {
  it('spreads tasks over its workers and answers each with its own result', async () => {
    const pool = newPool({ size: 2 })
    const batches = [['CCO', 'c1ccccc1'], ['CC(=O)O'], ['C1CC', 'N'], ['O=C=O']]
    const results = await Promise.all(
      batches.map((smiles) => pool.run({ kind: 'computeStructures', items: inputs(smiles) })),
    )
    expect(results.map((batch) => batch.map((structure) => structure.parseError === null))).toEqual(
      [[true, true], [true], [false, true], [true]],
    )
    expect(
      results[0]!.map((structure) => structure.parseError === null && structure.canonicalSmiles),
    ).toEqual(['CCO', 'c1ccccc1'])
  })

  it('answers an invalid structure with an error value that names the problem', async () => {
    const pool = newPool({ size: 1 })
    const error = await rejection(pool.run({ kind: 'canonicalizeStructure', text: 'CC(C' }))
    expect(error.code).toBe('invalid_argument')
    expect(error.message).toBe(
      'Invalid SMILES: extra open parentheses while parsing: CC(C; check for mistakes around position 3.',
    )
  })

  it('withdraws a queued task when it is cancelled, leaving the running one alone', async () => {
    const pool = newPool({ size: 1 })
    const running = pool.run({
      kind: 'computeStructures',
      items: inputs(Array(200).fill('c1ccccc1O')),
    })
    const controller = new AbortController()
    const queued = pool.run({ kind: 'describe' }, { signal: controller.signal })
    controller.abort()
    expect((await rejection(queued)).code).toBe('cancelled')
    expect(await running).toHaveLength(200)
  })

  it('stops a running task when it is cancelled, so the worker is free for the next one', async () => {
    const pool = newPool({ size: 1 })
    await pool.run({ kind: 'describe' })
    const controller = new AbortController()
    // Far more work than the test's time limit allows: only cancellation lets the next task run.
    const endless = pool.run(
      { kind: 'computeStructures', items: inputs(Array(200_000).fill('CC(=O)Nc1ccc(O)cc1')) },
      { signal: controller.signal },
    )
    setTimeout(() => controller.abort(), 20)
    expect((await rejection(endless)).code).toBe('cancelled')
    expect(await pool.run({ kind: 'describe' })).toEqual({ rdkitVersion: expect.any(String) })
  })

  it('replaces a worker that dies, fails only its task, and attaches the indexes to the new one', async () => {
    const pool = newPool({ size: 1, resourceLimits: { maxOldGenerationSizeMb: 16 } })
    const [parsed] = await pool.run({
      kind: 'computeStructures',
      items: [{ id: 7, structure: 'c1ccccc1O', inchiKey: null, computeProperties: true }],
    })
    const index = new StructureIndex()
    index.put({ ...parsed!, contentHash: 'test', knownProperties: {} })
    pool.attachIndex(index.id, index.buffers.handles)

    // Structures this big exhaust the worker's 16 MB heap before RDKit sees them.
    const huge = inputs(Array.from({ length: 400 }, (_, n) => `${'C'.repeat(200_000)}${n}`))
    const crash = await rejection(pool.run({ kind: 'computeStructures', items: huge }))
    expect(crash.code).toBe('internal')
    expect(crash.message).toMatch(
      /^The chemistry worker stopped during computeStructures: .*memory/,
    )

    const chunks: SimilarityChunk[] = []
    await pool.run(
      {
        kind: 'similarityScan',
        ...scanRange(index.id, index.slotCount, { first: 16, largest: 16 }, null),
        query: 'Oc1ccccc1',
        threshold: 0.5,
        top: null,
      },
      { onProgress: (chunk) => chunks.push(chunk) },
    )
    expect(chunks).toEqual([{ chunk: 0, hits: [{ slot: 0, score: 1 }] }])
  })

  it('shuts down: queued tasks are cancelled and later ones refused', async () => {
    const pool = newPool({ size: 1 })
    const running = pool.run({ kind: 'computeStructures', items: inputs(Array(50).fill('CCO')) })
    const queued = rejection(pool.run({ kind: 'describe' }))
    const runningError = rejection(running)
    await pool.close()
    expect((await queued).code).toBe('cancelled')
    expect((await runningError).code).toBe('cancelled')
    expect((await rejection(pool.run({ kind: 'describe' }))).message).toBe(
      'The chemistry workers have shut down.',
    )
    await pool.close()
  })

  it('refuses a size it cannot have', () => {
    expect(() => new ChemWorkerPool({ size: 0 })).toThrow(
      'The chemistry worker pool size must be a whole number from 1 to 16, not 0.',
    )
  })
})
