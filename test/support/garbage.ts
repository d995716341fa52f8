import { setTimeout as delay } from 'node:timers/promises'
import v8 from 'node:v8'
import vm from 'node:vm'

v8.setFlagsFromString('--expose-gc')
const collectGarbage = vm.runInNewContext('gc') as () => void

/**
 * Whether every object the refs point to is collected within `withinMs`, collecting garbage
 * between turns of the event loop (a WeakRef holds its target until the turn that made it ends).
 */
export async function collected(
  refs: readonly WeakRef<object>[],
  withinMs = 2000,
): Promise<boolean> {
  const until = performance.now() + withinMs
  for (;;) {
    await delay(10)
    collectGarbage()
    if (refs.every((ref) => ref.deref() === undefined)) return true
    if (performance.now() > until) return false
  }
}
