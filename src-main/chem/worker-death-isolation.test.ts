import { describe, expect, it } from 'vitest'
import { AppError } from '../shared/app-error.ts'
import { isolatingWorkerDeaths } from './worker-death-isolation.ts'

/** A worker that dies on any batch holding a 3, and squares the rest. */
function workerDyingOn3(batches: number[][]) {
  return async (items: readonly number[]): Promise<string[]> => {
    batches.push([...items])
    if (items.includes(3)) throw new AppError('internal', 'The worker stopped')
    return items.map((item) => `${item * item}`)
  }
}

describe('isolatingWorkerDeaths', () => {
  it('runs the batch once when the worker survives it', async () => {
    const batches: number[][] = []
    expect(await isolatingWorkerDeaths([1, 2], workerDyingOn3(batches), () => 'alone')).toEqual([
      '1',
      '4',
    ])
    expect(batches).toEqual([[1, 2]])
  })

  it('answers the molecule that kills a worker by itself alone, and the others as usual', async () => {
    const batches: number[][] = []
    const answers = await isolatingWorkerDeaths(
      [1, 2, 3, 4],
      workerDyingOn3(batches),
      (item, error) => `${item} failed: ${error.message}`,
    )
    expect(answers).toEqual(['1', '4', '3 failed: The worker stopped', '16'])
    expect(batches).toEqual([[1, 2, 3, 4], [1], [2], [3], [4]])
  })

  it('lets other failures through: a cancelled batch is not a dead worker', async () => {
    const cancelled = async (): Promise<string[]> => {
      throw new AppError('cancelled', 'The operation was cancelled.')
    }
    await expect(isolatingWorkerDeaths([1, 2], cancelled, () => 'alone')).rejects.toMatchObject({
      code: 'cancelled',
    })
  })
})
