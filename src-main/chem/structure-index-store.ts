import type { DepictionSize } from './depiction-size.ts'
import type { ComputedDetails } from './structure-input.ts'
import type { StructureRecord } from './structure-record.ts'

/**
 * Where the structure index persists, implemented by the cache database
 * (store/structure-index-repository.ts); chem only knows this interface.
 */
export interface StructureIndexStore {
  /** Up to `limit` records with ids above `afterId` (all when null), in id order. */
  recordsAfter(afterId: number | null, limit: number): StructureRecord[]
  /** The stored content hash of each of these molecules that is stored. */
  contentHashes(ids: readonly number[]): Map<number, string>
  /** Adds or replaces records, all or none. */
  save(records: readonly StructureRecord[]): void
  /** Stores computed InChIKeys and properties, and that they are no longer pending. */
  saveDetails(details: readonly ComputedDetails[]): void
  remove(ids: readonly number[]): void
  idsByCanonicalSmiles(canonicalSmiles: string): number[]
  idsByInchiKey(inchiKey: string): number[]
  parseError(id: number): string | null
  /** A cached depiction, only if drawn from the molecule's current structure. */
  depiction(id: number, size: DepictionSize): string | undefined
  /** Caches a depiction of the molecule's current structure. */
  saveDepiction(id: number, size: DepictionSize, svg: string): void
}
