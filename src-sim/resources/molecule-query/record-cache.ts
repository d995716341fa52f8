import type { VaultAccess } from '../../core/context.ts'
import type { SimCore } from '../../core/sim-core.ts'
import type { RegistryQuery } from './registry-query.ts'

/**
 * The JSON text of molecule and batch records, kept until the next write. Client benchmarks read
 * a 100k-molecule vault several times over; serving repeated pages from here keeps the simulator
 * from being what limits them. A record's text depends on who asks (projects and private
 * collections) and how (display members and scope), so those are part of the key.
 */
interface Cache {
  version: number
  texts: Map<string, string>
}

const caches = new WeakMap<SimCore, Cache>()
const maxEntries = 250_000

export function recordTexts(
  access: VaultAccess,
  query: RegistryQuery,
  ids: readonly number[],
  build: (ids: readonly number[]) => Record<string, unknown>[],
): string[] {
  const sim = access.sim
  let cache = caches.get(sim)
  if (!cache || cache.version !== sim.dataVersion) {
    cache = { version: sim.dataVersion, texts: new Map() }
    caches.set(sim, cache)
  }
  const signature = JSON.stringify([
    query.target,
    access.user.id,
    access.projectIds,
    query.scope,
    query.display,
  ])
  const texts = ids.map((id) => cache.texts.get(`${signature}|${id}`))
  const missing = ids.filter((_, index) => texts[index] === undefined)
  if (missing.length > 0) {
    if (cache.texts.size + missing.length > maxEntries) cache.texts.clear()
    const built = new Map(
      build(missing).map((record) => [record.id as number, JSON.stringify(record)]),
    )
    ids.forEach((id, index) => {
      const text = built.get(id)
      if (text === undefined) return
      texts[index] = text
      cache.texts.set(`${signature}|${id}`, text)
    })
  }
  return texts.filter((text): text is string => text !== undefined)
}
