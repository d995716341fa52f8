import { ApiError, setAsideIn, type SetAside } from '../api/index.ts'
import { toId } from '../../src-common/values.ts'
import type { VaultCache } from '../store/vault-cache.ts'
import { WriteBatch } from '../store/write-batch.ts'
import type { PullContext } from './pull-context.ts'
import { pushId } from './paged-pass.ts'

/**
 * The dose-response calculations of cached protocols and the data series of each: listings
 * nested under their parent, stored with it as `parentId` (the server offers no filter by time).
 * Protocols whose record lists no calculation are not asked. With `only`, just those protocols
 * (whose readout rows changed, so their curves may have been fitted again) and what is no longer
 * listed under them is deleted; without, every protocol, and calculations and series no longer
 * listed under any parent are deleted.
 */
export async function pullDoseResponse(
  cache: VaultCache,
  context: PullContext,
  onProgress: (done: number, total: number) => void,
  only: ReadonlySet<number> | null,
  onSetAside: (
    kind: 'dose_response_calculations' | 'dose_response_series',
    records: readonly SetAside[],
  ) => void = () => {},
): Promise<void> {
  const { client, vaultId, call } = context
  const protocols = cachedProtocols(cache, vaultId).filter((id) => !only || only.has(id))
  const calculationIds: number[] = []
  const seriesIds: number[] = []
  let done = 0
  for (const protocolId of protocols) {
    const calculations = await listedUnder(() =>
      client.doseResponse.calculations(vaultId, protocolId, call),
    )
    onSetAside('dose_response_calculations', setAsideIn(calculations))
    const batch = new WriteBatch().applyPage('dose_response_calculations', vaultId, calculations, {
      parentId: protocolId,
    })
    const ofProtocol: number[] = []
    for (const calculation of calculations) {
      pushId(ofProtocol, calculation)
      const calculationId = toId(calculation.id)
      if (calculationId === null) continue
      const series = await listedUnder(() =>
        client.doseResponse.dataSeries(vaultId, protocolId, calculationId, call),
      )
      onSetAside('dose_response_series', setAsideIn(series))
      batch.applyPage('dose_response_series', vaultId, series, { parentId: calculationId })
      const ofCalculation: number[] = []
      for (const item of series) pushId(ofCalculation, item)
      if (only) {
        batch.retainOnly('dose_response_series', vaultId, ofCalculation, {
          parentId: calculationId,
        })
      }
      seriesIds.push(...ofCalculation)
    }
    if (only) {
      batch.retainOnly('dose_response_calculations', vaultId, ofProtocol, { parentId: protocolId })
    }
    calculationIds.push(...ofProtocol)
    await cache.writer.commit(batch)
    onProgress(++done, protocols.length)
  }
  if (!only) {
    await cache.writer.commit(
      new WriteBatch()
        .retainOnly('dose_response_calculations', vaultId, calculationIds)
        .retainOnly('dose_response_series', vaultId, seriesIds),
    )
  }
}

/** Cached protocols that have (or may have) dose-response calculations. */
function cachedProtocols(cache: VaultCache, vaultId: number): number[] {
  const protocols: number[] = []
  for (let offset = 0; ; offset += 1000) {
    const page = cache.list('protocols', vaultId, { sort: 'id', limit: 1000, offset })
    for (const record of page.records) {
      const id = toId(record.id)
      const listed = record.calculations
      if (id !== null && (!Array.isArray(listed) || listed.length > 0)) protocols.push(id)
    }
    if (page.records.length < 1000) return protocols
  }
}

/** A parent deleted since the protocols were read has nothing under it any more. */
async function listedUnder<T>(list: () => Promise<T[]>): Promise<T[]> {
  try {
    return await list()
  } catch (error) {
    if (error instanceof ApiError && error.kind === 'not_found') return []
    throw error
  }
}
