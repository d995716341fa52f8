/**
 * Runs a batch of molecules in a worker; if the worker dies on it, runs each molecule alone, so
 * that a molecule that kills a worker by itself gets its own answer (`answerAlone`) rather than
 * stopping the work of the whole batch.
 */
import { AppError } from '../shared/app-error.ts'

export async function isolatingWorkerDeaths<Item, Answer>(
  items: readonly Item[],
  run: (items: readonly Item[]) => Promise<Answer[]>,
  answerAlone: (item: Item, error: AppError) => Answer,
): Promise<Answer[]> {
  try {
    return await run(items)
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'internal') throw error
    if (items.length > 1) {
      const alone = await Promise.all(
        items.map((item) => isolatingWorkerDeaths([item], run, answerAlone)),
      )
      return alone.flat()
    }
    return [answerAlone(items[0]!, error)]
  }
}
