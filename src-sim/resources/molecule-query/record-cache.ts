import type { SimCore, VaultAccess } from '../../core/sim-core.ts'
import type { RegistryQuery } from './registry-query.ts'

/**
 * The JSON text of molecule and batch records built from the tables (those the stored documents
 * cannot answer: owner ids, chosen fields, a view narrower than the document's), kept until the
 * next write, so that paging through such a result again is cheap too. A record's text depends
 * on who asks (projects and private collections) and how (display members and scope), so those
 * are part of the key.
 */
interface Cache {
  version: number
  texts: Map<string, string>
}

const caches = new WeakMap<SimCore, Cache>()
const maxEntries = 250_000

export function cachedRecordTexts(
  access: VaultAccess,
  query: RegistryQuery,
  ids: readonly number[],
  build: (ids: readonly number[]) => Record<string, unknown>[],
): Map<number, string> {
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
  const texts = new Map<number, string>()
  const missing: number[] = []
  for (const id of ids) {
    const text = cache.texts.get(`${signature}|${id}`)
    if (text === undefined) missing.push(id)
    else texts.set(id, text)
  }
  if (missing.length > 0) {
    if (cache.texts.size + missing.length > maxEntries) cache.texts.clear()
    for (const record of build(missing)) {
      const text = JSON.stringify(record)
      texts.set(record.id as number, text)
      cache.texts.set(`${signature}|${record.id as number}`, text)
    }
  }
  return texts
}
