/**
 * The curve workers (store/curve-fit-pool.ts): a task that cannot read its cache fails with what
 * is wrong and leaves the pool working; a caller whose handler throws gets its own error; tasks
 * beyond the workers wait their turn; once closed, the pool refuses work.
 */
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CurveFitPool } from '../../src-main/store/curve-fit-pool.ts'
import type { CurveFitTask } from '../../src-main/store/curve-fits.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

describe('the curve workers', () => {
  const temporaryDirectory = useTemporaryDirectory()
  const pools: CurveFitPool[] = []
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.close()
  })

  const task = (file: string): CurveFitTask => ({
    file,
    vaultId: 1,
    selection: { protocolId: 17 },
    pending: [],
  })
  const handlers = { onHead: () => {}, onPart: () => {} }

  it('fails a task whose cache cannot be read, and goes on with the next', async () => {
    const pool = new CurveFitPool({ size: 1 })
    pools.push(pool)
    const missing = path.join(temporaryDirectory(), 'missing.db')
    await expect(pool.run(task(missing), handlers)).rejects.toMatchObject({
      code: 'storage',
      message: expect.stringContaining(missing),
    })
    const file = path.join(temporaryDirectory(), 'cache.db')
    const { cache } = VaultCache.open(file)
    try {
      const heads: number[] = []
      // More tasks than workers: they queue and all answer.
      const answers = await Promise.all(
        [1, 2, 3].map(() =>
          pool.run(task(file), { onHead: (_, total) => heads.push(total), onPart: () => {} }),
        ),
      )
      expect(answers).toEqual([1, 2, 3].map(() => ({ fitted: 0, reused: 0 })))
      expect(heads).toEqual([0, 0, 0])
      await expect(
        pool.run(task(file), {
          onHead: () => {
            throw new Error('the window went away')
          },
          onPart: () => {},
        }),
      ).rejects.toThrow('the window went away')
      await expect(pool.run(task(file), handlers)).resolves.toEqual({ fitted: 0, reused: 0 })
    } finally {
      await cache.close()
    }
  })

  it('refuses work once closed, and a size it cannot have', async () => {
    const pool = new CurveFitPool({ size: 2 })
    await pool.close()
    await expect(pool.run(task('unused.db'), handlers)).rejects.toMatchObject({ code: 'cancelled' })
    expect(() => new CurveFitPool({ size: 0 })).toThrow(/whole number from 1 to 16, not 0/)
  })
})
